// Comparisons and selection: setp, set, selp, slct.
#include <cstdint>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {

using isa::DType;
using isa::Opcode;

// Lanes of m whose comparison a <cmp> b holds, a and b read as type ct.
uint32_t compare(isa::Cmp cmp, DType ct, uint32_t m, const uint64_t* a, const uint64_t* b) {
  if (isa::is_float(ct)) {
    double x[32], y[32];
    if (ct == DType::F64) lanes(m, [&](unsigned l) { x[l] = f64(a[l]), y[l] = f64(b[l]); });
    else if (ct == DType::F16)
      lanes(m, [&](unsigned l) { x[l] = half_to_float(uint16_t(a[l])), y[l] = half_to_float(uint16_t(b[l])); });
    else lanes(m, [&](unsigned l) { x[l] = f32(a[l]), y[l] = f32(b[l]); });
    return fcmp_mask(cmp, m, x, y);
  }
  uint64_t x[32], y[32];
  unsigned cb = isa::bits_of(ct);
  if (isa::is_signed(ct)) {
    lanes(m, [&](unsigned l) { x[l] = uint64_t(sext(a[l], cb)), y[l] = uint64_t(sext(b[l], cb)); });
    return icmp_mask_signed(cmp, m, x, y);
  }
  uint64_t wm = wmask(cb);
  lanes(m, [&](unsigned l) { x[l] = a[l] & wm, y[l] = b[l] & wm; });
  return icmp_mask_unsigned(cmp, m, x, y);
}

// setp.cmp[.bool] p[|q], a, b[, c] and set.cmp[.bool].dtype.stype d, a, b[, c].
void setp_set(Exec& x) {
  const isa::Inst& in = x.in;
  const uint32_t m = x.m;
  bool setp = in.op == Opcode::Setp;
  DType ct = setp ? in.type : (in.type2 == DType::None ? in.type : in.type2);
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t* a = x.src(setp ? 2 : 1, sa);
  const uint64_t* b = x.src(setp ? 3 : 2, sb);
  uint32_t cmask = 0;
  if (in.mod.boolop != isa::BoolOp::None) cmask = x.pred_mask(setp ? 4 : 3);
  // r: lanes whose comparison holds; p/q = boolop(r, c) / boolop(!r, c) lane by lane, as masks.
  uint32_t r = compare(in.mod.cmp, ct, m, a, b);
  uint32_t p, q;
  switch (in.mod.boolop) {
    case isa::BoolOp::And: p = r & cmask, q = ~r & cmask; break;
    case isa::BoolOp::Or: p = r | cmask, q = ~r | cmask; break;
    case isa::BoolOp::Xor: p = r ^ cmask, q = ~r ^ cmask; break;
    default: p = r, q = ~r; break;
  }
  p &= m;
  q &= m;
  if (setp) {
    x.write_pred(0, m, p);
    x.write_pred(1, m, q);
  } else {
    uint64_t* d = x.dst(0, sd);
    uint64_t one = in.type == DType::F32 ? 0x3F800000u : wmask(isa::bits_of(in.type));
    lanes(m, [&](unsigned l) { d[l] = ((p >> l) & 1) ? one : 0; });
  }
}

void selp(Exec& x) {
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint32_t p = x.pred_mask(3);
  uint64_t* d = x.dst(0, sd);
  const unsigned B = isa::bits_of(x.in.type);
  uint64_t mm = B ? wmask(B) : ~uint64_t{0};
  lanes(x.m, [&](unsigned l) { d[l] = (((p >> l) & 1) ? a[l] : b[l]) & mm; });
}

// slct d, a, b, c: a if c >= 0 (c of type type2: s32, or f32 where NaN selects b).
void slct(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  uint64_t* d = x.dst(0, sd);
  bool cf = x.in.type2 == DType::F32;
  bool fz = x.in.mod.flags & isa::kFtz;
  const unsigned B = isa::bits_of(x.in.type);
  uint64_t mm = B ? wmask(B) : ~uint64_t{0};
  lanes(x.m, [&](unsigned l) {
    bool ge;
    if (cf) {
      float v = f32(c[l]);
      if (fz) v = ftz(v);
      ge = v >= 0.0f;  // NaN selects b
    } else {
      ge = sext(c[l], 32) >= 0;
    }
    d[l] = (ge ? a[l] : b[l]) & mm;
  });
}

}  // namespace

void add_compare_ops(OpTable& t) {
  t[size_t(Opcode::Setp)].fn = setp_set;
  t[size_t(Opcode::Set)].fn = setp_set;
  t[size_t(Opcode::Selp)].fn = selp;
  t[size_t(Opcode::Slct)].fn = slct;
}

}  // namespace gpuvp::sm
