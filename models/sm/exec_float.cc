// Float arithmetic (f16 through float, f32 with .ftz/.sat, f64), special functions, copysign and
// testp. Registered as the float forms of the type-generic opcodes (add, mul, div, abs, min...).
#include <cmath>
#include <cstdint>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {

using isa::DType;
using isa::Opcode;

void add_sub(Exec& x) {
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  if (x.in.op == Opcode::Sub) fl2(x.in, x.m, a, b, d, [](auto p, auto q) { return p - q; });
  else fl2(x.in, x.m, a, b, d, [](auto p, auto q) { return p + q; });
}

void mul_mad(Exec& x) {
  x.lat() = x.in.type == DType::F64 ? x.cfg().lat.fp64 : x.cfg().lat.mul;
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  bool mad = x.in.op == Opcode::Mad;
  const uint64_t* c = mad ? x.src(3, sc) : nullptr;
  uint64_t* d = x.dst(0, sd);
  if (mad) fl3(x.in, x.m, a, b, c, d, [](auto p, auto q, auto r) { return std::fma(p, q, r); });
  else fl2(x.in, x.m, a, b, d, [](auto p, auto q) { return p * q; });
}

void fma_op(Exec& x) {
  x.lat() = x.in.type == DType::F64 ? x.cfg().lat.fp64 : x.cfg().lat.mul;
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  fl3(x.in, x.m, a, b, c, x.dst(0, sd), [](auto p, auto q, auto r) { return std::fma(p, q, r); });
}

// div.rn is IEEE; div.approx/div.full are computed as the correctly rounded quotient too (rem.f
// computes the quotient as well).
void div_rem(Exec& x) {
  x.lat() = x.cfg().lat.sfu;
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  fl2(x.in, x.m, a, b, x.dst(0, sd), [](auto p, auto q) { return p / q; });
}

// abs/neg clear/flip the sign bit (f32 .ftz flushes a subnormal first).
void abs_neg(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const unsigned B = isa::bits_of(x.in.type);
  const uint64_t M = wmask(B);
  bool neg = x.in.op == Opcode::Neg;
  bool fz = (x.in.mod.flags & isa::kFtz) && x.in.type == DType::F32;
  uint64_t sbit = uint64_t{1} << (B - 1);
  lanes(x.m, [&](unsigned l) {
    uint64_t v = a[l] & M;
    if (fz) v = b32(ftz(f32(v)));
    d[l] = neg ? (v ^ sbit) : (v & ~sbit);
  });
}

// min/max: a NaN operand is ignored, both NaN -> canonical NaN (f32: 0x7FFFFFFF), -0 < +0.
void min_max(Exec& x) {
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  bool mx = x.in.op == Opcode::Max;
  bool fz = (x.in.mod.flags & isa::kFtz);
  if (x.in.type == DType::F64)
    lanes(x.m, [&](unsigned l) { d[l] = b64(fminmax(f64(a[l]), f64(b[l]), mx)); });
  else
    lanes(x.m, [&](unsigned l) {
      float p = f32(a[l]), q = f32(b[l]);
      if (fz) p = ftz(p), q = ftz(q);
      float r = fminmax(p, q, mx);
      d[l] = std::isnan(r) ? 0x7FFFFFFFu : b32(r);
    });
}

// Approximate functions: computed in double and rounded once to the result type.
void special(Exec& x) {
  x.lat() = x.cfg().lat.sfu;
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const isa::Inst& in = x.in;
  const uint32_t m = x.m;
  switch (in.op) {
    case Opcode::Sqrt: fl1(in, m, a, d, [](auto v) { return decltype(v)(std::sqrt(v)); }); break;
    case Opcode::Rsqrt: fl1(in, m, a, d, [](auto v) { return decltype(v)(1.0 / std::sqrt(double(v))); }); break;
    case Opcode::Rcp: fl1(in, m, a, d, [](auto v) { return decltype(v)(1) / v; }); break;
    case Opcode::Sin: fl1(in, m, a, d, [](auto v) { return decltype(v)(std::sin(double(v))); }); break;
    case Opcode::Cos: fl1(in, m, a, d, [](auto v) { return decltype(v)(std::cos(double(v))); }); break;
    case Opcode::Ex2: fl1(in, m, a, d, [](auto v) { return decltype(v)(std::exp2(double(v))); }); break;
    case Opcode::Lg2: fl1(in, m, a, d, [](auto v) { return decltype(v)(std::log2(double(v))); }); break;
    default: fl1(in, m, a, d, [](auto v) { return decltype(v)(std::tanh(double(v))); }); break;
  }
}

// copysign d, a, b: b with the sign of a.
void copysign_op(Exec& x) {
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  const unsigned B = isa::bits_of(x.in.type);
  const uint64_t M = wmask(B);
  uint64_t sbit = uint64_t{1} << (B ? B - 1 : 31);
  lanes(x.m, [&](unsigned l) { d[l] = ((b[l] & ~sbit) | (a[l] & sbit)) & M; });
}

bool testp_lane(isa::TestpMode mode, DType t, uint64_t bits) {
  double v = fval(t, bits);
  int cls = t == DType::F64 ? std::fpclassify(v) : std::fpclassify(float(v));
  switch (mode) {
    case isa::TestpMode::Finite: return std::isfinite(v);
    case isa::TestpMode::Infinite: return std::isinf(v);
    case isa::TestpMode::Number: return !std::isnan(v);
    case isa::TestpMode::NotANumber: return std::isnan(v);
    case isa::TestpMode::Normal: return cls == FP_NORMAL;
    case isa::TestpMode::Subnormal: return cls == FP_SUBNORMAL;
    default: return false;
  }
}

void testp(Exec& x) {
  uint64_t sa[32];
  const uint64_t* a = x.src(1, sa);
  uint32_t r = 0;
  lanes(x.m, [&](unsigned l) { r |= uint32_t(testp_lane(x.in.mod.testp, x.in.type, a[l])) << l; });
  x.write_pred(0, x.m, r);
}

}  // namespace

void add_float_ops(OpTable& t) {
  auto generic = [&](Opcode op, Handler h) { t[size_t(op)].fn_float = h; };
  auto set = [&](Opcode op, Handler h) { t[size_t(op)].fn = h; };
  generic(Opcode::Add, add_sub);
  generic(Opcode::Sub, add_sub);
  generic(Opcode::Mul, mul_mad);
  generic(Opcode::Mad, mul_mad);
  generic(Opcode::Div, div_rem);
  generic(Opcode::Rem, div_rem);
  generic(Opcode::Abs, abs_neg);
  generic(Opcode::Neg, abs_neg);
  generic(Opcode::Min, min_max);
  generic(Opcode::Max, min_max);
  set(Opcode::Fma, fma_op);
  for (Opcode op : {Opcode::Sqrt, Opcode::Rsqrt, Opcode::Rcp, Opcode::Sin, Opcode::Cos, Opcode::Ex2, Opcode::Lg2,
                    Opcode::Tanh})
    set(op, special);
  set(Opcode::Copysign, copysign_op);
  set(Opcode::Testp, testp);
}

}  // namespace gpuvp::sm
