// vabsdiff4 through PTX on the SIMT core against byte arithmetic in C++: the SIMD merge form (with
// and without .sat) and the .add accumulate form, on unsigned and signed bytes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

struct Form {
  const char* mods;  // after "vabsdiff4"
  bool sgn_src, sgn_dst, sat, add;
};

uint32_t reference(const Form& f, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t packed = 0, sum = 0;
  for (unsigned i = 0; i < 4; ++i) {
    int x = int((a >> (8 * i)) & 0xFF), y = int((b >> (8 * i)) & 0xFF);
    if (f.sgn_src) x = int(int8_t(uint8_t(x))), y = int(int8_t(uint8_t(y)));
    int t = std::abs(x - y);
    sum += uint32_t(t);
    if (f.sat) t = std::min(t, f.sgn_dst ? 127 : 255);
    packed |= uint32_t(t & 0xFF) << (8 * i);
  }
  return f.add ? c + sum : packed;
}

}  // namespace

TEST_CASE("PTX vabsdiff4: merge, .sat and .add forms on unsigned and signed bytes", "[ptx][inst][video]") {
  const Form forms[] = {{".u32.u32.u32", false, false, false, false}, {".u32.u32.u32.add", false, false, false, true},
                        {".s32.s32.s32", true, true, false, false},   {".s32.s32.s32.sat", true, true, true, false},
                        {".u32.s32.s32.sat", true, false, true, false}, {".s32.s32.s32.add", true, true, false, true}};
  std::mt19937 rng(11);
  std::vector<uint64_t> a(32), b(32), c(32);
  for (unsigned l = 0; l < 32; ++l) a[l] = rng(), b[l] = rng(), c[l] = rng();
  // Bytes at the extremes: 0 vs 255 (unsigned 255, signed 1), 0x80 vs 0x7F (signed 255), equal bytes.
  a[0] = 0x00FF807F, b[0] = 0xFF007F80, c[0] = 0xFFFFFFFF;
  a[1] = 0x12345678, b[1] = 0x12345678;
  for (const Form& f : forms) {
    auto o = run_lanes(fmt::format("vabsdiff4{} %r1, %a, %b, %c;\n cvt.u64.u32 %o, %r1;", f.mods), a, b, c);
    for (unsigned l = 0; l < 32; ++l) {
      INFO("vabsdiff4" << f.mods << " lane " << l << " a " << a[l] << " b " << b[l] << " c " << c[l]);
      CHECK(o[l] == reference(f, uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l])));
    }
  }
  // The destination may be a source.
  auto o = run_lanes("mov.b32 %r1, %a;\n vabsdiff4.u32.u32.u32.add %r1, %r1, %b, %r1;\n cvt.u64.u32 %o, %r1;", a, b, c);
  for (unsigned l = 0; l < 32; ++l)
    CHECK(o[l] == reference(forms[1], uint32_t(a[l]), uint32_t(b[l]), uint32_t(a[l])));
}
