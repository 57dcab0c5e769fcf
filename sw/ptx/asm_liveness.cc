// Assembler stage: the register-count estimate (KernelInfo::regs_per_thread, for occupancy).
// Max simultaneously-live 32-bit registers in one function (64-bit registers count 2), plus what
// its callees need on top of the values live across each call. An estimate: no coalescing,
// no rematerialisation, predicates not counted.
#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;
using isa::OpKind;

namespace {

// Register operands that an instruction writes (indices into ops).
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

using Bits = std::vector<uint64_t>;  // one bit per virtual register

// Per instruction of one function: registers used, defined, live in; control-flow successors
// (index n: past the end).
struct Flow {
  size_t n, W;
  std::vector<Bits> use, def, in;
  std::vector<std::vector<size_t>> succ;
  Flow(size_t n_, size_t nr) : n(n_), W((nr + 63) / 64), use(n_, Bits(W)), def(n_, Bits(W)), in(n_ + 1, Bits(W)), succ(n_) {}
};

void use_def(const Function& f, Flow& fl) {
  for (size_t k = 0; k < fl.n; ++k) {
    const auto& I = f.body[k].inst;
    auto d = def_ops(I);
    for (int o = 0; o < I.nops; ++o) {
      const auto& op = I.ops[o];
      bool is_def = std::find(d.begin(), d.end(), o) != d.end();
      if (op.kind == OpKind::Reg) {
        if (is_def) {
          fl.def[k][op.reg / 64] |= 1ull << (op.reg % 64);
          if (I.guard >= 0) fl.use[k][op.reg / 64] |= 1ull << (op.reg % 64);  // guarded def does not kill
        } else {
          fl.use[k][op.reg / 64] |= 1ull << (op.reg % 64);
        }
      } else if (op.kind == OpKind::Mem && op.reg != isa::kNoReg) {
        fl.use[k][op.reg / 64] |= 1ull << (op.reg % 64);
      }
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

}  // namespace

unsigned Liveness::run(size_t fi) {
  if (memo[fi] >= 0) return unsigned(memo[fi]);
  const Function& f = m.funcs[fi];
  size_t n = f.body.size(), nr = f.regs.size();
  Flow fl(n, nr);
  use_def(f, fl);
  solve(fl);
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
      best = std::max({best, count(fl.in[k]) + 2, count(out) + 2, count(out) + run(size_t(f.body[k].callee))});
  }
  memo[fi] = int(best);
  return best;
}

}  // namespace gpuvp::ptx::detail
