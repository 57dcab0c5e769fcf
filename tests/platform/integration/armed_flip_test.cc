// The text of an armed fault (platform/armed_flip.h): what a campaign on an application passes to each
// run in GPUVP_FAULT. Its arming in a platform is tested end to end by cudart:fi_app_campaign.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "platform/armed_flip.h"

using namespace gpuvp;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_armed_flip(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("armed flip: text and back") {
  const ArmedFlip f{"gpu.sm0.regs", 12419, 0x200000, 9880000};
  CHECK(to_text(f) == "gpu.sm0.regs[12419]^0x200000@9880000");
  const ArmedFlip g = parse_armed_flip(to_text(f));
  CHECK(g.target == f.target);
  CHECK(g.index == f.index);
  CHECK(g.mask == f.mask);
  CHECK(g.time_ps == f.time_ps);
  // A 64-bit mask and instant survive.
  const ArmedFlip h = parse_armed_flip("gpu.x[0]^0xffffffffffffffff@18446744073709551615");
  CHECK(h.mask == ~uint64_t{0});
  CHECK(h.time_ps == ~uint64_t{0});
}

TEST_CASE("armed flip: bad text is refused, saying why") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of("gpu.gmem^0x1@5"), Contains("expected TARGET[INDEX]^0xMASK@TIME_PS"));
  CHECK_THAT(error_of("[3]^0x1@5"), Contains("expected TARGET[INDEX]^0xMASK@TIME_PS"));
  CHECK_THAT(error_of("gpu.gmem[x]^0x1@5"), Contains("index 'x' is not a number"));
  CHECK_THAT(error_of("gpu.gmem[3]^0x1@-5"), Contains("instant '-5' is not a number"));
  CHECK_THAT(error_of("gpu.gmem[3]^0x1@99999999999999999999"), Contains("instant '99999999999999999999' is not a number"));
  CHECK_THAT(error_of("gpu.gmem[3]^0@5"), Contains("the mask is 0"));
}
