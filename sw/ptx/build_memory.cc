// Memory instructions: ld, st, atom, red, membar/fence, and memory operands [...] with their
// symbol references.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// A memory operand [...] of an instruction whose state space is already known: a symbol base
// becomes a Ref (operand opi) the assembler resolves; checks the symbol's space and the address form.
isa::Operand Parser::mem(Ictx& c, const Arg& a, int opi) {
  auto& I = c.in.inst;
  Instr& in = c.in;
  if (a.k != Arg::Mem) c.die(a.tok, "expected a memory operand [...]");
  isa::Operand o{OpKind::Mem, false, a.base_reg ? uint16_t(a.idx) : isa::kNoReg, a.i};
  if (!a.name.empty()) {
    Space sp;
    Ref r;
    r.op = opi;
    Name* nm = lookup(a.name);
    if (nm && nm->k == Name::Var) {
      r.kind = RefKind::FuncVar;
      r.index = nm->idx;
      sp = fn_->vars[nm->idx].space;
    } else if (nm && (nm->k == Name::Param || nm->k == Name::Ret)) {
      r.kind = nm->k == Name::Param ? RefKind::Param : RefKind::Ret;
      r.index = nm->idx;
      sp = Space::Param;
    } else if (int mv = module_var(a.name); mv >= 0) {
      r.kind = RefKind::ModuleVar;
      r.index = uint32_t(mv);
      sp = mod_.vars[size_t(mv)].space;
    } else {
      c.die(a.tok, fmt::format("unknown symbol '{}'", a.name));
    }
    bool ok = sp == I.mod.space ||
              (I.mod.space == Space::Generic && (sp == Space::Global || sp == Space::Shared || sp == Space::Local));
    if (!ok) c.die(a.tok, fmt::format("symbol '{}' is not in the instruction's state space", a.name));
    in.refs.push_back(r);
  } else if (I.mod.space == Space::Param && !a.base_reg) {
    c.die(a.tok, "absolute .param address");
  }
  if (I.mod.space == Space::Param && a.base_reg) c.die(a.tok, "register-based .param addressing is not supported");
  // 32-bit addresses only reach the small per-block/per-thread spaces (nvcc uses them for .shared).
  if (a.base_reg && bits_of(fn_->regs[a.idx].type) < 64 && I.mod.space != Space::Shared && I.mod.space != Space::Local)
    c.die(a.tok, fmt::format("32-bit address register '{}' needs .shared or .local", fn_->regs[a.idx].name));
  return o;
}

// ld/st[.volatile][.sem.scope][.space][.nc][.hints][.v2/.v4].type
void Parser::ld_st(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  const std::string& name = c.name;
  Instr& in = c.in;
  bool ld = name == "ld";
  I.op = ld ? Opcode::Ld : Opcode::St;
  if (c.take("volatile")) I.mod.flags |= isa::kVolatile;
  c.scope_sem();
  I.mod.space = c.take_of(kSpaces, Space::Generic);
  if (ld && c.take("nc")) I.mod.flags |= isa::kNc;
  // Cache policy hints: no functional effect.
  for (const char* h : {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1::evict_normal", "L1::evict_unchanged",
                        "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B"})
    c.take(h);
  if (c.take("v2")) I.vec = 2;
  else if (c.take("v4")) I.vec = 4;
  I.type = c.type();
  c.done();
  if (I.type == DType::Pred) c.die(op, "ld/st of .pred");
  if ((I.mod.flags & isa::kNc) && I.mod.space != Space::Global) c.die(op, ".nc needs .global");
  if (!ld && I.mod.space == Space::Const) c.die(op, "store to .const");
  if (I.vec * bits_of(I.type) > 128) c.die(op, "vector access wider than 128 bits");
  c.count(2, 2);
  const Arg& data = ld ? A[0] : A[1];
  std::vector<const Arg*> els;
  if (I.vec > 1) {
    if (data.k != Arg::Vec || data.el.size() != I.vec)
      c.die(data.tok, fmt::format("expected a {{...}} vector of {} elements", I.vec));
    for (auto& e : data.el) els.push_back(&e);
  } else {
    if (data.k == Arg::Vec) c.die(data.tok, "vector operand without .v2/.v4");
    els.push_back(&data);
  }
  I.nops = 0;
  if (ld) {
    for (auto* e : els) I.ops[I.nops++] = c.dst(*e, I.type);
    I.ops[I.nops] = mem(c, A[1], I.nops);
    ++I.nops;
  } else {
    I.ops[I.nops++] = mem(c, A[0], 0);
    for (auto* e : els) I.ops[I.nops++] = c.src(*e, I.type);
  }
  if (!ld && I.mod.space == Space::Param && fn_->entry) {
    for (auto& r : in.refs)
      if (r.kind == RefKind::Param) c.die(A[0].tok, "store to a kernel parameter");
  }
}

// atom/red[.sem.scope][.space].op.type
void Parser::atom_red(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  const std::string& name = c.name;
  bool atom = name == "atom";
  I.op = atom ? Opcode::Atom : Opcode::Red;
  c.scope_sem();
  I.mod.space = c.take_of(kSpaces, Space::Generic);
  static const std::map<std::string, isa::AtomOp> am = {
      {"add", isa::AtomOp::Add},   {"min", isa::AtomOp::Min}, {"max", isa::AtomOp::Max},
      {"and", isa::AtomOp::And},   {"or", isa::AtomOp::Or},   {"xor", isa::AtomOp::Xor},
      {"exch", isa::AtomOp::Exch}, {"cas", isa::AtomOp::Cas}, {"inc", isa::AtomOp::Inc},
      {"dec", isa::AtomOp::Dec}};
  I.mod.atom = c.take_of(am, isa::AtomOp::None);
  if (I.mod.atom == isa::AtomOp::None) c.die(op, fmt::format("{} needs an operation", name));
  I.type = c.type();
  c.done();
  if (I.mod.space != Space::Generic && I.mod.space != Space::Global && I.mod.space != Space::Shared)
    c.die(op, fmt::format("{} supports .global, .shared and generic addresses only", name));
  char cls = type_class(I.type);
  unsigned b = bits_of(I.type);
  bool ok = false;
  switch (I.mod.atom) {
    case isa::AtomOp::Add: ok = (cls == 'u' || cls == 's' || cls == 'f') && b >= 32 && I.type != DType::S64; break;
    case isa::AtomOp::Min: case isa::AtomOp::Max: ok = (cls == 'u' || cls == 's') && b >= 32; break;
    case isa::AtomOp::And: case isa::AtomOp::Or: case isa::AtomOp::Xor: ok = cls == 'b' && b >= 32; break;
    case isa::AtomOp::Exch: case isa::AtomOp::Cas: ok = cls == 'b' && b >= 32; break;
    case isa::AtomOp::Inc: case isa::AtomOp::Dec: ok = I.type == DType::U32; break;
    default: break;
  }
  if (!ok) c.die(op, fmt::format("{}.{} does not support .{}", name, c.mods[0], type_name(I.type)));
  size_t n = (atom ? 3 : 2) + (I.mod.atom == isa::AtomOp::Cas ? 1 : 0);
  if (!atom && I.mod.atom == isa::AtomOp::Cas) c.die(op, "red.cas does not exist");
  c.count(n, n);
  if (atom) {
    c.set_ops({c.dst(A[0], I.type), isa::Operand{}, c.src(A[2], I.type)});
    I.ops[1] = mem(c, A[1], 1);
    if (n == 4) I.ops[I.nops++] = c.src(A[3], I.type);
  } else {
    c.set_ops({isa::Operand{}, c.src(A[1], I.type)});
    I.ops[0] = mem(c, A[0], 0);
  }
}

// membar.level / fence.{sc,acq_rel}.scope
void Parser::membar(Ictx& c) {
  auto& I = c.in.inst;
  const Tok& op = c.op;
  const std::string& name = c.name;
  I.op = Opcode::Membar;
  if (name == "membar") {
    static const std::map<std::string, isa::MemLevel> lm = {
        {"cta", isa::MemLevel::Cta}, {"gl", isa::MemLevel::Gl}, {"sys", isa::MemLevel::Sys}};
    I.mod.level = c.take_of(lm, isa::MemLevel::None);
  } else {
    if (!c.take("sc") && !c.take("acq_rel")) c.die(op, "fence needs .sc or .acq_rel");
    I.mod.level = c.take_of(kScopes, isa::MemLevel::None);
  }
  if (I.mod.level == isa::MemLevel::None) c.die(op, fmt::format("{} needs a scope", name));
  c.done();
  c.count(0, 0);
}

}  // namespace gpuvp::ptx::detail
