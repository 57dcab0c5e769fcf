// A kernel that reads past the end of its buffer gets global memory's bounds error with the caches
// on as with them off, even when the L1 already holds the sector (docs/caches.md, "Timing").
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "common/subprocess.h"

namespace {

// The device-error line of `gpuvp exec` running oob_nc (tests/data/exec/oob_nc.ptx) on `preset`:
// element 0 of a 4-float buffer, then element 5, 4 bytes past its end in the same sector.
std::string oob_error(const std::string& preset, const std::string& sets) {
  const auto r = gpuvp::test::run_gpuvp(fmt::format(
      "exec --preset {} {} --ptx {}/exec/oob_nc.ptx --kernel oob_nc --grid 1 --block 1 --arg buf:f32:4 --arg buf:f32:1 "
      "--arg i32:5",
      preset, sets, GPUVP_TEST_DATA));
  INFO(preset << " " << sets << ": " << r.err);
  CHECK(r.status == 1);
  const size_t at = r.err.find("gpuvp: device error:");
  REQUIRE(at != std::string::npos);
  return r.err.substr(at, r.err.find('\n', at) - at);
}

}  // namespace

TEST_CASE("cache bounds: a read past a buffer's end in a sector the L1 holds is the memory's address error") {
  for (const char* preset : {"tx2", "tk1"}) {
    const std::string off = oob_error(preset, "--set sm.l1d.size_kib=0 --set l2.size_kib=0");
    const std::string on = oob_error(preset, "");
    CHECK(on == off);
    // The read of element 5 is named: 4 bytes at 5 * 4 = 0x14 past the buffer's start.
    CHECK(on.find("address error: TLM_ADDRESS_ERROR_RESPONSE on gmem_rd read of 4 bytes") != std::string::npos);
    CHECK(on.find("lane 0") != std::string::npos);
  }
}
