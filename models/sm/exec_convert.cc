// Data movement and conversion: mov (with pack/unpack and predicates), cvt, cvta.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {

using isa::DType;
using isa::Opcode;
using isa::Round;

// mov.b64 d, {a, b[, c, d]}: the sources' low bits side by side.
void mov_pack(Exec& x, unsigned B) {
  uint64_t sa[32], sd[32];
  unsigned n = x.in.vec ? x.in.vec : 1, eb = B / n;
  uint64_t* d = x.dst(0, sd);
  uint64_t acc[32] = {};
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t* s = x.src(1 + int(i), sa);
    lanes(x.m, [&](unsigned l) { acc[l] |= (s[l] & wmask(eb)) << (i * eb); });
  }
  uint64_t M = wmask(B);
  lanes(x.m, [&](unsigned l) { d[l] = acc[l] & M; });
}

// mov.b64 {d0, d1[, ..]}, a: the source split into equal parts.
void mov_unpack(Exec& x, unsigned B) {
  uint64_t sa[32], sd[32];
  unsigned n = x.in.vec ? x.in.vec : 1, eb = B / n;
  uint64_t tmp[32];
  const uint64_t* s = x.src(int(n), sa);
  lanes(x.m, [&](unsigned l) { tmp[l] = s[l]; });
  for (unsigned i = 0; i < n; ++i) {
    uint64_t* d = x.dst(int(i), sd);
    lanes(x.m, [&](unsigned l) { d[l] = (tmp[l] >> (i * eb)) & wmask(eb); });
  }
}

void mov(Exec& x) {
  const unsigned B = isa::bits_of(x.in.type);
  if (x.in.mod.flags & isa::kPack) return mov_pack(x, B);
  if (x.in.mod.flags & isa::kUnpack) return mov_unpack(x, B);
  if (x.in.ops[0].kind == isa::OpKind::Pred || x.in.type == DType::Pred) {
    x.write_pred(0, x.m, x.pred_mask(1));
    return;
  }
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  uint64_t mm = B ? wmask(B) : ~uint64_t{0};
  lanes(x.m, [&](unsigned l) { d[l] = a[l] & mm; });
}

// cvta[.to].space d, a: between a generic address and an offset in the shared/local window.
void cvta(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  bool to = x.in.mod.flags & isa::kToSpace;
  isa::Space sp = x.in.mod.space;
  uint64_t base = sp == isa::Space::Shared ? isa::kSharedWindowBase : sp == isa::Space::Local ? isa::kLocalWindowBase : 0;
  const unsigned B = isa::bits_of(x.in.type);
  uint64_t mm = B ? wmask(B) : ~uint64_t{0};
  lanes(x.m, [&](unsigned l) { d[l] = (to ? a[l] - base : a[l] + base) & mm; });
}

// Integer -> integer: extend by the source type, truncate (or saturate) to the destination.
void cvt_int_int(Exec& x, const uint64_t* a, uint64_t* d, DType dt, DType st) {
  unsigned db = isa::bits_of(dt), sbits = isa::bits_of(st);
  bool sat = x.in.mod.flags & isa::kSat;
  bool ss = isa::is_signed(st), ds = isa::is_signed(dt);
  lanes(x.m, [&](unsigned l) {
    uint64_t v = ss ? uint64_t(sext(a[l], sbits)) : (a[l] & wmask(sbits));
    if (sat) {
      if (ds) {
        int64_t lo = db >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (db - 1));
        int64_t hi = db >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (db - 1)) - 1;
        if (ss) v = uint64_t(std::clamp(int64_t(v), lo, hi));
        else v = v > uint64_t(hi) ? uint64_t(hi) : v;
      } else {
        uint64_t hi = wmask(db);
        if (ss && int64_t(v) < 0) v = 0;
        else if (v > hi) v = hi;
      }
    }
    // Sub-word signed results are kept sign-extended (like ld).
    d[l] = (ds && db < 32) ? uint64_t(sext(v, db)) : v & wmask(db);
  });
}

// A float source lane as a double (f32 .ftz flushes a subnormal).
double read_float(DType st, bool fz, uint64_t v) {
  double f = fval(st, v);
  if (fz && st == DType::F32) f = ftz(float(f));
  return f;
}

// Float -> integer: saturating, NaN -> 0; default rounding .rzi.
void cvt_float_int(Exec& x, const uint64_t* a, uint64_t* d, DType dt, DType st) {
  unsigned db = isa::bits_of(dt);
  bool fz = x.in.mod.flags & isa::kFtz, ds = isa::is_signed(dt);
  Round r = x.in.mod.round;
  lanes(x.m, [&](unsigned l) {
    uint64_t v = f2i(read_float(st, fz, a[l]), r, dt);
    d[l] = (ds && db < 32) ? uint64_t(sext(v, db)) : v;
  });
}

// A value rounded to the float destination type (the RoundScope around the loop applies the mode).
uint64_t to_float(double v, DType dt, Round r, bool sat, bool fz) {
  if (sat) v = sat01(v);
  if (dt == DType::F64) return b64(v);
  if (dt == DType::F16) return to_half(v, r);
  float f = float(v);
  if (fz) f = ftz(f);
  if (sat) f = sat01(f);
  return b32(f);
}

// Float -> float, with the integer roundings (.rni/.rzi/.rmi/.rpi) applied in the source type.
void cvt_float_float(Exec& x, const uint64_t* a, uint64_t* d, DType dt, DType st) {
  bool sat = x.in.mod.flags & isa::kSat, fz = x.in.mod.flags & isa::kFtz;
  Round r = x.in.mod.round;
  bool int_round = r == Round::Rni || r == Round::Rzi || r == Round::Rmi || r == Round::Rpi;
  RoundScope rs(int_round ? Round::None : r);
  lanes(x.m, [&](unsigned l) {
    double v = read_float(st, fz, a[l]);
    if (int_round)
      v = r == Round::Rni ? std::nearbyint(v) : r == Round::Rzi ? std::trunc(v) : r == Round::Rmi ? std::floor(v) : std::ceil(v);
    d[l] = to_float(v, dt, r, sat, fz);
  });
}

// Integer -> float: one rounding from the exact integer.
void cvt_int_float(Exec& x, const uint64_t* a, uint64_t* d, DType dt, DType st) {
  unsigned sbits = isa::bits_of(st);
  bool sat = x.in.mod.flags & isa::kSat, ss = isa::is_signed(st);
  Round r = x.in.mod.round;
  RoundScope rs(r);
  lanes(x.m, [&](unsigned l) {
    uint64_t v = a[l] & wmask(sbits);
    if (dt == DType::F64) {
      d[l] = b64(ss ? double(sext(v, sbits)) : double(v));
    } else if (dt == DType::F16) {
      // Integers that fit a double exactly (all but > 2^53) round once.
      d[l] = to_half(ss ? double(sext(v, sbits)) : double(v), r);
    } else {
      float f = ss ? float(sext(v, sbits)) : float(v);
      d[l] = b32(sat ? sat01(f) : f);
    }
  });
}

// cvt.rnd.dtype.atype d, a (type = dtype, type2 = atype).
void cvt(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  DType dt = x.in.type, st = x.in.type2 == DType::None ? x.in.type : x.in.type2;
  bool df = isa::is_float(dt), sf = isa::is_float(st);
  if (!df && !sf) cvt_int_int(x, a, d, dt, st);
  else if (!df) cvt_float_int(x, a, d, dt, st);
  else if (sf) cvt_float_float(x, a, d, dt, st);
  else cvt_int_float(x, a, d, dt, st);
}

}  // namespace

void add_convert_ops(OpTable& t) {
  t[size_t(Opcode::Mov)].fn = mov;
  t[size_t(Opcode::Cvt)].fn = cvt;
  t[size_t(Opcode::Cvta)].fn = cvta;
}

}  // namespace gpuvp::sm
