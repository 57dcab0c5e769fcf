// Per-instruction semantics through PTX text on the SIMT core, against plain C++ computations:
// shifts by >= width, integer division by zero, cvt rounding modes and saturation, NaN/inf
// compares, 64-bit wide/high multiplies, prmt, bfe/bfi, shfl, vote.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <limits>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

uint32_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t dbits(double f) {
  uint64_t u;
  std::memcpy(&u, &f, 8);
  return u;
}
float bf(uint64_t u) {
  float f;
  uint32_t v = uint32_t(u);
  std::memcpy(&f, &v, 4);
  return f;
}
const float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("PTX shifts by amounts >= the width clamp to the width", "[ptx][inst]") {
  std::vector<uint64_t> a, b;
  uint32_t amts[] = {0, 1, 7, 31, 32, 33, 63, 64, 65, 100, 255, 256, 0x80000000u, 0xFFFFFFFFu};
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(l & 1 ? 0x80000000F00DF00Dull ^ (uint64_t(l) << 40) : 0x7234567890ABCDEFull);
    b.push_back(amts[l % 14]);
  }
  auto shl32 = run_lanes("shl.b32 %r1, %a, %b;\n cvt.u64.u32 %o, %r1;", a, b);
  auto shru32 = run_lanes("shr.u32 %r1, %a, %b;\n cvt.u64.u32 %o, %r1;", a, b);
  auto shrs32 = run_lanes("shr.s32 %r1, %a, %b;\n cvt.u64.u32 %o, %r1;", a, b);
  auto shl64 = run_lanes("shl.b64 %o, %ra, %b;", a, b);
  auto shru64 = run_lanes("shr.u64 %o, %ra, %b;", a, b);
  auto shrs64 = run_lanes("shr.s64 %o, %ra, %b;", a, b);
  for (unsigned l = 0; l < 32; ++l) {
    uint32_t x = uint32_t(a[l]), s = uint32_t(b[l]);
    uint64_t X = a[l];
    INFO("lane " << l << " amount " << s);
    CHECK(shl32[l] == (s >= 32 ? 0u : uint32_t(x << s)));
    CHECK(shru32[l] == (s >= 32 ? 0u : x >> s));
    CHECK(shrs32[l] == uint32_t(int32_t(x) >> std::min(s, 31u)));
    CHECK(shl64[l] == (s >= 64 ? 0 : X << s));
    CHECK(shru64[l] == (s >= 64 ? 0 : X >> s));
    CHECK(shrs64[l] == uint64_t(int64_t(X) >> std::min(s, 63u)));
  }
}

TEST_CASE("PTX integer division and remainder by zero and overflow (docs/sm.md)", "[ptx][inst]") {
  std::vector<uint64_t> a, b;
  int64_t pairs[][2] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {5, 0}, {-5, 0}, {0, 0}, {INT32_MIN, -1},
                        {INT32_MIN, 1}, {INT32_MAX, 0}, {123456789, 1000}, {-1, 0x7FFFFFFF}};
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(uint64_t(pairs[l % 12][0]) + (l >= 12 && l < 24 ? 0 : 0));
    b.push_back(uint64_t(pairs[l % 12][1]));
  }
  // 64-bit lanes 24..31 use 64-bit extremes.
  a[24] = uint64_t(INT64_MIN), b[24] = uint64_t(-1);
  a[25] = 99, b[25] = 0;
  a[26] = uint64_t(-99), b[26] = 0;
  a[27] = ~0ull, b[27] = 7;
  auto divs = run_lanes("div.s32 %r1, %a, %b;\n rem.s32 %r2, %a, %b;\n mov.b64 %o, {%r1, %r2};", a, b);
  auto divu = run_lanes("div.u32 %r1, %a, %b;\n rem.u32 %r2, %a, %b;\n mov.b64 %o, {%r1, %r2};", a, b);
  auto divs64 = run_lanes("div.s64 %o, %ra, %rb;", a, b);
  auto rems64 = run_lanes("rem.s64 %o, %ra, %rb;", a, b);
  auto divu64 = run_lanes("div.u64 %o, %ra, %rb;", a, b);
  auto remu64 = run_lanes("rem.u64 %o, %ra, %rb;", a, b);
  for (unsigned l = 0; l < 32; ++l) {
    int32_t x = int32_t(a[l]), y = int32_t(b[l]);
    uint32_t ux = uint32_t(a[l]), uy = uint32_t(b[l]);
    int32_t q = y == 0 ? -1 : (x == INT32_MIN && y == -1) ? INT32_MIN : x / y;
    int32_t r = y == 0 ? x : (x == INT32_MIN && y == -1) ? 0 : x % y;
    INFO("lane " << l << ": " << x << " / " << y);
    CHECK(uint32_t(divs[l]) == uint32_t(q));
    CHECK(uint32_t(divs[l] >> 32) == uint32_t(r));
    CHECK(uint32_t(divu[l]) == (uy == 0 ? 0xFFFFFFFFu : ux / uy));
    CHECK(uint32_t(divu[l] >> 32) == (uy == 0 ? ux : ux % uy));
    int64_t X = int64_t(a[l]), Y = int64_t(b[l]);
    int64_t Q = Y == 0 ? -1 : (X == INT64_MIN && Y == -1) ? INT64_MIN : X / Y;
    int64_t R = Y == 0 ? X : (X == INT64_MIN && Y == -1) ? 0 : X % Y;
    CHECK(divs64[l] == uint64_t(Q));
    CHECK(rems64[l] == uint64_t(R));
    CHECK(divu64[l] == (b[l] == 0 ? ~0ull : a[l] / b[l]));
    CHECK(remu64[l] == (b[l] == 0 ? a[l] : a[l] % b[l]));
  }
}

namespace {
int64_t sat_round(double v, int mode, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return 0;
  double r = mode == 0 ? std::nearbyint(v) : mode == 1 ? std::trunc(v) : mode == 2 ? std::floor(v) : std::ceil(v);
  if (r <= double(lo)) return lo;
  if (r >= double(hi)) return hi;
  return int64_t(r);
}
float to_f32(double v, int fe) {
  std::fesetround(fe);
  volatile double in = v;
  volatile float out = float(in);
  std::fesetround(FE_TONEAREST);
  return out;
}
float i_to_f32(int32_t v, int fe) {
  std::fesetround(fe);
  volatile int32_t in = v;
  volatile float out = float(in);
  std::fesetround(FE_TONEAREST);
  return out;
}
}  // namespace

TEST_CASE("PTX cvt float->int rounding modes saturate, NaN -> 0", "[ptx][inst]") {
  float vals[] = {2.5f, -2.5f, 3.5f, -0.5f, 0.49999997f, 1e10f, -1e10f, kNaN, kInf, -kInf, 2147483520.f, -2147483648.f,
                  1.0f, -1.0f, 0.0f, 7.75f};
  std::vector<uint64_t> a;
  for (unsigned l = 0; l < 32; ++l) a.push_back(fbits(l < 16 ? vals[l] : -vals[l - 16] * 3.0f));
  const char* modes[] = {"rni", "rzi", "rmi", "rpi"};
  for (int m = 0; m < 4; ++m) {
    auto s32 = run_lanes(fmt::format("cvt.{}.s32.f32 %r1, %fa;\n cvt.u64.u32 %o, %r1;", modes[m]), a);
    auto u32 = run_lanes(fmt::format("cvt.{}.u32.f32 %r1, %fa;\n cvt.u64.u32 %o, %r1;", modes[m]), a);
    auto s64 = run_lanes(fmt::format("cvt.{}.s64.f32 %o, %fa;", modes[m]), a);
    auto f32 = run_lanes(fmt::format("cvt.{}.f32.f32 %f1, %fa;\n mov.b32 %r1, %f1;\n cvt.u64.u32 %o, %r1;", modes[m]), a);
    for (unsigned l = 0; l < 32; ++l) {
      double v = bf(a[l]);
      INFO(modes[m] << " lane " << l << " value " << v);
      CHECK(uint32_t(s32[l]) == uint32_t(int32_t(sat_round(v, m, INT32_MIN, INT32_MAX))));
      CHECK(uint32_t(u32[l]) == uint32_t(sat_round(v, m, 0, UINT32_MAX)));
      CHECK(s64[l] == uint64_t(sat_round(v, m, INT64_MIN, INT64_MAX)));
      if (!std::isnan(v)) {
        float e = float(m == 0 ? std::nearbyint(v) : m == 1 ? std::trunc(v) : m == 2 ? std::floor(v) : std::ceil(v));
        CHECK(bf(f32[l]) == e);
      } else {
        CHECK(std::isnan(bf(f32[l])));
      }
    }
  }
}

TEST_CASE("PTX cvt to f32 with .rn/.rz/.rm/.rp from f64 and s32", "[ptx][inst]") {
  double dv[] = {1.0 + 0x1p-30, -(1.0 + 0x1p-30), 1.0 + 0x1p-24, 3.0000001192092896, 1e300, -1e300, 1e-50, -1e-50,
                 0.1, -0.1, 16777217.0, 2.0 / 3.0, 0.0, -0.0, 123456.789, -7.000000476837158};
  int32_t iv[] = {16777217, -16777217, 16777219, 2147483647, -2147483647 - 1, 33554435, 7, -9,
                  1, 0, -1, 100000001, -100000001, 1 << 30, (1 << 24) + 3, 999999999};
  std::vector<uint64_t> a, b;
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(dbits(dv[l % 16] * (l >= 16 ? 3.0 : 1.0)));
    b.push_back(uint64_t(int64_t(iv[l % 16] / (l >= 16 ? 3 : 1))));
  }
  const char* modes[] = {"rn", "rz", "rm", "rp"};
  int fe[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int m = 0; m < 4; ++m) {
    auto fd = run_lanes(fmt::format("cvt.{}.f32.f64 %f1, %da;\n mov.b32 %r1, %f1;\n cvt.u64.u32 %o, %r1;", modes[m]), a);
    auto fi = run_lanes(fmt::format("cvt.{}.f32.s32 %f1, %a;\n mov.b32 %r1, %f1;\n cvt.u64.u32 %o, %r1;", modes[m]), b);
    for (unsigned l = 0; l < 32; ++l) {
      double v;
      std::memcpy(&v, &a[l], 8);
      INFO(modes[m] << " lane " << l << " value " << v << " int " << int32_t(b[l]));
      CHECK(uint32_t(fd[l]) == fbits(to_f32(v, fe[m])));
      CHECK(uint32_t(fi[l]) == fbits(i_to_f32(int32_t(b[l]), fe[m])));
    }
  }
}

TEST_CASE("PTX cvt integer narrowing, widening and saturation, float .sat", "[ptx][inst]") {
  int64_t vals[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536, INT32_MAX, INT32_MIN};
  std::vector<uint64_t> a, f;
  float fv[] = {-0.5f, 0.25f, 1.5f, kNaN, -kInf, kInf, 1.0f, 0.0f, -0.0f, 0.999f, 2.0f, -1e-30f, 1e-30f, 0.5f, 3.f, -3.f};
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(uint64_t(vals[l % 16] * (l >= 16 ? 1000003 : 1)));
    f.push_back(fbits(fv[l % 16]));
  }
  auto s8 = run_lanes("cvt.s8.s32 %r1, %a;\n cvt.u64.u32 %o, %r1;", a);
  auto sat_s8 = run_lanes("cvt.sat.s8.s32 %r1, %a;\n cvt.u64.u32 %o, %r1;", a);
  auto sat_u8 = run_lanes("cvt.sat.u8.s32 %r1, %a;\n cvt.u64.u32 %o, %r1;", a);
  auto u16 = run_lanes("cvt.u16.u32 %h1, %a;\n cvt.u64.u16 %o, %h1;", a);
  auto sat_s16 = run_lanes("cvt.sat.s16.s64 %h1, %ra;\n cvt.s64.s16 %o, %h1;", a);
  auto sat_s32 = run_lanes("cvt.sat.s32.s64 %r1, %ra;\n cvt.s64.s32 %o, %r1;", a);
  auto sat_u32 = run_lanes("cvt.sat.u32.s64 %r1, %ra;\n cvt.u64.u32 %o, %r1;", a);
  auto s64 = run_lanes("cvt.s64.s32 %o, %a;", a);
  auto u64 = run_lanes("cvt.u64.u32 %o, %a;", a);
  auto fsat = run_lanes("cvt.sat.f32.f32 %f1, %fa;\n mov.b32 %r1, %f1;\n cvt.u64.u32 %o, %r1;", f);
  auto addsat = run_lanes("add.sat.s32 %r1, %a, 2147483000;\n sub.sat.s32 %r2, %a, 2147483000;\n mov.b64 %o, {%r1, %r2};", a);
  for (unsigned l = 0; l < 32; ++l) {
    int32_t x = int32_t(a[l]);
    int64_t X = int64_t(a[l]);
    INFO("lane " << l << " value " << X);
    CHECK(uint32_t(s8[l]) == uint32_t(int32_t(int8_t(x))));
    CHECK(uint32_t(sat_s8[l]) == uint32_t(std::clamp(x, -128, 127)));
    CHECK(uint32_t(sat_u8[l]) == uint32_t(std::clamp(x, 0, 255)));
    CHECK(u16[l] == uint16_t(x));
    CHECK(int64_t(sat_s16[l]) == std::clamp<int64_t>(X, -32768, 32767));
    CHECK(int64_t(sat_s32[l]) == std::clamp<int64_t>(X, INT32_MIN, INT32_MAX));
    CHECK(sat_u32[l] == uint64_t(std::clamp<int64_t>(X, 0, UINT32_MAX)));
    CHECK(s64[l] == uint64_t(int64_t(x)));
    CHECK(u64[l] == uint64_t(uint32_t(x)));
    float v = bf(f[l]);
    float e = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
    CHECK(bf(fsat[l]) == e);
    if (!(v == 0.0f && std::signbit(v))) CHECK(!std::signbit(bf(fsat[l])));  // NaN -> +0; -0 may stay -0
    int64_t s1 = int64_t(x) + 2147483000, s2 = int64_t(x) - 2147483000;
    CHECK(uint32_t(addsat[l]) == uint32_t(int32_t(std::clamp<int64_t>(s1, INT32_MIN, INT32_MAX))));
    CHECK(uint32_t(addsat[l] >> 32) == uint32_t(int32_t(std::clamp<int64_t>(s2, INT32_MIN, INT32_MAX))));
  }
}

namespace {
const char* kCmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
bool cmp_ref(int k, double x, double y) {
  bool un = std::isnan(x) || std::isnan(y);
  switch (k) {
    case 0: return !un && x == y;
    case 1: return !un && x != y;
    case 2: return !un && x < y;
    case 3: return !un && x <= y;
    case 4: return !un && x > y;
    case 5: return !un && x >= y;
    case 6: return un || x == y;
    case 7: return un || x != y;
    case 8: return un || x < y;
    case 9: return un || x <= y;
    case 10: return un || x > y;
    case 11: return un || x >= y;
    case 12: return !un;
    default: return un;
  }
}
}  // namespace

TEST_CASE("PTX setp/selp with NaN and infinities (f32, f64), min/max with NaN and signed zeros", "[ptx][inst]") {
  float pairs[][2] = {{kNaN, 1}, {1, kNaN}, {kNaN, kNaN}, {kInf, kInf}, {-kInf, kInf}, {kInf, 1e38f}, {0.0f, -0.0f}, {1, 2},
                      {2, 1}, {-1, -1}, {-kInf, -kInf}, {kNaN, kInf}, {-0.0f, 0.0f}, {3.5f, 3.5f}, {-kInf, kNaN}, {1e-45f, 0}};
  std::vector<uint64_t> a, b, da, db;
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(fbits(pairs[l % 16][0]));
    b.push_back(fbits(pairs[l % 16][1]));
    da.push_back(dbits(double(pairs[l % 16][0])));
    db.push_back(dbits(double(pairs[l % 16][1])));
  }
  std::string body32, body64;
  for (int k = 0; k < 14; ++k) {
    body32 += fmt::format("setp.{}.f32 %p1, %fa, %fb;\n selp.u64 %rd1, {}, 0, %p1;\n or.b64 %o, %o, %rd1;\n", kCmps[k], 1ull << k);
    body64 += fmt::format("setp.{}.f64 %p1, %da, %db;\n selp.u64 %rd1, {}, 0, %p1;\n or.b64 %o, %o, %rd1;\n", kCmps[k], 1ull << k);
  }
  // setp with a bool op and the complement predicate: p = (a < b) xor c, q = !(a < b) xor c.
  body32 += "setp.ne.u32 %p3, %lane, 5;\n setp.lt.xor.f32 %p4|%p5, %fa, %fb, %p3;\n selp.u64 %rd1, 0x10000, 0, %p4;\n"
            " or.b64 %o, %o, %rd1;\n selp.u64 %rd1, 0x20000, 0, %p5;\n or.b64 %o, %o, %rd1;\n";
  auto r32 = run_lanes(body32, a, b);
  auto r64 = run_lanes(body64, da, db);
  auto mn = run_lanes("min.f32 %f1, %fa, %fb;\n max.f32 %f2, %fa, %fb;\n mov.b32 %r1, %f1;\n mov.b32 %r2, %f2;\n"
                      " mov.b64 %o, {%r1, %r2};", a, b);
  for (unsigned l = 0; l < 32; ++l) {
    float x = bf(a[l]), y = bf(b[l]);
    uint64_t e = 0;
    for (int k = 0; k < 14; ++k) e |= uint64_t(cmp_ref(k, x, y)) << k;
    bool c = l != 5, lt = cmp_ref(2, x, y);
    uint64_t e32 = e | uint64_t(lt != c) << 16 | uint64_t(!lt != c) << 17;
    INFO("lane " << l << ": " << x << " vs " << y);
    CHECK(r32[l] == e32);
    CHECK(r64[l] == e);
    float emin, emax;
    if (std::isnan(x) && std::isnan(y)) {
      CHECK(std::isnan(bf(mn[l])));
      CHECK(std::isnan(bf(mn[l] >> 32)));
      continue;
    }
    if (std::isnan(x)) emin = emax = y;
    else if (std::isnan(y)) emin = emax = x;
    else if (x == 0 && y == 0) emin = std::signbit(x) ? x : y, emax = std::signbit(x) ? y : x;
    else emin = std::min(x, y), emax = std::max(x, y);
    CHECK(uint32_t(mn[l]) == fbits(emin));
    CHECK(uint32_t(mn[l] >> 32) == fbits(emax));
  }
}

TEST_CASE("PTX float division by zero, rcp/sqrt of special values", "[ptx][inst]") {
  float pairs[][2] = {{1, 0}, {-1, 0}, {0, 0}, {1, -0.0f}, {kInf, kInf}, {-4, 2}, {kNaN, 1}, {7, kInf}};
  std::vector<uint64_t> a, b;
  for (unsigned l = 0; l < 32; ++l) a.push_back(fbits(pairs[l % 8][0])), b.push_back(fbits(pairs[l % 8][1]));
  auto r = run_lanes("div.rn.f32 %f1, %fa, %fb;\n rcp.rn.f32 %f2, %fb;\n mov.b32 %r1, %f1;\n mov.b32 %r2, %f2;\n"
                     " mov.b64 %o, {%r1, %r2};", a, b);
  auto s = run_lanes("sqrt.rn.f32 %f1, %fa;\n mov.b32 %r1, %f1;\n cvt.u64.u32 %o, %r1;", a);
  for (unsigned l = 0; l < 32; ++l) {
    float x = bf(a[l]), y = bf(b[l]);
    INFO("lane " << l << ": " << x << " / " << y);
    volatile float q = x / y, rc = 1.0f / y;
    if (std::isnan(q)) CHECK(std::isnan(bf(r[l])));
    else CHECK(uint32_t(r[l]) == fbits(q));
    CHECK(uint32_t(r[l] >> 32) == fbits(rc));
    float sq = std::sqrt(x);
    if (std::isnan(sq)) CHECK(std::isnan(bf(s[l])));
    else CHECK(uint32_t(s[l]) == fbits(sq));
  }
}

TEST_CASE("PTX mul.wide, mul.hi, mad.wide, mul.lo on 32 and 64 bits", "[ptx][inst]") {
  uint64_t vals[] = {0, 1, ~0ull, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0xFFFFFFFFull, 0x80000000ull, 0x7FFFFFFFull,
                     0x123456789ABCDEF0ull, 0xFEDCBA9876543210ull, 3, 0xDEADBEEFull, 0xFFFFFFFF00000001ull, 12345, 0x100000000ull,
                     0xCAFEBABE12345678ull};
  std::vector<uint64_t> a, b, c;
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(vals[l % 16]);
    b.push_back(vals[(l * 7 + 3) % 16]);
    c.push_back(vals[(l * 5 + 1) % 16]);
  }
  auto ws = run_lanes("mul.wide.s32 %o, %a, %b;", a, b);
  auto wu = run_lanes("mul.wide.u32 %o, %a, %b;", a, b);
  auto h32 = run_lanes("mul.hi.s32 %r1, %a, %b;\n mul.hi.u32 %r2, %a, %b;\n mov.b64 %o, {%r1, %r2};", a, b);
  auto hu64 = run_lanes("mul.hi.u64 %o, %ra, %rb;", a, b);
  auto hs64 = run_lanes("mul.hi.s64 %o, %ra, %rb;", a, b);
  auto lo64 = run_lanes("mul.lo.s64 %o, %ra, %rb;", a, b);
  auto mw = run_lanes("mad.wide.s32 %o, %a, %b, %rc;", a, b, c);
  auto mwu = run_lanes("mad.wide.u32 %o, %a, %b, %rc;", a, b, c);
  auto mh = run_lanes("mad.hi.u64 %o, %ra, %rb, %rc;", a, b, c);
  auto m24 = run_lanes("mul24.lo.s32 %r1, %a, %b;\n mul24.hi.u32 %r2, %a, %b;\n mov.b64 %o, {%r1, %r2};", a, b);
  for (unsigned l = 0; l < 32; ++l) {
    int32_t x = int32_t(a[l]), y = int32_t(b[l]);
    uint32_t ux = uint32_t(a[l]), uy = uint32_t(b[l]);
    INFO("lane " << l << ": " << std::hex << a[l] << " * " << b[l]);
    CHECK(ws[l] == uint64_t(int64_t(x) * int64_t(y)));
    CHECK(wu[l] == uint64_t(ux) * uy);
    CHECK(uint32_t(h32[l]) == uint32_t(uint64_t(int64_t(x) * int64_t(y)) >> 32));
    CHECK(uint32_t(h32[l] >> 32) == uint32_t((uint64_t(ux) * uy) >> 32));
    CHECK(hu64[l] == uint64_t((unsigned __int128)a[l] * b[l] >> 64));
    CHECK(hs64[l] == uint64_t(((__int128)int64_t(a[l]) * int64_t(b[l])) >> 64));
    CHECK(lo64[l] == a[l] * b[l]);
    CHECK(mw[l] == uint64_t(int64_t(x) * int64_t(y)) + c[l]);
    CHECK(mwu[l] == uint64_t(ux) * uy + c[l]);
    CHECK(mh[l] == uint64_t((unsigned __int128)a[l] * b[l] >> 64) + c[l]);
    // mul24: signed/unsigned 24-bit operands, 48-bit product; .lo = bits 31..0, .hi = bits 47..16.
    int64_t p24 = int64_t(int32_t(uint32_t(x) << 8) >> 8) * int64_t(int32_t(uint32_t(y) << 8) >> 8);
    uint64_t u24 = uint64_t(ux & 0xFFFFFF) * (uy & 0xFFFFFF);
    CHECK(uint32_t(m24[l]) == uint32_t(uint64_t(p24)));
    CHECK(uint32_t(m24[l] >> 32) == uint32_t(u24 >> 16));
  }
}

namespace {
uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode) {
  uint8_t src[8];
  for (int i = 0; i < 4; ++i) src[i] = uint8_t(a >> (8 * i)), src[4 + i] = uint8_t(b >> (8 * i));
  uint32_t d = 0;
  if (mode < 0) {
    for (int i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 15;
      uint8_t v = src[sel & 7];
      if (sel & 8) v = (v & 0x80) ? 0xFF : 0;
      d |= uint32_t(v) << (8 * i);
    }
    return d;
  }
  static const int tbl[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e (d.b0..b3)
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  for (int i = 0; i < 4; ++i) d |= uint32_t(src[tbl[mode][c & 3][i]]) << (8 * i);
  return d;
}
}  // namespace

TEST_CASE("PTX prmt: generic selectors with sign replication and the six modes", "[ptx][inst]") {
  std::vector<uint64_t> a, b, c;
  uint32_t sels[] = {0x3210, 0x7654, 0x0123, 0x8888, 0xF0E1, 0x4444, 0x9B3A, 0x1357, 0xC840, 0x0000, 0xFFFF, 0x5D2E};
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(0x80FF7F01u ^ (l * 0x01010101u));
    b.push_back(0x12C456F8u + l * 0x11u);
    c.push_back(sels[l % 12] | (uint32_t(l) << 16));
  }
  auto g = run_lanes("prmt.b32 %r1, %a, %b, %c;\n cvt.u64.u32 %o, %r1;", a, b, c);
  const char* modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  for (int m = 0; m < 6; ++m) {
    auto r = run_lanes(fmt::format("prmt.b32.{} %r1, %a, %b, %c;\n cvt.u64.u32 %o, %r1;", modes[m]), a, b, c);
    for (unsigned l = 0; l < 32; ++l) {
      INFO(modes[m] << " lane " << l << " c " << std::hex << c[l]);
      CHECK(uint32_t(r[l]) == prmt_ref(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), m));
    }
  }
  for (unsigned l = 0; l < 32; ++l) {
    INFO("lane " << l << " c " << std::hex << c[l]);
    CHECK(uint32_t(g[l]) == prmt_ref(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), -1));
  }
}

namespace {
uint64_t bfe_ref(uint64_t a, uint32_t b, uint32_t c, unsigned w, bool sgn) {
  unsigned msb = w - 1, pos = b & 0xFF, len = c & 0xFF;
  auto bit = [&](unsigned i) { return (a >> i) & 1; };
  uint64_t sbit = (!sgn || len == 0) ? 0 : bit(std::min(pos + len - 1, msb));
  uint64_t d = 0;
  for (unsigned i = 0; i <= msb; ++i) d |= ((i < len && pos + i <= msb) ? bit(pos + i) : sbit) << i;
  return d;
}
uint64_t bfi_ref(uint64_t a, uint64_t b, uint32_t c, uint32_t dd, unsigned w) {
  unsigned msb = w - 1, pos = c & 0xFF, len = dd & 0xFF;
  uint64_t f = b;
  for (unsigned i = 0; i < len && pos + i <= msb; ++i) f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
  return w == 32 ? f & 0xFFFFFFFFu : f;
}
}  // namespace

TEST_CASE("PTX bfe/bfi with positions and lengths at and beyond the width", "[ptx][inst]") {
  std::vector<uint64_t> a, b, c;
  uint32_t pos[] = {0, 1, 4, 8, 16, 24, 28, 31, 32, 33, 40, 63, 64, 200, 255, 0x105};
  uint32_t len[] = {0, 1, 3, 8, 16, 32, 33, 4, 1, 8, 24, 64, 65, 0, 255, 0x203};
  for (unsigned l = 0; l < 32; ++l) {
    a.push_back(0xF0E1D2C3B4A59687ull ^ (uint64_t(l) << 59) ^ (l * 0x9E3779B97F4A7C15ull));
    b.push_back(pos[l % 16] + (l >= 16 ? 3 : 0));
    c.push_back(len[(l * 3) % 16]);
  }
  auto u32 = run_lanes("bfe.u32 %r1, %a, %b, %c;\n cvt.u64.u32 %o, %r1;", a, b, c);
  auto s32 = run_lanes("bfe.s32 %r1, %a, %b, %c;\n cvt.u64.u32 %o, %r1;", a, b, c);
  auto u64 = run_lanes("bfe.u64 %o, %ra, %b, %c;", a, b, c);
  auto s64 = run_lanes("bfe.s64 %o, %ra, %b, %c;", a, b, c);
  // bfi: insert low bits of ~a into a at (pos=b, len=c).
  auto i32 = run_lanes("not.b32 %r2, %a;\n bfi.b32 %r1, %r2, %a, %b, %c;\n cvt.u64.u32 %o, %r1;", a, b, c);
  auto i64 = run_lanes("not.b64 %rd2, %ra;\n bfi.b64 %o, %rd2, %ra, %b, %c;", a, b, c);
  for (unsigned l = 0; l < 32; ++l) {
    uint32_t p = uint32_t(b[l]), n = uint32_t(c[l]);
    INFO("lane " << l << " pos " << p << " len " << n);
    CHECK(uint32_t(u32[l]) == uint32_t(bfe_ref(uint32_t(a[l]), p, n, 32, false)));
    CHECK(uint32_t(s32[l]) == uint32_t(bfe_ref(uint32_t(a[l]), p, n, 32, true)));
    CHECK(u64[l] == bfe_ref(a[l], p, n, 64, false));
    CHECK(s64[l] == bfe_ref(a[l], p, n, 64, true));
    CHECK(uint32_t(i32[l]) == uint32_t(bfi_ref(~a[l] & 0xFFFFFFFFu, a[l] & 0xFFFFFFFFu, p, n, 32)));
    CHECK(i64[l] == bfi_ref(~a[l], a[l], p, n, 64));
  }
}

namespace {
// PTX shfl.sync pseudo-code (all lanes active).
std::pair<uint32_t, bool> shfl_ref(const std::vector<uint64_t>& a, unsigned lane, int mode, uint32_t b, uint32_t c) {
  unsigned bval = b & 31, cval = c & 31, seg = (c >> 8) & 31;
  unsigned maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
  int j;
  bool p;
  switch (mode) {
    case 0: j = int(lane) - int(bval), p = j >= int(maxl); break;  // up
    case 1: j = int(lane + bval), p = j <= int(maxl); break;       // down
    case 2: j = int(lane ^ bval), p = j <= int(maxl); break;       // bfly
    default: j = int(minl | (bval & ~seg)), p = j <= int(maxl); break;  // idx
  }
  if (!p) j = int(lane);
  return {uint32_t(a[size_t(j)]), p};
}
}  // namespace

TEST_CASE("PTX shfl.sync up/down/bfly/idx with clamps, segments and the predicate output", "[ptx][inst]") {
  std::vector<uint64_t> a;
  for (unsigned l = 0; l < 32; ++l) a.push_back(1000 + l * 37);
  const char* modes[] = {"up", "down", "bfly", "idx"};
  struct BC { uint32_t b, c; };
  BC cases[] = {{1, 0}, {5, 0}, {1, 0x1f}, {3, 0x1f}, {16, 0x1f}, {31, 0x1f}, {2, 0x181f}, {7, 0x181f}, {1, 0x1c1f},
                {4, 0x1e1f}, {0, 0x1f}, {9, 0x10}, {3, 0x0808}};
  for (int m = 0; m < 4; ++m)
    for (auto bc : cases) {
      auto r = run_lanes(fmt::format("shfl.sync.{}.b32 %r1|%p1, %a, {}, {}, -1;\n selp.u32 %r2, 1, 0, %p1;\n"
                                     " mov.b64 %o, {{%r1, %r2}};", modes[m], bc.b, bc.c), a);
      for (unsigned l = 0; l < 32; ++l) {
        auto [v, p] = shfl_ref(a, l, m, bc.b, bc.c);
        INFO(modes[m] << " b " << bc.b << " c " << std::hex << bc.c << std::dec << " lane " << l);
        CHECK(uint32_t(r[l]) == v);
        CHECK((r[l] >> 32) == uint64_t(p));
      }
    }
  // Register operands for b and c.
  std::vector<uint64_t> bb, cc;
  for (unsigned l = 0; l < 32; ++l) bb.push_back(3), cc.push_back(0x1f);
  auto r = run_lanes("shfl.sync.down.b32 %r1, %a, %b, %c, -1;\n cvt.u64.u32 %o, %r1;", a, bb, cc);
  for (unsigned l = 0; l < 32; ++l) CHECK(uint32_t(r[l]) == shfl_ref(a, l, 1, 3, 0x1f).first);
}

TEST_CASE("PTX vote.sync all/any/uni/ballot, negated operand, in a full and a diverged warp", "[ptx][inst]") {
  for (int pattern = 0; pattern < 4; ++pattern) {
    std::vector<uint64_t> a;
    for (unsigned l = 0; l < 32; ++l)
      a.push_back(pattern == 0 ? 1 : pattern == 1 ? 0 : pattern == 2 ? (l % 3 == 0) : (l < 20 ? 1 : l & 1));
    std::string body = R"(
	setp.ne.u32 %p1, %a, 0;
	vote.sync.all.pred %p2, %p1, -1;
	vote.sync.any.pred %p3, %p1, -1;
	vote.sync.uni.pred %p4, %p1, -1;
	vote.sync.ballot.b32 %r1, %p1, -1;
	vote.sync.ballot.b32 %r2, !%p1, -1;
	selp.u32 %r3, 1, 0, %p2;
	selp.u32 %r4, 2, 0, %p3;
	selp.u32 %r5, 4, 0, %p4;
	or.b32 %r3, %r3, %r4;
	or.b32 %r3, %r3, %r5;
	// diverged: lanes < 20 only, membermask = activemask
	mov.u32 %r6, 0;
	mov.u32 %r7, 0;
	setp.ge.u32 %p5, %lane, 20;
	@%p5 bra SKIP;
	activemask.b32 %r8;
	vote.sync.ballot.b32 %r6, %p1, %r8;
	vote.sync.all.pred %p6, %p1, %r8;
	selp.u32 %r7, 8, 0, %p6;
SKIP:
	or.b32 %r3, %r3, %r7;
	mov.b64 %o, {%r6, %r3};
)";
    auto r = run_lanes(body, a);
    auto rb = run_lanes("setp.ne.u32 %p1, %a, 0;\n vote.sync.ballot.b32 %r1, %p1, -1;\n vote.sync.ballot.b32 %r2, !%p1, -1;\n"
                        " mov.b64 %o, {%r1, %r2};", a);
    uint32_t ballot = 0, ballot20 = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (a[l]) ballot |= 1u << l;
      if (a[l] && l < 20) ballot20 |= 1u << l;
    }
    bool all = ballot == ~0u, any = ballot != 0, uni = all || !any, all20 = ballot20 == 0xFFFFFu;
    for (unsigned l = 0; l < 32; ++l) {
      INFO("pattern " << pattern << " lane " << l);
      CHECK(uint32_t(rb[l]) == ballot);
      CHECK(uint32_t(rb[l] >> 32) == ~ballot);
      uint32_t flags = uint32_t(all) | uint32_t(any) << 1 | uint32_t(uni) << 2 | (l < 20 && all20 ? 8u : 0u);
      CHECK(uint32_t(r[l] >> 32) == flags);
      CHECK(uint32_t(r[l]) == (l < 20 ? ballot20 : 0u));
    }
  }
}
