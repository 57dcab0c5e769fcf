// Per-instruction semantics of the SIMT core against host computations (no SystemC simulation).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "sm_test_util.h"

using namespace smtest;

namespace {
// Fills 32 lanes from a list of (a, b, c) cases (cycled) and checks f(a, b, c) per lane.
struct Case {
  uint64_t a, b, c;
};
void check(const Inst& in, const std::vector<Case>& cases, const std::function<uint64_t(uint64_t, uint64_t, uint64_t)>& f) {
  uint64_t a[32], b[32], c[32];
  for (unsigned l = 0; l < 32; ++l) {
    const Case& k = cases[l % cases.size()];
    a[l] = k.a, b[l] = k.b, c[l] = k.c;
  }
  Run r;
  auto res = lanes_op({in}, a, b, c, &r);
  REQUIRE(r.ok);
  for (unsigned l = 0; l < cases.size() && l < 32; ++l) {
    INFO("case " << l << " a=" << std::hex << a[l] << " b=" << b[l] << " c=" << c[l]);
    CHECK(res[l] == f(a[l], b[l], c[l]));
  }
}
const uint64_t kMin32 = 0x80000000u, kM1_32 = 0xFFFFFFFFu;
}  // namespace

TEST_CASE("integer add/sub/mul/mad", "[core][alu]") {
  std::vector<Case> cs{{1, 2, 3}, {kM1_32, 1, 0}, {kMin32, kM1_32, 5}, {0x7FFFFFFF, 0x7FFFFFFF, 1}, {123456, 654321, 7}};
  check(op3(Opcode::Add, DType::S32), cs, [](uint64_t a, uint64_t b, uint64_t) { return (a + b) & kM1_32; });
  check(op3(Opcode::Sub, DType::U32), cs, [](uint64_t a, uint64_t b, uint64_t) { return (a - b) & kM1_32; });
  Inst sat = op3(Opcode::Add, DType::S32);
  sat.mod.flags = kSat;
  check(sat, cs, [](uint64_t a, uint64_t b, uint64_t) {
    int64_t r = int64_t(int32_t(a)) + int32_t(b);
    r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
    return uint64_t(uint32_t(int32_t(r)));
  });
  Inst hi = op3(Opcode::Mul, DType::S32);
  hi.mod.mul = MulMode::Hi;
  check(hi, cs, [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(uint32_t((int64_t(int32_t(a)) * int32_t(b)) >> 32)); });
  hi.type = DType::U32;
  check(hi, cs, [](uint64_t a, uint64_t b, uint64_t) { return ((a & kM1_32) * (b & kM1_32)) >> 32; });
  Inst wide = op3(Opcode::Mul, DType::S32);
  wide.mod.mul = MulMode::Wide;
  check(wide, cs, [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(int64_t(int32_t(a)) * int32_t(b)); });
  Inst lo = op3(Opcode::Mul, DType::U32);
  lo.mod.mul = MulMode::Lo;
  check(lo, cs, [](uint64_t a, uint64_t b, uint64_t) { return (a * b) & kM1_32; });
  // 64-bit high multiply.
  std::vector<Case> c64{{~0ull, ~0ull, 0}, {0x8000000000000000ull, 2, 0}, {0x123456789ABCDEFull, 0xFEDCBA987654321ull, 0}};
  Inst hi64 = op3(Opcode::Mul, DType::U64);
  hi64.mod.mul = MulMode::Hi;
  check(hi64, c64, [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((unsigned __int128)a * b >> 64); });
  hi64.type = DType::S64;
  check(hi64, c64, [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((__int128(int64_t(a)) * int64_t(b)) >> 64); });
  // mad.wide / mad.hi.sat.s32
  Inst madw = op3(Opcode::Mad, DType::U32, 3);
  madw.mod.mul = MulMode::Wide;
  check(madw, cs, [](uint64_t a, uint64_t b, uint64_t c) { return (a & kM1_32) * (b & kM1_32) + c; });
  Inst madhs = op3(Opcode::Mad, DType::S32, 3);
  madhs.mod.mul = MulMode::Hi;
  madhs.mod.flags = kSat;
  std::vector<Case> cs2{{0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}, {kMin32, kMin32, 0x7FFFFFFF}, {5, 7, 1}};
  check(madhs, cs2, [](uint64_t a, uint64_t b, uint64_t c) {
    int64_t h = (int64_t(int32_t(a)) * int32_t(b)) >> 32;
    int64_t r = std::min<int64_t>(std::max<int64_t>(h + int32_t(c), INT32_MIN), INT32_MAX);
    return uint64_t(uint32_t(int32_t(r)));
  });
  // mul24
  Inst m24 = op3(Opcode::Mul24, DType::S32);
  m24.mod.mul = MulMode::Hi;
  std::vector<Case> c24{{0x00FFFFFF, 0x00FFFFFF, 0}, {0x7FFFFF, 0x123456, 0}};
  check(m24, c24, [](uint64_t a, uint64_t b, uint64_t) {
    int64_t x = int64_t(int32_t(uint32_t(a) << 8) >> 8), y = int64_t(int32_t(uint32_t(b) << 8) >> 8);
    return uint64_t(uint32_t(uint64_t(x * y) >> 16));
  });
}

TEST_CASE("integer div/rem incl. division by zero and overflow", "[core][alu]") {
  std::vector<Case> cs{{7, 2, 0}, {uint64_t(uint32_t(-7)), 2, 0}, {5, 0, 0}, {kMin32, kM1_32, 0}, {100, uint64_t(uint32_t(-7)), 0}};
  check(op3(Opcode::Div, DType::S32), cs, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    int32_t x = int32_t(a), y = int32_t(b);
    if (y == 0) return kM1_32;
    if (y == -1) return uint32_t(0u - uint32_t(x));
    return uint32_t(x / y);
  });
  check(op3(Opcode::Rem, DType::S32), cs, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    int32_t x = int32_t(a), y = int32_t(b);
    if (y == 0) return uint32_t(x);
    if (y == -1) return 0;
    return uint32_t(x % y);
  });
  check(op3(Opcode::Div, DType::U64), cs, [](uint64_t a, uint64_t b, uint64_t) { return b ? a / b : ~0ull; });
  check(op3(Opcode::Rem, DType::U32), cs, [](uint64_t a, uint64_t b, uint64_t) { return b ? (a % b) : a; });
}

TEST_CASE("shifts by >= width, bit ops", "[core][alu]") {
  std::vector<Case> cs{{0x80000001, 0, 0}, {0x80000001, 1, 0}, {0x80000001, 31, 0}, {0x80000001, 32, 0}, {0x80000001, 1000, 0},
                       {0x12345678, 4, 0}};
  check(op3(Opcode::Shl, DType::B32), cs, [](uint64_t a, uint64_t b, uint64_t) { return b >= 32 ? 0 : (a << b) & kM1_32; });
  check(op3(Opcode::Shr, DType::U32), cs, [](uint64_t a, uint64_t b, uint64_t) { return b >= 32 ? 0 : (a & kM1_32) >> b; });
  check(op3(Opcode::Shr, DType::S32), cs, [](uint64_t a, uint64_t b, uint64_t) {
    return uint64_t(uint32_t(int32_t(a) >> (b >= 32 ? 31 : b)));
  });
  check(op3(Opcode::Popc, DType::B32, 1), cs, [](uint64_t a, uint64_t, uint64_t) { return uint64_t(__builtin_popcount(uint32_t(a))); });
  std::vector<Case> cz{{0, 0, 0}, {1, 0, 0}, {0x80000000, 0, 0}, {0x00F00000, 0, 0}};
  check(op3(Opcode::Clz, DType::B32, 1), cz, [](uint64_t a, uint64_t, uint64_t) { return a ? uint64_t(__builtin_clz(uint32_t(a))) : 32; });
  check(op3(Opcode::Brev, DType::B32, 1), cs, [](uint64_t a, uint64_t, uint64_t) {
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) r |= ((uint32_t(a) >> i) & 1u) << (31 - i);
    return uint64_t(r);
  });
  std::vector<Case> cf{{0, 0, 0}, {1, 0, 0}, {0x80000000, 0, 0}, {0xFFFFFFFF, 0, 0}, {0xFFFF0000, 0, 0}, {0x00F00000, 0, 0}};
  check(op3(Opcode::Bfind, DType::U32, 1), cf, [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
    return a ? 31 - __builtin_clz(uint32_t(a)) : 0xFFFFFFFFu;
  });
  check(op3(Opcode::Bfind, DType::S32, 1), cf, [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
    uint32_t v = uint32_t(a);
    if (v & 0x80000000u) v = ~v;
    return v ? 31 - __builtin_clz(v) : 0xFFFFFFFFu;
  });
  // bfe (host reference from the PTX pseudo-code)
  std::vector<Case> cb{{0xF0F0A5A5, 4, 8}, {0xF0F0A5A5, 28, 8}, {0xF0F0A5A5, 0, 0}, {0x80000000, 31, 1}, {0x12345678, 40, 4},
                       {0xF0F0A5A5, 0, 255}};
  auto bfe = [](bool sgn) {
    return [sgn](uint64_t a, uint64_t b, uint64_t c) {
      unsigned pos = b & 0xFF, len = c & 0xFF, msb = 31;
      uint64_t sbit = (!sgn || len == 0) ? 0 : (a >> std::min(pos + len - 1, msb)) & 1;
      uint64_t d = 0;
      for (unsigned i = 0; i <= msb; ++i) d |= ((i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit) << i;
      return d;
    };
  };
  check(op3(Opcode::Bfe, DType::U32, 3), cb, bfe(false));
  check(op3(Opcode::Bfe, DType::S32, 3), cb, bfe(true));
  // lop3 with lut 0x96 = a ^ b ^ c; 0xE8 = majority
  Inst l3 = mk(Opcode::Lop3, DType::B32, {R(3), R(0), R(1), R(2), I(0x96)});
  std::vector<Case> cl{{0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA}, {0x12345678, 0x9ABCDEF0, 0x0F0F0F0F}};
  check(l3, cl, [](uint64_t a, uint64_t b, uint64_t c) { return (a ^ b ^ c) & kM1_32; });
  l3.ops[4] = I(0xE8);
  check(l3, cl, [](uint64_t a, uint64_t b, uint64_t c) { return ((a & b) | (a & c) | (b & c)) & kM1_32; });
  // shf
  Inst sl = mk(Opcode::Shf, DType::B32, {R(3), R(0), R(1), R(2)});
  sl.mod.flags = kShfLeft | kShfWrap;
  std::vector<Case> csh{{0x89ABCDEF, 0x01234567, 4}, {0x89ABCDEF, 0x01234567, 36}, {0x89ABCDEF, 0x01234567, 0}};
  check(sl, csh, [](uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = (b << 32) | a;
    return uint64_t(uint32_t((x << (c & 31)) >> 32));
  });
  sl.mod.flags = 0;  // shf.r.clamp
  check(sl, csh, [](uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = (b << 32) | a;
    return uint64_t(uint32_t(x >> std::min<uint64_t>(c, 32)));
  });
}

TEST_CASE("prmt all modes", "[core][alu]") {
  uint64_t a = 0x33221100, b = 0x77665544;
  Inst in = op3(Opcode::Prmt, DType::B32, 3);
  check(in, {{a, b, 0x3210}, {a, b, 0x7654}, {a, b, 0x8888}, {a, b, 0x0123}, {0x000080FF, b, 0x9810}},
        [](uint64_t x, uint64_t y, uint64_t c) {
          uint64_t v = (y << 32) | x;
          uint32_t d = 0;
          for (int i = 0; i < 4; ++i) {
            unsigned s = (c >> (4 * i)) & 0xF;
            uint32_t byte = (v >> (8 * (s & 7))) & 0xFF;
            if (s & 8) byte = (byte & 0x80) ? 0xFF : 0;
            d |= byte << (8 * i);
          }
          return uint64_t(d);
        });
  struct M {
    PrmtMode m;
    uint32_t expect[4];
  };
  // PTX ISA table (d = b3 b2 b1 b0 byte indices of {b, a}).
  std::vector<M> ms{{PrmtMode::F4e, {0x33221100, 0x44332211, 0x55443322, 0x66554433}},
                    {PrmtMode::B4e, {0x55667700, 0x66770011, 0x77001122, 0x00112233}},
                    {PrmtMode::Rc8, {0x00000000, 0x11111111, 0x22222222, 0x33333333}},
                    {PrmtMode::Ecl, {0x33221100, 0x33221111, 0x33222222, 0x33333333}},
                    {PrmtMode::Ecr, {0x00000000, 0x11111100, 0x22221100, 0x33221100}},
                    {PrmtMode::Rc16, {0x11001100, 0x33223322, 0x11001100, 0x33223322}}};
  for (auto& m : ms) {
    in.mod.prmt = m.m;
    check(in, {{a, b, 0}, {a, b, 1}, {a, b, 2}, {a, b, 3}},
          [&](uint64_t, uint64_t, uint64_t c) { return uint64_t(m.expect[c & 3]); });
  }
}

TEST_CASE("setp/selp/slct with float NaN and boolean combine", "[core][alu]") {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Case> cs{{fb(1), fb(2), 0}, {fb(2), fb(1), 0}, {fb(nan), fb(1), 0}, {fb(1), fb(1), 0}, {fb(-0.0f), fb(0.0f), 0}};
  struct C {
    Cmp c;
    std::function<bool(float, float)> f;
  };
  std::vector<C> cmps{{Cmp::Lt, [](float a, float b) { return a < b; }},
                      {Cmp::Ge, [](float a, float b) { return a >= b; }},
                      {Cmp::Ltu, [](float a, float b) { return std::isnan(a) || std::isnan(b) || a < b; }},
                      {Cmp::Neu, [](float a, float b) { return std::isnan(a) || std::isnan(b) || a != b; }},
                      {Cmp::Ne, [](float a, float b) { return !std::isnan(a) && !std::isnan(b) && a != b; }},
                      {Cmp::Nan, [](float a, float b) { return std::isnan(a) || std::isnan(b); }},
                      {Cmp::Eq, [](float a, float b) { return a == b; }}};
  for (auto& c : cmps) {
    Prog dummy;
    std::vector<Inst> ops;
    Inst s = mk(Opcode::Setp, DType::F32, {P(0), P(1), R(0), R(1)});
    s.mod.cmp = c.c;
    ops.push_back(s);
    ops.push_back(mk(Opcode::Selp, DType::U32, {R(3), I(1), I(0), P(0)}));
    ops.push_back(mk(Opcode::Selp, DType::U32, {R(4), I(2), I(0), P(1)}));
    ops.push_back(mk(Opcode::Or, DType::B32, {R(3), R(3), R(4)}));
    uint64_t a[32], b[32];
    for (unsigned l = 0; l < 32; ++l) a[l] = cs[l % cs.size()].a, b[l] = cs[l % cs.size()].b;
    auto res = lanes_op(ops, a, b, nullptr);
    for (unsigned l = 0; l < cs.size(); ++l) {
      bool t = c.f(f32(a[l]), f32(b[l]));
      INFO("cmp " << int(c.c) << " lane " << l);
      CHECK(res[l] == uint64_t((t ? 1 : 0) | (t ? 0 : 2)));
    }
  }
  // setp.lt.and.s32 p, a, b, !q
  std::vector<Inst> ops;
  ops.push_back(mk(Opcode::Setp, DType::S32, {P(2), None(), R(2), I(0)}));
  ops.back().mod.cmp = Cmp::Ne;
  ops.push_back(mk(Opcode::Setp, DType::S32, {P(0), P(1), R(0), R(1), P(2, true)}));
  ops.back().mod.cmp = Cmp::Lt;
  ops.back().mod.boolop = BoolOp::And;
  ops.push_back(mk(Opcode::Selp, DType::U32, {R(3), I(1), I(0), P(0)}));
  ops.push_back(mk(Opcode::Selp, DType::U32, {R(4), I(2), I(0), P(1)}));
  ops.push_back(mk(Opcode::Or, DType::B32, {R(3), R(3), R(4)}));
  uint64_t a[32], b[32], c[32];
  for (unsigned l = 0; l < 32; ++l) a[l] = uint32_t(int32_t(l) - 16), b[l] = 0, c[l] = l & 1;
  auto res = lanes_op(ops, a, b, c);
  for (unsigned l = 0; l < 32; ++l) {
    bool t = int32_t(a[l]) < 0, q = !(c[l] != 0);
    CHECK(res[l] == uint64_t(((t && q) ? 1 : 0) | ((!t && q) ? 2 : 0)));
  }
  // slct.s32.f32 with -0.0 and NaN
  Inst sl = mk(Opcode::Slct, DType::S32, {R(3), R(0), R(1), R(2)});
  sl.type2 = DType::F32;
  check(sl, {{1, 2, fb(-0.0f)}, {1, 2, fb(-1.0f)}, {1, 2, fb(nan)}, {1, 2, fb(3.0f)}},
        [](uint64_t a, uint64_t b, uint64_t c) { return f32(c) >= 0.0f ? a : b; });
}

TEST_CASE("cvt rounding, saturation, NaN", "[core][alu][cvt]") {
  float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<Case> cs{{fb(2.5f), 0, 0},  {fb(-2.5f), 0, 0}, {fb(3.5f), 0, 0},   {fb(-0.7f), 0, 0},
                       {fb(1e20f), 0, 0}, {fb(-1e20f), 0, 0}, {fb(nan), 0, 0},   {fb(inf), 0, 0}};
  struct R2 {
    Round r;
    double (*f)(double);
  };
  for (R2 rr : {R2{Round::Rni, [](double x) { return std::nearbyint(x); }}, R2{Round::Rzi, [](double x) { return std::trunc(x); }},
                R2{Round::Rmi, [](double x) { return std::floor(x); }}, R2{Round::Rpi, [](double x) { return std::ceil(x); }}}) {
    Inst cv = mk(Opcode::Cvt, DType::S32, {R(3), R(0)});
    cv.type2 = DType::F32;
    cv.mod.round = rr.r;
    check(cv, cs, [&](uint64_t a, uint64_t, uint64_t) -> uint64_t {
      float x = f32(a);
      if (std::isnan(x)) return 0;
      double v = rr.f(x);
      if (v >= 2147483647.0) return 0x7FFFFFFF;
      if (v <= -2147483648.0) return 0x80000000;
      return uint32_t(int32_t(v));
    });
    cv.type = DType::U8;  // float -> u8 saturates to 0..255
    check(cv, {{fb(300.f), 0, 0}, {fb(-5.f), 0, 0}, {fb(254.6f), 0, 0}, {fb(nan), 0, 0}}, [&](uint64_t a, uint64_t, uint64_t) -> uint64_t {
      float x = f32(a);
      if (std::isnan(x)) return 0;
      double v = rr.f(x);
      return v <= 0 ? 0 : v >= 255 ? 255 : uint64_t(v);
    });
  }
  // int -> float rounding modes: 2^24 + 1 is not representable in f32.
  for (Round r : {Round::Rn, Round::Rz, Round::Rm, Round::Rp}) {
    Inst cv = mk(Opcode::Cvt, DType::F32, {R(3), R(0)});
    cv.type2 = DType::S32;
    cv.mod.round = r;
    check(cv, {{16777217, 0, 0}, {uint64_t(uint32_t(-16777217)), 0, 0}, {16777219, 0, 0}}, [&](uint64_t a, uint64_t, uint64_t) {
      int32_t v = int32_t(a);
      double d = double(v);
      float lo = std::nextafter(float(d), -INFINITY), hi;
      float n = float(d);  // RN
      if (double(n) == d) return fb(n);
      if (double(n) > d) hi = n, lo = std::nextafter(n, -INFINITY);
      else lo = n, hi = std::nextafter(n, INFINITY);
      switch (r) {
        case Round::Rz: return fb(d > 0 ? lo : hi);
        case Round::Rm: return fb(lo);
        case Round::Rp: return fb(hi);
        default: return fb(n);
      }
    });
  }
  // f64 -> f32 .rz / .rp ; f32 -> f32 .rni ; .sat ; int -> int sat
  Inst d2f = mk(Opcode::Cvt, DType::F32, {R(3), R(0)});
  d2f.type2 = DType::F64;
  d2f.mod.round = Round::Rz;
  check(d2f, {{db(1.0 + 1e-12), 0, 0}, {db(-1.0 - 1e-12), 0, 0}, {db(1e300), 0, 0}},
        [](uint64_t a, uint64_t, uint64_t) {
          double x = f64(a);
          if (x > 0) return fb(x > 3.4e38 ? std::numeric_limits<float>::max() : 1.0f);
          return fb(-1.0f);
        });
  Inst fi = mk(Opcode::Cvt, DType::F32, {R(3), R(0)});
  fi.type2 = DType::F32;
  fi.mod.round = Round::Rni;
  check(fi, {{fb(2.5f), 0, 0}, {fb(-1.5f), 0, 0}}, [](uint64_t a, uint64_t, uint64_t) { return fb(std::nearbyint(f32(a))); });
  fi.mod.round = Round::None;
  fi.mod.flags = kSat;
  check(fi, {{fb(2.5f), 0, 0}, {fb(-1.5f), 0, 0}, {fb(0.25f), 0, 0}, {fb(nan), 0, 0}},
        [](uint64_t a, uint64_t, uint64_t) { float x = f32(a); return fb(std::isnan(x) ? 0.f : std::min(1.f, std::max(0.f, x))); });
  Inst ii = mk(Opcode::Cvt, DType::S8, {R(3), R(0)});
  ii.type2 = DType::S32;
  ii.mod.flags = kSat;
  check(ii, {{300, 0, 0}, {uint64_t(uint32_t(-300)), 0, 0}, {100, 0, 0}}, [](uint64_t a, uint64_t, uint64_t) {
    int32_t v = std::min(127, std::max(-128, int32_t(a)));
    return uint64_t(int64_t(v));  // signed sub-word results are kept sign-extended
  });
  Inst u2 = mk(Opcode::Cvt, DType::U32, {R(3), R(0)});
  u2.type2 = DType::S16;
  check(u2, {{0xFFFF, 0, 0}, {0x7FFF, 0, 0}}, [](uint64_t a, uint64_t, uint64_t) { return uint64_t(uint32_t(int32_t(int16_t(a)))); });
  // f32 <-> f16
  Inst h = mk(Opcode::Cvt, DType::F16, {R(3), R(0)});
  h.type2 = DType::F32;
  h.mod.round = Round::Rn;
  check(h, {{fb(1.0f), 0, 0}, {fb(65504.f), 0, 0}, {fb(1e6f), 0, 0}, {fb(-2.0f), 0, 0}, {fb(1.0f / 3), 0, 0}},
        [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
          float x = f32(a);
          if (x == 1.0f) return 0x3C00;
          if (x == 65504.f) return 0x7BFF;
          if (x == 1e6f) return 0x7C00;
          if (x == -2.0f) return 0xC000;
          return 0x3555;
        });
}

TEST_CASE("float arithmetic, min/max NaN, testp, sfu", "[core][alu][float]") {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<Case> cs{{fb(1.5f), fb(2.25f), fb(3)}, {fb(nan), fb(1), 0}, {fb(-0.0f), fb(0.0f), 0}, {fb(1e30f), fb(1e30f), fb(-1)}};
  check(op3(Opcode::Add, DType::F32), cs, [](uint64_t a, uint64_t b, uint64_t) { return fb(f32(a) + f32(b)); });
  check(op3(Opcode::Mul, DType::F32), cs, [](uint64_t a, uint64_t b, uint64_t) { return fb(f32(a) * f32(b)); });
  check(op3(Opcode::Fma, DType::F32, 3), cs, [](uint64_t a, uint64_t b, uint64_t c) { return fb(std::fma(f32(a), f32(b), f32(c))); });
  check(op3(Opcode::Div, DType::F32), cs, [](uint64_t a, uint64_t b, uint64_t) { return fb(f32(a) / f32(b)); });
  check(op3(Opcode::Min, DType::F32), cs, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    float x = f32(a), y = f32(b);
    if (std::isnan(x)) return fb(y);
    if (x == 0 && y == 0) return fb(-0.0f);
    return fb(std::min(x, y));
  });
  Inst sat = op3(Opcode::Add, DType::F32);
  sat.mod.flags = kSat;
  check(sat, cs, [](uint64_t a, uint64_t b, uint64_t) {
    float r = f32(a) + f32(b);
    return fb(std::isnan(r) ? 0.f : std::min(1.f, std::max(0.f, r)));
  });
  // add.rz: 1 + 2^-30 rounds down to 1; add.rp rounds up
  Inst rz = op3(Opcode::Add, DType::F32);
  rz.mod.round = Round::Rp;
  check(rz, {{fb(1.0f), fb(std::ldexp(1.0f, -30)), 0}}, [](uint64_t, uint64_t, uint64_t) { return fb(std::nextafter(1.0f, 2.0f)); });
  // double
  check(op3(Opcode::Div, DType::F64), {{db(1.0), db(3.0), 0}}, [](uint64_t a, uint64_t b, uint64_t) { return db(f64(a) / f64(b)); });
  check(op3(Opcode::Sqrt, DType::F32, 1), {{fb(2.0f), 0, 0}}, [](uint64_t a, uint64_t, uint64_t) { return fb(std::sqrt(f32(a))); });
  check(op3(Opcode::Ex2, DType::F32, 1), {{fb(0.5f), 0, 0}}, [](uint64_t a, uint64_t, uint64_t) { return fb(float(std::exp2(double(f32(a))))); });
  check(op3(Opcode::Rcp, DType::F32, 1), {{fb(3.0f), 0, 0}}, [](uint64_t a, uint64_t, uint64_t) { return fb(1.0f / f32(a)); });
  check(op3(Opcode::Neg, DType::F32, 1), {{fb(3.0f), 0, 0}}, [](uint64_t, uint64_t, uint64_t) { return fb(-3.0f); });
  check(op3(Opcode::Copysign, DType::F32), {{fb(-1.0f), fb(3.0f), 0}}, [](uint64_t, uint64_t, uint64_t) { return fb(-3.0f); });
  // testp
  std::vector<Inst> ops{mk(Opcode::Testp, DType::F32, {P(0), R(0)}), mk(Opcode::Selp, DType::U32, {R(3), I(1), I(0), P(0)})};
  ops[0].mod.testp = TestpMode::NotANumber;
  uint64_t a[32];
  for (unsigned l = 0; l < 32; ++l) a[l] = l & 1 ? fb(nan) : fb(float(l));
  auto res = lanes_op(ops, a, nullptr, nullptr);
  for (unsigned l = 0; l < 32; ++l) CHECK(res[l] == (l & 1));
}

TEST_CASE("shfl and vote", "[core][warp]") {
  uint64_t a[32];
  for (unsigned l = 0; l < 32; ++l) a[l] = 100 + l;
  auto shfl = [&](ShflMode mode, int64_t b, int64_t c) {
    Inst s = mk(Opcode::Shfl, DType::B32, {R(3), P(0), R(0), I(b), I(c), I(-1)});
    s.mod.shfl = mode;
    return lanes_op({s}, a, nullptr, nullptr);
  };
  auto ref = [](ShflMode mode, int b, int c, int lane) {
    int seg = (c >> 8) & 31, maxl = (lane & seg) | ((c & 31) & ~seg), minl = lane & seg, j;
    bool ok;
    switch (mode) {
      case ShflMode::Up: j = lane - b; ok = j >= maxl; break;
      case ShflMode::Down: j = lane + b; ok = j <= maxl; break;
      case ShflMode::Bfly: j = lane ^ b; ok = j <= maxl; break;
      default: j = minl | (b & ~seg); ok = j <= maxl; break;
    }
    return 100 + (ok ? j : lane);
  };
  struct T {
    ShflMode m;
    int b, c;
  };
  for (T t : {T{ShflMode::Down, 1, 0x1F}, T{ShflMode::Down, 16, 0x1F}, T{ShflMode::Up, 3, 0}, T{ShflMode::Bfly, 5, 0x1F},
              T{ShflMode::Idx, 7, 0x1F}, T{ShflMode::Idx, 3, 0x181F & 0x1F1F}, T{ShflMode::Down, 2, 0x1807},
              T{ShflMode::Up, 1, 0x1800}}) {
    auto res = shfl(t.m, t.b, t.c);
    for (int l = 0; l < 32; ++l) {
      INFO("mode " << int(t.m) << " b " << t.b << " c " << std::hex << t.c << " lane " << std::dec << l);
      CHECK(res[l] == uint64_t(ref(t.m, t.b, t.c, l)));
    }
  }
  // vote.ballot / all / any on p = (a odd)
  std::vector<Inst> ops{mk(Opcode::And, DType::B32, {R(4), R(0), I(1)}), mk(Opcode::Setp, DType::U32, {P(0), None(), R(4), I(0)}),
                        mk(Opcode::Vote, DType::B32, {R(3), P(0), I(-1)})};
  ops[1].mod.cmp = Cmp::Ne;
  ops[2].mod.vote = VoteMode::Ballot;
  auto res = lanes_op(ops, a, nullptr, nullptr);
  for (unsigned l = 0; l < 32; ++l) CHECK(res[l] == 0xAAAAAAAAu);
  ops[2] = mk(Opcode::Vote, DType::Pred, {P(1), P(0), I(-1)});
  ops[2].mod.vote = VoteMode::Any;
  ops.push_back(mk(Opcode::Selp, DType::U32, {R(3), I(1), I(0), P(1)}));
  res = lanes_op(ops, a, nullptr, nullptr);
  CHECK(res[0] == 1);
  ops[2].mod.vote = VoteMode::All;
  res = lanes_op(ops, a, nullptr, nullptr);
  CHECK(res[0] == 0);
}

TEST_CASE("special registers and mov pack/unpack", "[core][alu]") {
  std::vector<Inst> ops{mk(Opcode::Mov, DType::U32, {R(4), S(SReg::LanemaskLt)}), mk(Opcode::Mov, DType::U32, {R(5), I(0xABCD)}),
                        mk(Opcode::Mov, DType::B64, {R(3), R(4), R(5)})};
  ops[2].mod.flags = kPack;
  ops[2].vec = 2;
  auto res = lanes_op(ops, nullptr, nullptr, nullptr);
  for (unsigned l = 0; l < 32; ++l) CHECK(res[l] == ((0xABCDull << 32) | ((1ull << l) - 1)));
  std::vector<Inst> un{mk(Opcode::Mov, DType::B64, {R(4), R(3), R(0)})};
  un[0].mod.flags = kUnpack;
  un[0].vec = 2;
  un.push_back(mk(Opcode::Sub, DType::U32, {R(3), R(3), R(4)}));
  uint64_t a[32];
  for (unsigned l = 0; l < 32; ++l) a[l] = (uint64_t(l) << 32) | (l * 3);
  res = lanes_op(un, a, nullptr, nullptr);
  for (unsigned l = 0; l < 32; ++l) CHECK(res[l] == ((l - l * 3) & 0xFFFFFFFFu));
}
