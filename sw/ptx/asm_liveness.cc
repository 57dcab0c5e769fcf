// Assembler stage: the register-count estimate (KernelInfo::regs_per_thread, for occupancy).
// Max simultaneously-live 32-bit registers in one function (64-bit registers count 2), plus what
// its callees need on top of the values live across each call. An estimate: no coalescing,
// no rematerialisation, predicates not counted. The same dataflow, predicates included, tells a
// recursive function what to save around its recursive calls (asm_saves.cc).
#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;
using isa::OpKind;

std::vector<int> def_ops(const isa::Inst& i) {
  switch (i.op) {
    case Opcode::St: case Opcode::Red: case Opcode::Bar: case Opcode::BarWarp: case Opcode::Membar:
    case Opcode::Bra: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap:
    case Opcode::Nanosleep: case Opcode::Nop:
      return {};
    case Opcode::Ld: {
      std::vector<int> d;
      for (int k = 0; k < i.vec; ++k) d.push_back(k);
      return d;
    }
    case Opcode::Mov:
      if (i.mod.flags & isa::kUnpack) {
        std::vector<int> d;
        for (int k = 0; k < i.vec; ++k) d.push_back(k);
        return d;
      }
      return {0};
    case Opcode::Setp: case Opcode::Shfl: return {0, 1};
    default: return {0};
  }
}

namespace {

// One bit per virtual register, then one per predicate (from bit nr).
using Bits = std::vector<uint64_t>;

// Per instruction of one function: registers and predicates used, defined, live in; control-flow
// successors (index n: past the end).
struct Flow {
  size_t n, nr, W;
  std::vector<Bits> use, def, in;
  std::vector<std::vector<size_t>> succ;
  Flow(size_t n_, size_t nr_, size_t np)
      : n(n_), nr(nr_), W((nr_ + np + 63) / 64), use(n_, Bits(W)), def(n_, Bits(W)), in(n_ + 1, Bits(W)), succ(n_) {}
  bool has(const Bits& b, size_t i) const { return b[i / 64] >> (i % 64) & 1; }
};

void set_bit(Bits& b, size_t i) { b[i / 64] |= 1ull << (i % 64); }

// Bit of a register or predicate operand (-1: neither).
int64_t bit_of(const Flow& fl, const isa::Operand& op) {
  if (op.kind == OpKind::Reg || (op.kind == OpKind::Mem && op.reg != isa::kNoReg)) return op.reg;
  if (op.kind == OpKind::Pred) return int64_t(fl.nr + op.reg);
  return -1;
}

void use_def(const Function& f, Flow& fl) {
  for (size_t k = 0; k < fl.n; ++k) {
    const auto& I = f.body[k].inst;
    auto d = def_ops(I);
    if (I.guard >= 0) set_bit(fl.use[k], fl.nr + size_t(I.guard));
    for (int o = 0; o < I.nops; ++o) {
      const int64_t b = bit_of(fl, I.ops[o]);
      if (b < 0) continue;
      bool is_def = I.ops[o].kind != OpKind::Mem && std::find(d.begin(), d.end(), o) != d.end();
      if (is_def) set_bit(fl.def[k], size_t(b));
      if (!is_def || I.guard >= 0) set_bit(fl.use[k], size_t(b));  // a guarded def does not kill
    }
    bool cond = I.guard >= 0;
    if (I.op == Opcode::Bra) {
      for (auto& r : f.body[k].refs)
        if (r.kind == RefKind::Label) fl.succ[k].push_back(r.index);
      if (cond) fl.succ[k].push_back(k + 1);
    } else if (I.op == Opcode::Ret || I.op == Opcode::Exit || I.op == Opcode::Trap) {
      if (cond) fl.succ[k].push_back(k + 1);
    } else {
      fl.succ[k].push_back(k + 1);
    }
  }
}

void solve(Flow& fl) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = fl.n; k-- > 0;) {
      for (size_t w = 0; w < fl.W; ++w) {
        uint64_t out = 0;
        for (size_t s : fl.succ[k]) out |= fl.in[std::min(s, fl.n)][w];
        uint64_t v = fl.use[k][w] | (out & ~fl.def[k][w]);
        if (v != fl.in[k][w]) fl.in[k][w] = v, changed = true;
      }
    }
  }
}

// The solved dataflow of function f.
Flow flow_of(const Function& f) {
  Flow fl(f.body.size(), f.regs.size(), f.preds.size());
  use_def(f, fl);
  solve(fl);
  return fl;
}

}  // namespace

std::map<size_t, Saves> live_after_calls(const Function& f, const std::vector<size_t>& calls) {
  const Flow fl = flow_of(f);
  std::map<size_t, Saves> live;
  for (size_t k : calls) {
    Saves& s = live[k];
    for (size_t r = 0; r < fl.nr; ++r)
      if (fl.has(fl.in[k + 1], r)) s.regs.push_back(uint32_t(r));
    for (size_t q = 0; q < f.preds.size(); ++q)  // the call's guard also guards the copies after it
      if (fl.has(fl.in[k + 1], fl.nr + q) || f.body[k].inst.guard == int16_t(q)) s.preds.push_back(uint32_t(q));
  }
  return live;
}

// What callee c needs on top of the values live across f's call of it: nothing within f's own
// component (those values are saved in f's frame), else the most any function of c's needs.
unsigned Liveness::callee_need(size_t fi, size_t c) {
  if (!scc_) return run(c);
  const std::vector<size_t>& scc = *scc_;
  if (scc[c] == scc[fi]) return 0;
  unsigned need = 0;
  for (size_t g = 0; g < scc.size(); ++g)
    if (scc[g] == scc[c]) need = std::max(need, run(g));
  return need;
}

unsigned Liveness::run(size_t fi) {
  if (memo[fi] >= 0) return unsigned(memo[fi]);
  const Function& f = m.funcs[fi];
  size_t n = f.body.size(), nr = f.regs.size();
  const Flow fl = flow_of(f);
  auto width = [&](size_t r) { return isa::bits_of(f.regs[r].type) > 32 ? 2u : 1u; };
  auto count = [&](const Bits& set) {
    unsigned c = 0;
    for (size_t r = 0; r < nr; ++r)
      if (set[r / 64] >> (r % 64) & 1) c += width(r);
    return c;
  };
  unsigned best = 0;
  for (size_t k = 0; k < n; ++k) {
    Bits out(fl.W);
    for (size_t s : fl.succ[k])
      for (size_t w = 0; w < fl.W; ++w) out[w] |= fl.in[std::min(s, n)][w];
    Bits at = out;
    for (size_t w = 0; w < fl.W; ++w) at[w] |= fl.def[k][w];
    best = std::max({best, count(fl.in[k]), count(at)});
    if (f.body[k].inst.op == Opcode::Call && f.body[k].callee >= 0)  // + 2: the 64-bit copy scratch slot
      best = std::max({best, count(fl.in[k]) + 2, count(out) + 2, count(out) + callee_need(fi, size_t(f.body[k].callee))});
  }
  memo[fi] = int(best);
  return best;
}

}  // namespace gpuvp::ptx::detail
