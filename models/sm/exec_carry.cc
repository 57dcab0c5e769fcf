// Extended-precision integer arithmetic: the carry chain (add.cc, addc, sub.cc, subc, mad.cc, madc).
// The carry flag CC.CF is the instruction's last operand, a predicate slot the assembler reserves
// per function (docs/isa-encoding.md, "Carry flag"), so it is per-thread state held with the
// predicates. PTX defines the flag as the carry out of the unsigned addition for every type (.s32
// too); for sub/subc it is the borrow.
#include <cstdint>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {

using isa::Opcode;
using u128 = unsigned __int128;

// The low or high half of a*b as `bits`-bit values (signed: the signed product).
uint64_t product_half(uint64_t a, uint64_t b, unsigned bits, bool is_signed, bool hi) {
  u128 p = is_signed ? u128(__int128(sext(a, bits)) * __int128(sext(b, bits)))
                     : u128(a & wmask(bits)) * u128(b & wmask(bits));
  return uint64_t(hi ? p >> bits : p) & wmask(bits);
}

}  // namespace

void carry_arith(Exec& x) {
  const isa::Inst& in = x.in;
  const bool sub = in.op == Opcode::Sub || in.op == Opcode::Subc;
  const bool mad = in.op == Opcode::Mad || in.op == Opcode::Madc;
  const bool carry_in = in.op == Opcode::Addc || in.op == Opcode::Subc || in.op == Opcode::Madc;
  const int cf = mad ? 4 : 3;  // the carry operand (fixed: a decoded fault may have any nops)
  const unsigned B = isa::bits_of(in.type);
  const uint64_t M = wmask(B);
  if (mad) x.lat() = x.cfg().lat.mul;
  uint64_t sa[32], sb[32], sc[32], sd[32];
  const uint64_t *a = x.src(1, sa), *b = x.src(2, sb), *c = mad ? x.src(3, sc) : nullptr;
  uint32_t cin = carry_in ? x.pred_mask(cf) : 0, cout = 0;
  uint64_t r[32];
  lanes(x.m, [&](unsigned l) {
    u128 k = (cin >> l) & 1;
    u128 p = mad ? product_half(a[l], b[l], B, isa::is_signed(in.type), in.mod.mul == isa::MulMode::Hi) : a[l] & M;
    u128 q = mad ? c[l] & M : b[l] & M;
    // Subtraction keeps the borrow: p - q - k borrows when p < q + k.
    u128 s = sub ? p - q - k : p + q + k;
    r[l] = uint64_t(s) & M;
    bool flag = sub ? p < q + k : (s >> B) != 0;
    cout |= uint32_t(flag) << l;
  });
  uint64_t* d = x.dst(0, sd);  // after the reads: d may be a source
  lanes(x.m, [&](unsigned l) { d[l] = r[l]; });
  if (in.mod.flags & isa::kCc) x.write_pred(cf, x.m, cout);
}

void add_carry_ops(OpTable& t) {
  for (Opcode op : {Opcode::Addc, Opcode::Subc, Opcode::Madc}) t[size_t(op)].fn = carry_arith;
}

}  // namespace gpuvp::sm
