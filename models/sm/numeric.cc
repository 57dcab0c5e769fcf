#include "models/sm/numeric.h"

namespace gpuvp::sm {

using isa::Cmp;
using isa::Round;

float half_to_float(uint16_t h) {
  unsigned s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0) v = std::ldexp(float(m), -24);
  else if (e == 31) v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(float(m | 1024), int(e) - 25);
  return s ? -v : v;
}

uint16_t to_half(double x, Round r) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return 0x7FFF;
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | 0x7C00;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  int ex = e - 1;
  double q = ex < -14 ? std::ldexp(1.0, -24) : std::ldexp(1.0, ex - 10);
  double n = a / q, ni;
  bool neg = sign != 0;
  switch (r) {
    case Round::Rz: ni = std::trunc(n); break;
    case Round::Rm: ni = neg ? std::ceil(n) : std::floor(n); break;
    case Round::Rp: ni = neg ? std::floor(n) : std::ceil(n); break;
    default: ni = std::nearbyint(n); break;
  }
  double res = ni * q;
  if (res > 65504.0) {
    bool to_inf = r == Round::Rn || r == Round::None || (r == Round::Rp && !neg) || (r == Round::Rm && neg);
    return sign | (to_inf ? 0x7C00 : 0x7BFF);
  }
  if (res == 0) return sign;
  if (res < std::ldexp(1.0, -14)) return sign | uint16_t(res / std::ldexp(1.0, -24));
  std::frexp(res, &e);
  ex = e - 1;
  uint16_t mant = uint16_t((res / std::ldexp(1.0, ex) - 1.0) * 1024.0);
  return sign | uint16_t((ex + 15) << 10) | mant;
}

namespace {
template <Cmp C>
uint32_t fcmp_lanes(uint32_t m, const double* x, const double* y) {
  uint32_t r = 0;
  lanes(m, [&](unsigned l) { r |= uint32_t(cmp_float(C, x[l], y[l])) << l; });
  return r;
}
template <Cmp C, bool S>
uint32_t icmp_lanes(uint32_t m, const uint64_t* x, const uint64_t* y) {
  uint32_t r = 0;
  lanes(m, [&](unsigned l) { r |= uint32_t(cmp_int(C, x[l], y[l], S)) << l; });
  return r;
}
template <bool S>
uint32_t icmp_mask(Cmp c, uint32_t m, const uint64_t* x, const uint64_t* y) {
  switch (c) {
#define GPUVP_ICMP(k) \
  case Cmp::k: return icmp_lanes<Cmp::k, S>(m, x, y);
    GPUVP_ICMP(Eq) GPUVP_ICMP(Ne) GPUVP_ICMP(Lt) GPUVP_ICMP(Le) GPUVP_ICMP(Gt) GPUVP_ICMP(Ge)
    GPUVP_ICMP(Lo) GPUVP_ICMP(Ls) GPUVP_ICMP(Hi) GPUVP_ICMP(Hs)
#undef GPUVP_ICMP
    default: return 0;
  }
}
}  // namespace

uint32_t fcmp_mask(Cmp c, uint32_t m, const double* x, const double* y) {
  switch (c) {
#define GPUVP_FCMP(k) \
  case Cmp::k: return fcmp_lanes<Cmp::k>(m, x, y);
    GPUVP_FCMP(Eq) GPUVP_FCMP(Ne) GPUVP_FCMP(Lt) GPUVP_FCMP(Le) GPUVP_FCMP(Gt) GPUVP_FCMP(Ge)
    GPUVP_FCMP(Equ) GPUVP_FCMP(Neu) GPUVP_FCMP(Ltu) GPUVP_FCMP(Leu) GPUVP_FCMP(Gtu) GPUVP_FCMP(Geu)
    GPUVP_FCMP(Num) GPUVP_FCMP(Nan)
#undef GPUVP_FCMP
    default: return 0;
  }
}
uint32_t icmp_mask_signed(Cmp c, uint32_t m, const uint64_t* x, const uint64_t* y) {
  return icmp_mask<true>(c, m, x, y);
}
uint32_t icmp_mask_unsigned(Cmp c, uint32_t m, const uint64_t* x, const uint64_t* y) {
  return icmp_mask<false>(c, m, x, y);
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, isa::PrmtMode mode) {
  uint64_t x = uint64_t(b) << 32 | a;
  auto byte = [&](unsigned i) { return uint32_t(x >> (8 * (i & 7))) & 0xFF; };
  if (mode == isa::PrmtMode::None) {
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 0xF;
      uint32_t v = byte(sel & 7);
      if (sel & 8) v = (v & 0x80) ? 0xFF : 0;  // sign replicate
      d |= v << (8 * i);
    }
    return d;
  }
  // Selector tables (PTX ISA prmt), entries give source byte for d.b0..d.b3.
  static const uint8_t kT[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  const uint8_t* t = kT[unsigned(mode) - 1][c & 3];
  uint32_t d = 0;
  for (unsigned i = 0; i < 4; ++i) d |= byte(t[i]) << (8 * i);
  return d;
}

uint64_t f2i(double v, Round r, isa::DType dt) {
  if (std::isnan(v)) return 0;
  switch (r) {
    case Round::Rzi: case Round::Rz: case Round::None: v = std::trunc(v); break;
    case Round::Rmi: case Round::Rm: v = std::floor(v); break;
    case Round::Rpi: case Round::Rp: v = std::ceil(v); break;
    default: v = std::nearbyint(v); break;
  }
  unsigned bits = isa::bits_of(dt);
  if (isa::is_signed(dt)) {
    double lo = -std::ldexp(1.0, int(bits) - 1), hi = std::ldexp(1.0, int(bits) - 1);
    if (v <= lo) return uint64_t(int64_t(lo)) & wmask(bits);
    if (v >= hi) return wmask(bits - 1);
    return uint64_t(int64_t(v)) & wmask(bits);
  }
  if (v <= 0) return 0;
  if (v >= std::ldexp(1.0, int(bits))) return wmask(bits);
  return uint64_t(v);
}

}  // namespace gpuvp::sm
