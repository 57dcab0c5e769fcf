// Numeric semantics of the SIMT core (models/sm/numeric.h) against hand-worked values.
#include <catch2/catch.hpp>

#include <cfenv>
#include <cmath>
#include <limits>
#include <vector>

#include "models/sm/numeric.h"

using namespace gpuvp;
using namespace gpuvp::sm;
using isa::Cmp;
using isa::DType;
using isa::PrmtMode;
using isa::Round;

TEST_CASE("numeric: lanes, masks, sign extension") {
  std::vector<unsigned> seen;
  lanes(0x80000005u, [&](unsigned l) { seen.push_back(l); });
  CHECK(seen == std::vector<unsigned>{0, 2, 31});
  CHECK(wmask(8) == 0xFFu);
  CHECK(wmask(32) == 0xFFFFFFFFu);
  CHECK(wmask(64) == ~uint64_t{0});
  CHECK(sext(0x80, 8) == -128);
  CHECK(sext(0x7F, 8) == 127);
  CHECK(sext(0xFFFF8000u, 16) == -32768);
  CHECK(sext(0x123, 0) == 0x123);
  CHECK(f32(0x3F800000u) == 1.0f);
  CHECK(b32(-2.0f) == 0xC0000000u);
  CHECK(f64(0x3FF0000000000000ull) == 1.0);
  CHECK(b64(0.5) == 0x3FE0000000000000ull);
}

TEST_CASE("numeric: ftz and sat") {
  float sub = f32(0x00000001u);  // smallest subnormal
  CHECK(b32(ftz(sub)) == 0u);
  CHECK(b32(ftz(-sub)) == 0x80000000u);
  CHECK(ftz(1.5f) == 1.5f);
  CHECK(sat01(-0.5f) == 0.0f);
  CHECK(sat01(2.0f) == 1.0f);
  CHECK(sat01(std::numeric_limits<float>::quiet_NaN()) == 0.0f);
  CHECK(sat01(0.25) == 0.25);
}

TEST_CASE("numeric: half conversion") {
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0xC000) == -2.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(std::isinf(half_to_float(0x7C00)));
  CHECK(std::isnan(half_to_float(0x7E00)));
  CHECK(to_half(1.0, Round::Rn) == 0x3C00);
  CHECK(to_half(-2.0, Round::Rn) == 0xC000);
  CHECK(to_half(-0.0, Round::Rn) == 0x8000);
  CHECK(to_half(std::nan(""), Round::Rn) == 0x7FFF);
  // 1 + 2^-11 lies halfway between 1 and the next half (1 + 2^-10).
  CHECK(to_half(1.0 + std::ldexp(1.0, -11), Round::Rn) == 0x3C00);
  CHECK(to_half(1.0 + std::ldexp(1.0, -11), Round::Rp) == 0x3C01);
  CHECK(to_half(-(1.0 + std::ldexp(1.0, -11)), Round::Rm) == 0xBC01);
  CHECK(to_half(-(1.0 + std::ldexp(1.0, -11)), Round::Rz) == 0xBC00);
  // Overflow: to infinity when rounding away, to the largest finite otherwise.
  CHECK(to_half(70000.0, Round::Rn) == 0x7C00);
  CHECK(to_half(70000.0, Round::Rz) == 0x7BFF);
  CHECK(to_half(-70000.0, Round::Rp) == 0xFBFF);
  // Subnormals: 2^-24 is the smallest; 2^-25 is a tie between 0 and 2^-24 (even: 0).
  CHECK(to_half(std::ldexp(1.0, -24), Round::Rn) == 0x0001);
  CHECK(to_half(std::ldexp(1.0, -25), Round::Rn) == 0x0000);
  CHECK(to_half(std::ldexp(1.0, -25), Round::Rp) == 0x0001);
}

TEST_CASE("numeric: float to integer saturates, NaN is 0") {
  CHECK(f2i(std::nan(""), Round::Rzi, DType::S32) == 0);
  CHECK(f2i(3.7, Round::Rzi, DType::S32) == 3);
  CHECK(f2i(3.7, Round::None, DType::U32) == 3);
  CHECK(f2i(-3.7, Round::Rmi, DType::S32) == 0xFFFFFFFCu);
  CHECK(f2i(3.2, Round::Rpi, DType::S32) == 4);
  CHECK(f2i(2.5, Round::Rni, DType::S32) == 2);
  CHECK(f2i(-3.5, Round::Rni, DType::S16) == 0xFFFCu);
  CHECK(f2i(1e10, Round::Rzi, DType::S32) == 0x7FFFFFFFu);
  CHECK(f2i(-1e10, Round::Rzi, DType::S32) == 0x80000000u);
  CHECK(f2i(-1.0, Round::Rzi, DType::U32) == 0);
  CHECK(f2i(5e9, Round::Rzi, DType::U32) == 0xFFFFFFFFu);
  CHECK(f2i(300.0, Round::Rzi, DType::U8) == 0xFFu);
  CHECK(f2i(1e30, Round::Rzi, DType::S64) == 0x7FFFFFFFFFFFFFFFull);
}

TEST_CASE("numeric: comparisons") {
  uint64_t m1 = ~uint64_t{0};  // -1 as a signed 64-bit value
  CHECK(cmp_int(Cmp::Lt, m1, 1, true));
  CHECK_FALSE(cmp_int(Cmp::Lt, m1, 1, false));
  CHECK_FALSE(cmp_int(Cmp::Lo, m1, 1, true));  // lo/ls/hi/hs are unsigned
  CHECK(cmp_int(Cmp::Hs, 5, 5, true));
  CHECK(cmp_int(Cmp::Ne, 4, 5, false));
  double nan = std::nan("");
  CHECK_FALSE(cmp_float(Cmp::Lt, nan, 1.0));
  CHECK(cmp_float(Cmp::Ltu, nan, 1.0));
  CHECK_FALSE(cmp_float(Cmp::Ne, nan, 1.0));
  CHECK(cmp_float(Cmp::Neu, nan, 1.0));
  CHECK(cmp_float(Cmp::Nan, 1.0, nan));
  CHECK_FALSE(cmp_float(Cmp::Num, 1.0, nan));
  CHECK(cmp_float(Cmp::Eq, -0.0, 0.0));
  CHECK(fval(DType::F16, 0x3C00) == 1.0);
  CHECK(fval(DType::F32, 0x40000000u) == 2.0);

  double x[32] = {}, y[32] = {};
  x[0] = 1, y[0] = 2;    // lt
  x[1] = 3, y[1] = 2;    // not lt
  x[3] = nan, y[3] = 1;  // unordered
  x[4] = -1, y[4] = 0;   // lt, but not in the mask
  CHECK(fcmp_mask(Cmp::Lt, 0b1011, x, y) == 0b0001);
  CHECK(fcmp_mask(Cmp::Geu, 0b1011, x, y) == 0b1010);
  uint64_t a[32] = {}, b[32] = {};
  a[0] = m1, b[0] = 0;
  a[1] = 2, b[1] = 1;
  CHECK(icmp_mask_signed(Cmp::Lt, 0b11, a, b) == 0b01);
  CHECK(icmp_mask_unsigned(Cmp::Lt, 0b11, a, b) == 0b00);
  CHECK(icmp_mask_unsigned(Cmp::Hi, 0b11, a, b) == 0b11);
}

TEST_CASE("numeric: min/max NaN and signed zero rules") {
  double nan = std::nan("");
  CHECK(fminmax(nan, 1.0, true) == 1.0);
  CHECK(fminmax(2.0f, std::nanf(""), false) == 2.0f);
  CHECK(std::isnan(fminmax(nan, nan, false)));
  CHECK(std::signbit(fminmax(-0.0, 0.0, false)));
  CHECK_FALSE(std::signbit(fminmax(-0.0, 0.0, true)));
  CHECK_FALSE(std::signbit(fminmax(0.0, -0.0, true)));
  CHECK(fminmax(-3.0, 2.0, false) == -3.0);
  CHECK(fminmax(-3.0, 2.0, true) == 2.0);
}

TEST_CASE("numeric: prmt and lop3") {
  uint32_t a = 0x33221100, b = 0x77665544;
  CHECK(prmt(a, b, 0x5410, PrmtMode::None) == 0x55441100u);
  CHECK(prmt(a, b, 0x3210, PrmtMode::None) == a);
  CHECK(prmt(a, b, 0x7654, PrmtMode::None) == b);
  CHECK(prmt(0x80221100, b, 0x000B, PrmtMode::None) == 0x000000FFu);  // sign replicate of byte 3
  CHECK(prmt(a, b, 1, PrmtMode::F4e) == 0x44332211u);
  CHECK(prmt(a, b, 0, PrmtMode::B4e) == 0x55667700u);
  CHECK(prmt(a, b, 2, PrmtMode::Rc8) == 0x22222222u);
  CHECK(prmt(a, b, 1, PrmtMode::Rc16) == 0x33223322u);
  uint64_t p = 0xF0F0, q = 0xCCCC, r = 0xAAAA;
  CHECK(lop3(p, q, r, 0xF0) == p);
  CHECK(lop3(p, q, r, 0xCC) == q);
  CHECK(lop3(p, q, r, 0xAA) == r);
  CHECK((lop3(p, q, r, 0x96) & 0xFFFF) == ((p ^ q ^ r) & 0xFFFF));
  CHECK(lop3(p, q, r, 0x80) == (p & q & r));
  CHECK((lop3(p, q, r, 0xE8) & 0xFFFF) == (((p & q) | (p & r) | (q & r)) & 0xFFFF));
}

TEST_CASE("numeric: float lane loops") {
  isa::Inst in;
  in.type = DType::F16;
  uint64_t a[32] = {}, b[32] = {}, d[32] = {};
  a[0] = 0x3C00, b[0] = 0x4000;  // 1 + 2 = 3
  fl2(in, 1, a, b, d, [](auto x, auto y) { return x + y; });
  CHECK(d[0] == 0x4200);
  in.type = DType::F32;
  in.mod.flags = isa::kSat;
  a[1] = b32(0.75f), b[1] = b32(0.5f);  // 1.25 saturates to 1
  fl2(in, 2, a, b, d, [](auto x, auto y) { return x + y; });
  CHECK(d[1] == b32(1.0f));
  in.mod.flags = isa::kFtz;
  a[2] = 0x00000001u;  // subnormal input flushed: sqrt(0) = 0
  fl1(in, 4, a, d, [](auto x) { return decltype(x)(std::sqrt(x)); });
  CHECK(d[2] == 0u);
  in.type = DType::F64;
  in.mod.flags = 0;
  uint64_t c[32] = {};
  a[3] = b64(2.0), b[3] = b64(3.0), c[3] = b64(1.0);
  fl3(in, 8, a, b, c, d, [](auto x, auto y, auto z) { return std::fma(x, y, z); });
  CHECK(d[3] == b64(7.0));
}

namespace {
// Global operands: the compiler cannot fold the sums at the default rounding mode.
uint64_t g_a[32], g_b[32], g_d[32];
}  // namespace

TEST_CASE("numeric: directed rounding around the lane loop") {
  isa::Inst in;
  in.type = DType::F32;
  g_a[0] = b32(1.0f), g_b[0] = b32(std::ldexp(1.0f, -30));
  // 1 + 2^-30 in f32: .rp rounds up to the next float, .rn and .rz to 1.
  in.mod.round = Round::Rp;
  fl2(in, 1, g_a, g_b, g_d, [](auto x, auto y) { return x + y; });
  CHECK(g_d[0] == 0x3F800001u);
  in.mod.round = Round::Rn;
  fl2(in, 1, g_a, g_b, g_d, [](auto x, auto y) { return x + y; });
  CHECK(g_d[0] == 0x3F800000u);
  in.mod.round = Round::Rz;
  fl2(in, 1, g_a, g_b, g_d, [](auto x, auto y) { return x + y; });
  CHECK(g_d[0] == 0x3F800000u);
  CHECK(std::fegetround() == FE_TONEAREST);  // restored
}
