// Block- and warp-level instructions: bar/barrier (.sync, .red), bar.warp.sync, shfl.sync, vote.sync,
// match.sync, activemask.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

namespace {

void check_barrier_id(Ictx& c, int i, const Arg& a) {
  if (c.in.inst.ops[i].kind == OpKind::Imm && c.in.inst.ops[i].imm > 15) c.die(a.tok, "barrier id must be 0..15");
}

// bar.red.popc.u32 d, a[, b], {!}c; bar.red.{and,or}.pred p, a[, b], {!}c (barrier.red likewise)
void bar_red(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  I.op = Opcode::BarRed;
  bool popc = c.take("popc");
  if (!popc) I.mod.boolop = c.take("and") ? isa::BoolOp::And : c.take("or") ? isa::BoolOp::Or : isa::BoolOp::None;
  if (!popc && I.mod.boolop == isa::BoolOp::None) c.die(c.op, "bar.red needs .popc, .and or .or");
  c.take("aligned");
  I.type = c.type();
  c.done();
  if (popc ? I.type != DType::U32 : I.type != DType::Pred)
    c.die(c.op, "bar.red.popc needs .u32, bar.red.and/.or need .pred");
  c.count(3, 4);
  c.set_ops({c.dst(A[0], I.type, false), c.src(A[1], DType::U32), isa::Operand{}, c.src(A.back(), DType::Pred, true)});
  if (A.size() == 4) I.ops[2] = c.src(A[2], DType::U32);
  check_barrier_id(c, 1, A[1]);
}

}  // namespace

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
  } else if (c.take("red")) {
    bar_red(c);
  } else {
    if (!c.take("sync")) c.die(op, fmt::format("only {}.sync and {}.red are supported", name, name));
    c.take("aligned");
    c.done();
    I.op = Opcode::Bar;
    c.count(1, 2);
    c.set_ops({c.src(A[0], DType::U32), isa::Operand{}});
    if (A.size() == 2) I.ops[1] = c.src(A[1], DType::U32);
    check_barrier_id(c, 0, A[0]);
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

// match.{any,all}.sync.{b32,b64} d[|p], a, membermask (only match.all has the predicate)
void Parser::match(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Match;
  static const std::map<std::string, isa::VoteMode> mm = {{"any", isa::VoteMode::Any}, {"all", isa::VoteMode::All}};
  I.mod.vote = c.take_of(mm, isa::VoteMode::None);
  if (I.mod.vote == isa::VoteMode::None) c.die(op, "match needs .any or .all");
  if (!c.take("sync")) c.die(op, "only match.sync is supported");
  I.type = c.type();
  c.done();
  if (I.type != DType::B32 && I.type != DType::B64) c.die(op, "match needs .b32 or .b64");
  c.count(3, 3);
  if (A[0].k != Arg::Reg) c.die(A[0].tok, "expected a register destination");
  isa::Operand p{};
  Arg d0 = A[0];
  if (d0.pipe >= 0 && I.mod.vote == isa::VoteMode::Any) c.die(A[0].tok, "match.any has no predicate destination");
  if (d0.pipe >= 0) p = {OpKind::Pred, false, uint16_t(d0.pipe), 0};
  d0.pipe = -1;
  c.set_ops({c.dst(d0, DType::B32, false), p, c.src(A[1], I.type), c.src(A[2], DType::B32)});
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
