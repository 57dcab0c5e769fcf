#pragma once
// Numeric semantics of the SIMT core, free of any core state (testable alone): lane iteration, bit
// casts, sign extension, IEEE half conversion, directed rounding, the float lane loops (fl1/fl2/fl3),
// PTX min/max, comparisons, prmt, lop3 and float -> integer conversion. docs/sm.md lists the choices.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "sw/isa/isa.h"

namespace gpuvp::sm {

// Calls f(lane) for every set bit of m, lowest lane first. A full warp (the common case) runs a
// plain counted loop: no bit scan per lane, and one the compiler can unroll or vectorise.
template <class F>
inline void lanes(uint32_t m, F&& f) {
  if (m == ~uint32_t{0}) {
    for (unsigned l = 0; l < 32; ++l) f(l);
    return;
  }
  while (m) {
    unsigned l = unsigned(__builtin_ctz(m));
    m &= m - 1;
    f(l);
  }
}
// Mask of the low `bits` bits (all 64 for bits >= 64).
inline uint64_t wmask(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1); }
// Sign-extends the low `bits` bits of v (bits 0 or >= 64: v unchanged).
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64 || bits == 0) return int64_t(v);
  unsigned s = 64 - bits;
  return int64_t(v << s) >> s;
}
// Bit casts between register slots and floats.
inline float f32(uint64_t v) {
  uint32_t u = uint32_t(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t b32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double f64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline uint64_t b64(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
// Flush a subnormal to zero of the same sign; clamp to [0, 1] with NaN -> 0 (.sat).
inline float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline float sat01(float x) { return std::isnan(x) ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline double sat01(double x) { return std::isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

// IEEE half <-> float. to_half rounds a double once with the requested mode (NaN -> 0x7FFF).
float half_to_float(uint16_t h);
uint16_t to_half(double x, isa::Round r);

// Directed rounding for one instruction: the mode is set once around the lane loop; the compiler
// barrier keeps the arithmetic inside.
struct RoundScope {
  int old = -1;
  explicit RoundScope(isa::Round r) {
    int m = -1;
    switch (r) {
      case isa::Round::Rz: m = FE_TOWARDZERO; break;
      case isa::Round::Rm: m = FE_DOWNWARD; break;
      case isa::Round::Rp: m = FE_UPWARD; break;
      default: break;
    }
    if (m >= 0) {
      old = std::fegetround();
      std::fesetround(m);
      asm volatile("" ::: "memory");
    }
  }
  ~RoundScope() {
    if (old >= 0) {
      asm volatile("" ::: "memory");
      std::fesetround(old);
    }
  }
  RoundScope(const RoundScope&) = delete;
  RoundScope& operator=(const RoundScope&) = delete;
};

// Float lane loops over the instruction's type: F64 as double, F16 via float, otherwise F32 (with
// .ftz/.sat). `op` is a generic lambda used for both float and double.
template <class Op>
void fl1(const isa::Inst& in, uint32_t m, const uint64_t* a, uint64_t* d, Op op) {
  bool fz = in.mod.flags & isa::kFtz, st = in.mod.flags & isa::kSat;
  RoundScope rs(in.mod.round);
  if (in.type == isa::DType::F64) {
    lanes(m, [&](unsigned l) {
      double r = op(f64(a[l]));
      d[l] = b64(st ? sat01(r) : r);
    });
  } else if (in.type == isa::DType::F16) {
    lanes(m, [&](unsigned l) { d[l] = to_half(op(half_to_float(uint16_t(a[l]))), isa::Round::Rn); });
  } else {
    lanes(m, [&](unsigned l) {
      float x = f32(a[l]);
      if (fz) x = ftz(x);
      float r = op(x);
      if (fz) r = ftz(r);
      d[l] = b32(st ? sat01(r) : r);
    });
  }
}
template <class Op>
void fl2(const isa::Inst& in, uint32_t m, const uint64_t* a, const uint64_t* b, uint64_t* d, Op op) {
  bool fz = in.mod.flags & isa::kFtz, st = in.mod.flags & isa::kSat;
  RoundScope rs(in.mod.round);
  if (in.type == isa::DType::F64) {
    lanes(m, [&](unsigned l) {
      double r = op(f64(a[l]), f64(b[l]));
      d[l] = b64(st ? sat01(r) : r);
    });
  } else if (in.type == isa::DType::F16) {
    lanes(m, [&](unsigned l) {
      float r = op(half_to_float(uint16_t(a[l])), half_to_float(uint16_t(b[l])));
      d[l] = to_half(st ? sat01(r) : r, isa::Round::Rn);
    });
  } else {
    lanes(m, [&](unsigned l) {
      float x = f32(a[l]), y = f32(b[l]);
      if (fz) x = ftz(x), y = ftz(y);
      float r = op(x, y);
      if (fz) r = ftz(r);
      d[l] = b32(st ? sat01(r) : r);
    });
  }
}
template <class Op>
void fl3(const isa::Inst& in, uint32_t m, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d,
         Op op) {
  bool fz = in.mod.flags & isa::kFtz, st = in.mod.flags & isa::kSat;
  RoundScope rs(in.mod.round);
  if (in.type == isa::DType::F64) {
    lanes(m, [&](unsigned l) {
      double r = op(f64(a[l]), f64(b[l]), f64(c[l]));
      d[l] = b64(st ? sat01(r) : r);
    });
  } else {
    lanes(m, [&](unsigned l) {
      float x = f32(a[l]), y = f32(b[l]), z = f32(c[l]);
      if (fz) x = ftz(x), y = ftz(y), z = ftz(z);
      float r = op(x, y, z);
      if (fz) r = ftz(r);
      d[l] = b32(st ? sat01(r) : r);
    });
  }
}

// min/max with PTX NaN rules: a NaN operand is ignored; both NaN gives the canonical NaN; -0 < +0.
template <class T>
T fminmax(T a, T b, bool is_max) {
  if (std::isnan(a) && std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b && a == 0) return (std::signbit(a) != is_max) ? a : b;
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

// Integer comparison of 64-bit values (s: signed for lt/le/gt/ge; lo/ls/hi/hs always unsigned).
inline bool cmp_int(isa::Cmp c, uint64_t a, uint64_t b, bool s) {
  using isa::Cmp;
  int64_t sa = int64_t(a), sb = int64_t(b);
  switch (c) {
    case Cmp::Eq: return a == b;
    case Cmp::Ne: return a != b;
    case Cmp::Lt: return s ? sa < sb : a < b;
    case Cmp::Le: return s ? sa <= sb : a <= b;
    case Cmp::Gt: return s ? sa > sb : a > b;
    case Cmp::Ge: return s ? sa >= sb : a >= b;
    case Cmp::Lo: return a < b;
    case Cmp::Ls: return a <= b;
    case Cmp::Hi: return a > b;
    case Cmp::Hs: return a >= b;
    default: return false;
  }
}
// Float comparison: ordered forms are false with a NaN operand, the unordered (..u) forms true.
inline bool cmp_float(isa::Cmp c, double a, double b) {
  using isa::Cmp;
  bool u = std::isnan(a) || std::isnan(b);
  switch (c) {
    case Cmp::Eq: return !u && a == b;
    case Cmp::Ne: return !u && a != b;
    case Cmp::Lt: return !u && a < b;
    case Cmp::Le: return !u && a <= b;
    case Cmp::Gt: return !u && a > b;
    case Cmp::Ge: return !u && a >= b;
    case Cmp::Equ: return u || a == b;
    case Cmp::Neu: return u || a != b;
    case Cmp::Ltu: return u || a < b;
    case Cmp::Leu: return u || a <= b;
    case Cmp::Gtu: return u || a > b;
    case Cmp::Geu: return u || a >= b;
    case Cmp::Num: return !u;
    case Cmp::Nan: return u;
    default: return false;
  }
}
// A register slot read as a float of type t (F64, F16, otherwise F32), widened to double.
inline double fval(isa::DType t, uint64_t v) {
  if (t == isa::DType::F64) return f64(v);
  if (t == isa::DType::F16) return half_to_float(uint16_t(v));
  return f32(v);
}

// Comparison of the lanes in m as a lane mask, with the type and comparison dispatch hoisted out
// of the lane loop (a comparison fixed at compile time folds into one instruction per lane).
uint32_t fcmp_mask(isa::Cmp c, uint32_t m, const double* x, const double* y);
uint32_t icmp_mask_signed(isa::Cmp c, uint32_t m, const uint64_t* x, const uint64_t* y);
uint32_t icmp_mask_unsigned(isa::Cmp c, uint32_t m, const uint64_t* x, const uint64_t* y);

// prmt (byte permute) of a, b with selector c and mode; lop3 with the 8-bit truth table lut.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, isa::PrmtMode mode);
inline uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, unsigned lut) {
  uint64_t r = 0;
  for (unsigned k = 0; k < 8; ++k)
    if (lut & (1u << k)) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  return r;
}

// Float -> integer of type dt with PTX saturation (always on for float sources) and NaN -> 0.
uint64_t f2i(double v, isa::Round r, isa::DType dt);

}  // namespace gpuvp::sm
