// Catch2's own main, for the test areas of layers without SystemC (sw/isa, sw/ptx, sw/runtime,
// sw/workloads): they link no SystemC at all, so nothing there can come to depend on it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
