// Block- and warp-level instructions: bar/barrier, bar.warp.sync, shfl.sync, vote.sync, activemask.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// bar.sync / barrier.sync[.aligned] id[, n]; bar.warp.sync mask
void Parser::bar(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  const std::string& name = c.name;
  if (name == "bar" && c.take("warp")) {
    if (!c.take("sync")) c.die(op, "expected bar.warp.sync");
    c.done();
    I.op = Opcode::BarWarp;
    c.count(1, 1);
    c.set_ops({c.src(A[0], DType::B32)});
  } else {
    if (!c.take("sync")) c.die(op, fmt::format("only {}.sync is supported", name));
    c.take("aligned");
    c.done();
    I.op = Opcode::Bar;
    c.count(1, 2);
    c.set_ops({c.src(A[0], DType::U32), isa::Operand{}});
    if (A.size() == 2) I.ops[1] = c.src(A[1], DType::U32);
    if (I.ops[0].kind == OpKind::Imm && I.ops[0].imm > 15) c.die(A[0].tok, "barrier id must be 0..15");
  }
}

// shfl.sync.mode.b32 d[|p], a, b, c, mask
void Parser::shfl(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Shfl;
  if (!c.take("sync")) c.die(op, "only shfl.sync is supported");
  static const std::map<std::string, isa::ShflMode> sm = {
      {"up", isa::ShflMode::Up}, {"down", isa::ShflMode::Down}, {"bfly", isa::ShflMode::Bfly}, {"idx", isa::ShflMode::Idx}};
  I.mod.shfl = c.take_of(sm, isa::ShflMode::None);
  if (I.mod.shfl == isa::ShflMode::None) c.die(op, "shfl needs a mode");
  I.type = c.type();
  c.done();
  if (I.type != DType::B32) c.die(op, "shfl needs .b32");
  c.count(5, 5);
  if (A[0].k != Arg::Reg) c.die(A[0].tok, "expected a register destination");
  isa::Operand p{};
  Arg d0 = A[0];
  if (d0.pipe >= 0) p = {OpKind::Pred, false, uint16_t(d0.pipe), 0};
  d0.pipe = -1;
  c.set_ops({c.dst(d0, I.type, false), p, c.src(A[1], I.type), c.src(A[2], DType::B32), c.src(A[3], DType::B32),
           c.src(A[4], DType::B32)});
}

// vote.sync.mode.{pred,b32} d, p, mask
void Parser::vote(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Vote;
  if (!c.take("sync")) c.die(op, "only vote.sync is supported");
  static const std::map<std::string, isa::VoteMode> vm = {
      {"all", isa::VoteMode::All}, {"any", isa::VoteMode::Any}, {"uni", isa::VoteMode::Uni}, {"ballot", isa::VoteMode::Ballot}};
  I.mod.vote = c.take_of(vm, isa::VoteMode::None);
  if (I.mod.vote == isa::VoteMode::None) c.die(op, "vote needs a mode");
  I.type = c.type();
  c.done();
  if ((I.mod.vote == isa::VoteMode::Ballot) != (I.type == DType::B32) ||
      (I.mod.vote != isa::VoteMode::Ballot && I.type != DType::Pred))
    c.die(op, "vote.ballot needs .b32, all/any/uni need .pred");
  c.count(3, 3);
  c.set_ops({c.dst(A[0], I.type, false), c.src(A[1], DType::Pred, true), c.src(A[2], DType::B32)});
}

// activemask.b32 d
void Parser::activemask(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Activemask;
  I.type = c.type();
  c.done();
  if (I.type != DType::B32) c.die(op, "activemask needs .b32");
  c.count(1, 1);
  c.set_ops({c.dst(A[0], I.type, false)});
}

}  // namespace gpuvp::ptx::detail
