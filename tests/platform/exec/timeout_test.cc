// A kernel that never finishes is stopped at sim.timeout_ms of simulated time with a clear
// message and exit status 1, on every preset; it never hangs the simulator.
#include <catch2/catch.hpp>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;

TEST_CASE("timeout: a kernel spinning forever stops at the simulated time limit") {
  for (const char* preset : {"flexgrip", "tk1", "tx2"}) {
    INFO(preset);
    auto r = run_gpuvp(fmt::format("exec --preset {} --set sim.timeout_ms=2 --ptx {}/exec/spin_forever.ptx --kernel spin "
                                   "--grid 2 --block 64 --arg buf:i32:1",
                                   preset, GPUVP_TEST_DATA));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Contains("timeout") && Contains("after 2 ms of simulated time"));
  }
}

TEST_CASE("timeout: the same kernel finishes when its flag is set") {
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --set sim.timeout_ms=2 --ptx {}/exec/spin_forever.ptx --kernel spin "
                                 "--grid 2 --block 64 --arg buf:i32:1:const=1",
                                 GPUVP_TEST_DATA));
  CHECK(r.status == 0);
}
