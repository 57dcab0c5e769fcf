// Integer arithmetic, logic and bit manipulation. Float forms of the type-generic opcodes (add, mul,
// div, abs, min...) are in exec_float.cc.
#include <algorithm>
#include <cstdint>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {

using isa::DType;
using isa::Opcode;

// Width, signedness and value mask of the instruction's type; norm: a slot read as that type.
struct IntType {
  unsigned B;
  bool S;
  uint64_t M;
  explicit IntType(DType t) : B(isa::bits_of(t)), S(isa::is_signed(t)), M(wmask(B)) {}
  uint64_t norm(uint64_t v) const { return S ? uint64_t(sext(v, B)) : (v & M); }
};

void add_sub(Exec& x) {
  if (x.in.mod.flags & isa::kCc) return carry_arith(x);
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  const uint64_t M = IntType(x.in.type).M;
  const uint32_t m = x.m;
  bool sub = x.in.op == Opcode::Sub;
  if ((x.in.mod.flags & isa::kSat) && x.in.type == DType::S32) {
    lanes(m, [&](unsigned l) {
      int64_t r = sub ? sext(a[l], 32) - sext(b[l], 32) : sext(a[l], 32) + sext(b[l], 32);
      d[l] = uint64_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)) & M;
    });
    return;
  }
  if (sub) lanes(m, [&](unsigned l) { d[l] = (a[l] - b[l]) & M; });
  else lanes(m, [&](unsigned l) { d[l] = (a[l] + b[l]) & M; });
}

// mul.hi / mad.hi (with mad.hi.sat.s32): the high half of the full product.
void mul_hi(Exec& x, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d, bool mad) {
  const IntType T(x.in.type);
  bool sat = mad && (x.in.mod.flags & isa::kSat) && x.in.type == DType::S32;
  lanes(x.m, [&](unsigned l) {
    uint64_t hi;
    if (T.B == 64) {
      hi = T.S ? uint64_t((__int128(int64_t(a[l])) * __int128(int64_t(b[l]))) >> 64)
               : uint64_t((unsigned __int128)(a[l]) * b[l] >> 64);
    } else {
      hi = T.S ? uint64_t(int64_t(T.norm(a[l]) * T.norm(b[l])) >> T.B) : (T.norm(a[l]) * T.norm(b[l])) >> T.B;
    }
    if (sat) {
      int64_t r = sext(hi, 32) + sext(c[l], 32);
      d[l] = uint64_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX)) & T.M;
    } else {
      d[l] = (hi + (mad ? c[l] : 0)) & T.M;
    }
  });
}

void mul_mad(Exec& x) {
  if (x.in.mod.flags & isa::kCc) return carry_arith(x);
  x.lat() = x.cfg().lat.mul;
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  bool mad = x.in.op == Opcode::Mad;
  const uint64_t* c = mad ? x.src(3, sc) : nullptr;
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  isa::MulMode mm = x.in.mod.mul == isa::MulMode::None ? isa::MulMode::Lo : x.in.mod.mul;
  if (mm == isa::MulMode::Wide) {
    uint64_t W = wmask(2 * T.B);
    lanes(x.m, [&](unsigned l) { d[l] = (T.norm(a[l]) * T.norm(b[l]) + (mad ? c[l] : 0)) & W; });
  } else if (mm == isa::MulMode::Lo) {
    lanes(x.m, [&](unsigned l) { d[l] = (a[l] * b[l] + (mad ? c[l] : 0)) & T.M; });
  } else {
    mul_hi(x, a, b, c, d, mad);
  }
}

void mul24_mad24(Exec& x) {
  x.lat() = x.cfg().lat.mul;
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  bool mad = x.in.op == Opcode::Mad24;
  const uint64_t* c = mad ? x.src(3, sc) : nullptr;
  uint64_t* d = x.dst(0, sd);
  bool S = isa::is_signed(x.in.type);
  bool hi = x.in.mod.mul == isa::MulMode::Hi;
  lanes(x.m, [&](unsigned l) {
    int64_t p0 = S ? sext(a[l], 24) : int64_t(a[l] & 0xFFFFFF), p1 = S ? sext(b[l], 24) : int64_t(b[l] & 0xFFFFFF);
    uint64_t p = uint64_t(p0 * p1);
    uint64_t r = hi ? (p >> 16) : p;
    d[l] = (r + (mad ? c[l] : 0)) & 0xFFFFFFFFull;
  });
}

// Division by zero: quotient all ones, remainder = dividend; INT_MIN / -1 wraps (docs/sm.md).
void div_rem(Exec& x) {
  x.lat() = x.cfg().lat.sfu;
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  bool rem = x.in.op == Opcode::Rem;
  lanes(x.m, [&](unsigned l) {
    uint64_t p = T.norm(a[l]), q = T.norm(b[l]);
    uint64_t r;
    if (q == 0) r = rem ? p : ~uint64_t{0};
    else if (T.S) {
      int64_t sp = int64_t(p), sq = int64_t(q);
      if (sq == -1) r = rem ? 0 : uint64_t(0) - p;  // avoids INT_MIN / -1 overflow (wraps)
      else r = uint64_t(rem ? sp % sq : sp / sq);
    } else {
      r = rem ? p % q : p / q;
    }
    d[l] = r & T.M;
  });
}

void abs_neg(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  if (x.in.op == Opcode::Neg) lanes(x.m, [&](unsigned l) { d[l] = (uint64_t(0) - a[l]) & T.M; });
  else lanes(x.m, [&](unsigned l) {
      int64_t v = sext(a[l], T.B);
      d[l] = uint64_t(v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v)) & T.M;
    });
}

void min_max(Exec& x) {
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  bool mx = x.in.op == Opcode::Max;
  lanes(x.m, [&](unsigned l) {
    uint64_t p = T.norm(a[l]), q = T.norm(b[l]);
    bool lt = T.S ? int64_t(p) < int64_t(q) : p < q;
    d[l] = (mx ? (lt ? q : p) : (lt ? p : q)) & T.M;
  });
}

void sad(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  lanes(x.m, [&](unsigned l) {
    uint64_t p = T.norm(a[l]), q = T.norm(b[l]);
    bool lt = T.S ? int64_t(p) < int64_t(q) : p < q;
    d[l] = (c[l] + (lt ? q - p : p - q)) & T.M;
  });
}

// and/or/xor/not/cnot, on predicates (as lane masks) or on registers.
void logic(Exec& x) {
  const isa::Inst& in = x.in;
  const uint32_t m = x.m;
  if (in.type == DType::Pred || in.ops[0].kind == isa::OpKind::Pred) {
    uint32_t a = x.pred_mask(1), b = in.nops > 2 ? x.pred_mask(2) : 0, r;
    switch (in.op) {
      case Opcode::And: r = a & b; break;
      case Opcode::Or: r = a | b; break;
      case Opcode::Xor: r = a ^ b; break;
      default: r = ~a; break;
    }
    x.write_pred(0, m, r);
    return;
  }
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const uint64_t M = IntType(in.type).M;
  switch (in.op) {
    case Opcode::Not: lanes(m, [&](unsigned l) { d[l] = ~a[l] & M; }); return;
    case Opcode::Cnot: lanes(m, [&](unsigned l) { d[l] = (a[l] & M) == 0 ? 1 : 0; }); return;
    default: break;
  }
  const uint64_t* b = x.src(2, sb);
  if (in.op == Opcode::And) lanes(m, [&](unsigned l) { d[l] = a[l] & b[l] & M; });
  else if (in.op == Opcode::Or) lanes(m, [&](unsigned l) { d[l] = (a[l] | b[l]) & M; });
  else lanes(m, [&](unsigned l) { d[l] = (a[l] ^ b[l]) & M; });
}

void lop3_op(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  uint64_t* d = x.dst(0, sd);
  const uint64_t M = IntType(x.in.type).M;
  unsigned lut = unsigned(x.in.ops[4].imm) & 0xFF;
  lanes(x.m, [&](unsigned l) { d[l] = lop3(a[l], b[l], c[l], lut) & M; });
}

// Amounts >= the width give 0 (shl, shr.u/b) or the sign (shr.s).
void shift(Exec& x) {
  uint64_t sa[32], sb[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  const unsigned B = T.B;
  const uint64_t M = T.M;
  if (x.in.op == Opcode::Shl) {
    lanes(x.m, [&](unsigned l) {
      uint32_t s = uint32_t(b[l]);
      d[l] = s >= B ? 0 : (a[l] << s) & M;
    });
  } else if (T.S) {
    lanes(x.m, [&](unsigned l) {
      uint32_t s = uint32_t(b[l]);
      int64_t v = sext(a[l], B);
      d[l] = uint64_t(v >> (s >= B ? B - 1 : s)) & M;
    });
  } else {
    lanes(x.m, [&](unsigned l) {
      uint32_t s = uint32_t(b[l]);
      d[l] = s >= B ? 0 : (a[l] & M) >> s;
    });
  }
}

// shf.l/r[.wrap/.clamp] d, a, b, c: funnel shift of the 64-bit b:a by c.
void shf(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  uint64_t* d = x.dst(0, sd);
  bool left = x.in.mod.flags & isa::kShfLeft, wrap = x.in.mod.flags & isa::kShfWrap;
  lanes(x.m, [&](unsigned l) {
    uint32_t n = uint32_t(c[l]);
    n = wrap ? (n & 31) : std::min(n, 32u);
    uint64_t v = (b[l] & 0xFFFFFFFFull) << 32 | (a[l] & 0xFFFFFFFFull);
    d[l] = left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
  });
}

void popc(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const uint64_t M = IntType(x.in.type).M;
  lanes(x.m, [&](unsigned l) { d[l] = uint64_t(__builtin_popcountll(a[l] & M)); });
}

void clz(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  lanes(x.m, [&](unsigned l) {
    uint64_t v = a[l] & T.M;
    d[l] = v ? uint64_t(__builtin_clzll(v)) - (64 - T.B) : T.B;
  });
}

void brev(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const unsigned B = isa::bits_of(x.in.type);
  lanes(x.m, [&](unsigned l) {
    uint64_t v = a[l], r = 0;
    for (unsigned i = 0; i < B; ++i) r |= ((v >> i) & 1) << (B - 1 - i);
    d[l] = r;
  });
}

// bfind: position of the most significant non-sign bit (.shiftamt: as a left shift), none: ~0u.
void bfind(Exec& x) {
  uint64_t sa[32], sd[32];
  const uint64_t* a = x.src(1, sa);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  bool shamt = x.in.mod.flags & isa::kShiftAmt;
  lanes(x.m, [&](unsigned l) {
    uint64_t v = a[l] & T.M;
    if (T.S && (v >> (T.B - 1)) & 1) v = ~v & T.M;  // signed: first bit differing from the sign
    if (!v) {
      d[l] = 0xFFFFFFFFu;
      return;
    }
    unsigned pos = 63 - unsigned(__builtin_clzll(v));
    d[l] = shamt ? (T.B - 1 - pos) : pos;
  });
}

// bfe d, a, pos, len: extract (signed types: sign-extended from the field's last bit).
void bfe(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  uint64_t* d = x.dst(0, sd);
  const IntType T(x.in.type);
  unsigned msb = T.B - 1;
  lanes(x.m, [&](unsigned l) {
    unsigned pos = unsigned(b[l] & 0xFF), len = unsigned(c[l] & 0xFF);
    uint64_t v = a[l] & T.M;
    uint64_t sbit = 0;
    if (T.S && len) sbit = (v >> std::min(pos + len - 1, msb)) & 1;
    uint64_t r = 0;
    for (unsigned i = 0; i <= msb; ++i) {
      uint64_t bit = (i < len && pos + i <= msb) ? (v >> (pos + i)) & 1 : sbit;
      r |= bit << i;
    }
    d[l] = r & T.M;
  });
}

// bfi f, a, b, c, d: insert a into b at pos c, length d.
void bfi(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  const uint64_t* e = x.src(4, sd);
  uint64_t tmp[32];
  const IntType T(x.in.type);
  unsigned msb = T.B - 1;
  lanes(x.m, [&](unsigned l) {
    unsigned pos = unsigned(c[l] & 0xFF), len = unsigned(e[l] & 0xFF);
    uint64_t r = b[l] & T.M;
    for (unsigned i = 0; i < len && pos + i <= msb; ++i)
      r = (r & ~(uint64_t{1} << (pos + i))) | (((a[l] >> i) & 1) << (pos + i));
    tmp[l] = r;
  });
  uint64_t* d = x.dst(0, sa);
  lanes(x.m, [&](unsigned l) { d[l] = tmp[l]; });
}

void prmt_op(Exec& x) {
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = x.src(3, sc);
  uint64_t* d = x.dst(0, sd);
  isa::PrmtMode mode = x.in.mod.prmt;
  lanes(x.m, [&](unsigned l) { d[l] = prmt(uint32_t(a[l]), uint32_t(b[l]), uint32_t(c[l]), mode); });
}

}  // namespace

void add_int_ops(OpTable& t) {
  auto set = [&](Opcode op, Handler h) { t[size_t(op)].fn = h; };
  set(Opcode::Add, add_sub);
  set(Opcode::Sub, add_sub);
  set(Opcode::Mul, mul_mad);
  set(Opcode::Mad, mul_mad);
  set(Opcode::Mul24, mul24_mad24);
  set(Opcode::Mad24, mul24_mad24);
  set(Opcode::Div, div_rem);
  set(Opcode::Rem, div_rem);
  set(Opcode::Abs, abs_neg);
  set(Opcode::Neg, abs_neg);
  set(Opcode::Min, min_max);
  set(Opcode::Max, min_max);
  set(Opcode::Sad, sad);
  for (Opcode op : {Opcode::And, Opcode::Or, Opcode::Xor, Opcode::Not, Opcode::Cnot}) set(op, logic);
  set(Opcode::Lop3, lop3_op);
  set(Opcode::Shl, shift);
  set(Opcode::Shr, shift);
  set(Opcode::Shf, shf);
  set(Opcode::Popc, popc);
  set(Opcode::Clz, clz);
  set(Opcode::Brev, brev);
  set(Opcode::Bfind, bfind);
  set(Opcode::Bfe, bfe);
  set(Opcode::Bfi, bfi);
  set(Opcode::Prmt, prmt_op);
}

}  // namespace gpuvp::sm
