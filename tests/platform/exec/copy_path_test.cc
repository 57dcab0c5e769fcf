// Which keys time host copies (docs/configuration.md, copy_engines): the concurrent mode's copy
// engine (copy.*), the batch mode's host bus (host.bus_*); a key of the other mode changes nothing.
#include <catch2/catch.hpp>

#include <string>

#include "common/subprocess.h"

using namespace gpuvp::test;

namespace {
// exec's "N us simulated" for spin (returns at once: its flag is 1) with a 10000-word buffer, which
// is copied to the device and back: 2 copies of 40000 bytes.
double simulated_us(const std::string& sets) {
  auto r = run_gpuvp(fmt::format("exec --preset tx2 {} --ptx {}/exec/spin_forever.ptx --kernel spin --grid 1 "
                                 "--block 32 --arg buf:i32:10000:const=1",
                                 sets, GPUVP_TEST_DATA));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const size_t end = r.out.find(" us simulated");
  REQUIRE(end != std::string::npos);
  return std::stod(r.out.substr(r.out.rfind(' ', end - 1) + 1, end));
}
}  // namespace

TEST_CASE("copy path: concurrent copies follow copy.bytes_per_ns, batch copies the host bus") {
  // Concurrent: each copy takes copy.latency_ns + 40000 / copy.bytes_per_ns; from 10 to 0.01 bytes
  // per ns both copies take 40000 * (100 - 0.1) ns longer: 7992 us in all.
  const double fast = simulated_us("--set copy.bytes_per_ns=10");
  CHECK(simulated_us("--set copy.bytes_per_ns=0.01") - fast == Approx(7992.0).margin(0.002));
  // Batch: the copy engine's keys change nothing; the host bus (1 byte per ns on tx2) at 0.01 makes
  // each copy at least 40000 * (100 - 1) ns longer.
  const double batch = simulated_us("--set scheduler.kind=batch");
  CHECK(simulated_us("--set scheduler.kind=batch --set copy.bytes_per_ns=0.01") == batch);
  CHECK(simulated_us("--set scheduler.kind=batch --set host.bus_bytes_per_ns=0.01") - batch >= 7920.0);
}

TEST_CASE("copy path: copy_engines=0 with the concurrent mode is refused naming both keys") {
  auto r = run_gpuvp("config --preset tx2 --set copy_engines=0");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("copy_engines = 0: scheduler.kind = concurrent"));
  CHECK(run_gpuvp("config --preset tx2 --set copy_engines=0 --set scheduler.kind=batch").status == 0);
}
