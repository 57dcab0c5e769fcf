// Catch2 runs inside sc_main: SystemC elaborates once per process, so CTest runs every
// test case as its own process (catch_discover_tests) and each case may build its own platform.
#include "common/catch_run.h"
#include <systemc>
#include <cstdlib>

// SystemC prints its banner before sc_main unless told not to; our own main() tells it first.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  // SystemC prints a copyright banner on first use; keep test output readable.
  return gpuvp_catch_run(argc, argv);
}
