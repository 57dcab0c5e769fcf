// A kernel that never finishes is stopped at sim.timeout_ms of simulated time with a clear
// message and exit status 1, on every preset; it never hangs the simulator.
#include <catch2/catch.hpp>

#include <chrono>

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

TEST_CASE("timeout: sim.host_timeout_s stops a run by host time, says so and how far it came") {
  // 4 x 1024 threads spinning on the tx2 need minutes of host time for the default 2 s of simulated
  // time; a host-time limit of 0.3 s stops them at once, with exit status 1.
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --set sim.host_timeout_s=0.3 --ptx {}/exec/spin_forever.ptx "
                                 "--kernel spin --grid 4 --block 1024 --arg buf:i32:1",
                                 GPUVP_TEST_DATA));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("timeout: the host-time limit") && Contains("after 0.3 s of CPU time") &&
                        Contains("sim.host_timeout_s sets it, 0: no limit") && Contains("simulated time reached: ") &&
                        Contains("waiting for a kernel that never completed"));
  CHECK(took < 5);
  // 0: no host-time limit; the simulated one decides as before.
  r = run_gpuvp(fmt::format("exec --preset tx2 --set sim.host_timeout_s=0 --set sim.timeout_ms=1 --ptx "
                            "{}/exec/spin_forever.ptx --kernel spin --grid 2 --block 64 --arg buf:i32:1",
                            GPUVP_TEST_DATA));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("after 1 ms of simulated time"));
}
