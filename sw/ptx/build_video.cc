// SIMD video instructions: vabsdiff4, the byte-wise absolute difference nvcc emits for
// __vabsdiffu4/__vabsdiffs4 (SIMD merge form) and __vsadu4/__sad-style sums (.add accumulate form).
// Only the default byte selectors (a: .b3210, b: .b7654) and mask (.b3210) are supported: operands
// carrying selectors or a mask are refused.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// vabsdiff4.dtype.atype.btype[.sat] d, a, b, c; vabsdiff4.dtype.atype.btype.add d, a, b, c
void Parser::vabsdiff4(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Vabsdiff4;
  I.type = c.type();
  I.type2 = c.type();
  DType btype = c.type();
  if (c.take("add")) I.mod.atom = isa::AtomOp::Add;
  if (c.take("sat")) I.mod.flags |= isa::kSat;
  c.done();
  for (DType t : {I.type, I.type2, btype})
    if (t != DType::U32 && t != DType::S32) c.die(op, "vabsdiff4 needs .u32 or .s32 types");
  if (btype != I.type2) c.die(op, "vabsdiff4 with different atype and btype is not supported");
  if (I.mod.atom == isa::AtomOp::Add && (I.mod.flags & isa::kSat)) c.die(op, "vabsdiff4: .sat cannot be used with .add");
  c.count(4, 4);
  c.set_ops({c.dst(A[0], I.type), c.src(A[1], I.type2), c.src(A[2], I.type2), c.src(A[3], I.type)});
}

}  // namespace gpuvp::ptx::detail
