// Control flow: bra, call, ret, exit, trap, nanosleep. Labels and callees are resolved later
// (Parser::finish_function, Parser::resolve_call).
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// bra[.uni] label
void Parser::bra(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  Instr& in = c.in;
  I.op = Opcode::Bra;
  if (c.take("uni")) I.mod.flags |= isa::kUni;
  c.done();
  c.count(1, 1);
  if (A[0].k != Arg::Sym) c.die(A[0].tok, "expected a label");
  c.set_ops({{OpKind::Target, false, isa::kNoReg, 0}});
  in.refs.push_back({0, RefKind::Label, 0});
  label_uses_.push_back({uint32_t(fn_->body.size()), in.refs.size() - 1, A[0].tok});
}

// call[.uni] (rets), func, (args)
void Parser::call(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  Instr& in = c.in;
  I.op = Opcode::Call;
  if (c.take("uni")) I.mod.flags |= isa::kUni;
  c.done();
  size_t k = 0;
  std::vector<uint32_t> rets, cargs;
  auto params_of = [&](const Arg& l, std::vector<uint32_t>& out) {
    for (auto& e : l.el) {
      Name* nm = e.k == Arg::Sym ? lookup(e.name) : nullptr;
      if (!nm || nm->k != Name::Var || fn_->vars[nm->idx].space != Space::Param)
        c.die(e.tok, "call arguments must be .param variables declared in the calling function");
      out.push_back(nm->idx);
    }
  };
  if (k < A.size() && A[k].k == Arg::List) params_of(A[k++], rets);
  if (k >= A.size() || A[k].k != Arg::Sym) c.die(k < A.size() ? A[k].tok : op, "expected a function name");
  const Tok& ft = A[k++].tok;
  if (lookup(ft.s)) c.die(ft, "indirect calls are not supported");
  if (k < A.size() && A[k].k == Arg::List) params_of(A[k++], cargs);
  if (k != A.size()) c.die(A[k].tok, "unsupported call form (prototypes / indirect calls)");
  c.set_ops({{OpKind::Target, false, isa::kNoReg, 0}});
  in.call_args = cargs;
  in.call_rets = rets;
  call_uses_.push_back({size_t(fn_ - mod_.funcs.data()), fn_->body.size(), ft});
}

// ret[.uni], exit, trap
void Parser::ret_exit_trap(Ictx& c) {
  auto& I = c.in.inst;
  const std::string& name = c.name;
  I.op = name == "ret" ? Opcode::Ret : name == "exit" ? Opcode::Exit : Opcode::Trap;
  if (I.op == Opcode::Ret && c.take("uni")) I.mod.flags |= isa::kUni;
  c.done();
  c.count(0, 0);
}

// nanosleep.u32 t
void Parser::nanosleep(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Nanosleep;
  I.type = c.type();
  c.done();
  if (I.type != DType::U32) c.die(op, "nanosleep needs .u32");
  c.count(1, 1);
  c.set_ops({c.src(A[0], DType::U32)});
}

}  // namespace gpuvp::ptx::detail
