// The main of the test areas of layers without SystemC (sw/isa, sw/ptx, sw/runtime, sw/workloads): they
// link no SystemC at all, so nothing there can come to depend on it. It does what Catch2's own main does.
#include "common/catch_run.h"

int main(int argc, char* argv[]) { return gpuvp_catch_run(argc, argv); }
