// Assembler: register slots, memory layouts, symbol resolution, encoding, register-usage estimate.
#include "sw/ptx/assembler.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "sw/isa/encoding.h"

namespace gpuvp::ptx {
namespace {

using isa::Opcode;
using isa::OpKind;
using isa::Space;

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

[[noreturn]] void fail(const Module& m, const Instr& in, const std::string& msg) {
  throw ParseError(m.source_name, in.line, in.col, msg, in.text);
}
[[noreturn]] void fail_fn(const Module& m, const Function& f, const std::string& msg) {
  throw ParseError(m.source_name, f.line, 1, msg, f.name);
}

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

// Max simultaneously-live 32-bit registers in one function (64-bit registers count 2), plus what
// its callees need on top of the values live across each call. An estimate: no coalescing,
// no rematerialisation, predicates not counted.
struct Liveness {
  const Module& m;
  std::vector<int> memo;  // -1 unknown
  explicit Liveness(const Module& mod) : m(mod), memo(mod.funcs.size(), -1) {}

  unsigned run(size_t fi) {
    if (memo[fi] >= 0) return unsigned(memo[fi]);
    const Function& f = m.funcs[fi];
    size_t n = f.body.size(), nr = f.regs.size(), W = (nr + 63) / 64;
    auto width = [&](size_t r) { return isa::bits_of(f.regs[r].type) > 32 ? 2u : 1u; };
    std::vector<std::vector<uint64_t>> use(n, std::vector<uint64_t>(W)), def(n, std::vector<uint64_t>(W)),
        in(n + 1, std::vector<uint64_t>(W));
    std::vector<std::vector<size_t>> succ(n);
    for (size_t k = 0; k < n; ++k) {
      const auto& I = f.body[k].inst;
      auto d = def_ops(I);
      for (int o = 0; o < I.nops; ++o) {
        const auto& op = I.ops[o];
        bool is_def = std::find(d.begin(), d.end(), o) != d.end();
        if (op.kind == OpKind::Reg) {
          if (is_def) {
            def[k][op.reg / 64] |= 1ull << (op.reg % 64);
            if (I.guard >= 0) use[k][op.reg / 64] |= 1ull << (op.reg % 64);  // guarded def does not kill
          } else {
            use[k][op.reg / 64] |= 1ull << (op.reg % 64);
          }
        } else if (op.kind == OpKind::Mem && op.reg != isa::kNoReg) {
          use[k][op.reg / 64] |= 1ull << (op.reg % 64);
        }
      }
      bool cond = I.guard >= 0;
      if (I.op == Opcode::Bra) {
        for (auto& r : f.body[k].refs)
          if (r.kind == RefKind::Label) succ[k].push_back(r.index);
        if (cond) succ[k].push_back(k + 1);
      } else if (I.op == Opcode::Ret || I.op == Opcode::Exit || I.op == Opcode::Trap) {
        if (cond) succ[k].push_back(k + 1);
      } else {
        succ[k].push_back(k + 1);
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = n; k-- > 0;) {
        for (size_t w = 0; w < W; ++w) {
          uint64_t out = 0;
          for (size_t s : succ[k]) out |= in[std::min(s, n)][w];
          uint64_t v = use[k][w] | (out & ~def[k][w]);
          if (v != in[k][w]) in[k][w] = v, changed = true;
        }
      }
    }
    auto count = [&](const std::vector<uint64_t>& set) {
      unsigned c = 0;
      for (size_t r = 0; r < nr; ++r)
        if (set[r / 64] >> (r % 64) & 1) c += width(r);
      return c;
    };
    unsigned best = 0;
    for (size_t k = 0; k < n; ++k) {
      std::vector<uint64_t> out(W);
      for (size_t s : succ[k])
        for (size_t w = 0; w < W; ++w) out[w] |= in[std::min(s, n)][w];
      std::vector<uint64_t> at = out;
      for (size_t w = 0; w < W; ++w) at[w] |= def[k][w];
      best = std::max({best, count(in[k]), count(at)});
      if (f.body[k].inst.op == Opcode::Call && f.body[k].callee >= 0)  // + 2: the 64-bit copy scratch slot
        best = std::max({best, count(in[k]) + 2, count(out) + 2, count(out) + run(size_t(f.body[k].callee))});
    }
    memo[fi] = int(best);
    return best;
  }
};

}  // namespace

Image assemble(const Module& m, const Layout& layout) {
  Image img;
  img.source_name = m.source_name;
  img.layout = layout;
  size_t nf = m.funcs.size();

  // Call graph, recursion check, reachability.
  std::vector<std::set<size_t>> callees(nf);
  for (size_t f = 0; f < nf; ++f)
    for (auto& in : m.funcs[f].body)
      if (in.inst.op == Opcode::Call) callees[f].insert(size_t(in.callee));
  std::vector<int> state(nf, 0);
  std::function<void(size_t)> dfs = [&](size_t f) {
    state[f] = 1;
    for (auto& in : m.funcs[f].body) {
      if (in.inst.op != Opcode::Call) continue;
      size_t c = size_t(in.callee);
      if (state[c] == 1) fail(m, in, fmt::format("recursive call of '{}' is not supported", m.funcs[c].name));
      if (state[c] == 0) dfs(c);
    }
    state[f] = 2;
  };
  for (size_t f = 0; f < nf; ++f)
    if (state[f] == 0 && m.funcs[f].has_body) dfs(f);
  auto reach = [&](size_t k) {
    std::set<size_t> r;
    std::vector<size_t> work{k};
    while (!work.empty()) {
      size_t f = work.back();
      work.pop_back();
      for (size_t c : callees[f])
        if (r.insert(c).second) work.push_back(c);
    }
    return r;
  };

  // Per-function frames in local memory: parameters, return values, .local and .param variables.
  std::vector<std::vector<uint32_t>> var_off(nf), param_off(nf), ret_off(nf);
  std::vector<uint32_t> frame(nf, 0);
  for (size_t f = 0; f < nf; ++f) {
    const Function& F = m.funcs[f];
    uint64_t o = 0;
    if (!F.entry) {
      for (auto& p : F.params) o = align_up(o, p.align), param_off[f].push_back(uint32_t(o)), o += p.size;
      for (auto& p : F.rets) o = align_up(o, p.align), ret_off[f].push_back(uint32_t(o)), o += p.size;
    }
    for (auto& v : F.vars) o = align_up(o, v.align), var_off[f].push_back(uint32_t(o)), o += v.size;
    frame[f] = uint32_t(align_up(o, 8));
  }
  // Register slots of each function: its virtual registers, plus one scratch slot (the last) when
  // it contains calls, used by the argument/return-value copies the call lowering emits.
  std::vector<uint32_t> nregs(nf, 0);
  for (size_t f = 0; f < nf; ++f) nregs[f] = uint32_t(m.funcs[f].regs.size()) + (callees[f].empty() ? 0u : 1u);
  // Slot/frame bases: kernels start at 0; every .func gets its own range above the largest kernel
  // that calls anything, so callees never clobber callers and need no save/restore.
  std::vector<uint32_t> rbase(nf, 0), pbase(nf, 0), lbase(nf, 0);
  uint32_t r0 = 0, p0 = 0, l0 = 0;
  for (size_t f = 0; f < nf; ++f)
    if (m.funcs[f].entry && !callees[f].empty()) {
      r0 = std::max(r0, nregs[f]);
      p0 = std::max(p0, uint32_t(m.funcs[f].preds.size()));
      l0 = std::max(l0, frame[f]);
    }
  for (size_t f = 0; f < nf; ++f)
    if (!m.funcs[f].entry && m.funcs[f].has_body) {
      rbase[f] = r0, pbase[f] = p0, lbase[f] = l0;
      r0 += nregs[f];
      p0 += uint32_t(m.funcs[f].preds.size());
      l0 += frame[f];
    }
  for (size_t f = 0; f < nf; ++f) {
    if (rbase[f] + nregs[f] >= isa::kNoReg) fail_fn(m, m.funcs[f], "too many register slots");
    if (pbase[f] + m.funcs[f].preds.size() > 2048) fail_fn(m, m.funcs[f], "too many predicate slots (max 2048)");
  }

  // Module variables: .global and .const packed in declaration order.
  std::vector<uint64_t> mvar(m.vars.size(), 0);
  uint64_t g = 0, cst = 0;
  for (size_t v = 0; v < m.vars.size(); ++v) {
    const Var& V = m.vars[v];
    if (V.space == Space::Global) {
      g = align_up(g, V.align);
      mvar[v] = layout.global_base + g;
      img.globals.push_back({V.name, mvar[v], V.size, V.init});
      g += V.size;
    } else if (V.space == Space::Const) {
      cst = align_up(cst, V.align);
      mvar[v] = layout.const_base + cst;
      img.const_data.resize(size_t(cst), 0);
      std::vector<uint8_t> bytes = V.init;
      bytes.resize(V.size, 0);
      img.const_data.insert(img.const_data.end(), bytes.begin(), bytes.end());
      cst += V.size;
    }
  }
  img.global_bytes = uint32_t(g);

  // Shared memory. Variables used by a .func get module-wide offsets (region 0, shared code);
  // those used only by one kernel body are laid out per kernel after it when needed.
  std::vector<std::set<size_t>> uses(nf);
  for (size_t f = 0; f < nf; ++f)
    for (auto& in : m.funcs[f].body)
      for (auto& r : in.refs)
        if (r.kind == RefKind::ModuleVar && m.vars[r.index].space == Space::Shared) uses[f].insert(r.index);
  std::vector<int64_t> region0(m.vars.size(), -1);
  uint64_t r0_end = 0;
  bool dyn_in_func = false;
  for (size_t v = 0; v < m.vars.size(); ++v) {
    bool in_func = false;
    for (size_t f = 0; f < nf; ++f)
      if (!m.funcs[f].entry && uses[f].count(v)) in_func = true;
    if (!in_func) continue;
    if (m.vars[v].dynamic) { dyn_in_func = true; continue; }
    r0_end = align_up(r0_end, m.vars[v].align);
    region0[v] = int64_t(r0_end);
    r0_end += m.vars[v].size;
  }
  std::vector<std::vector<int64_t>> kshared(nf);  // per kernel: offsets of every shared var it uses
  int64_t func_dyn = -1;
  for (size_t k = 0; k < nf; ++k) {
    const Function& K = m.funcs[k];
    if (!K.entry || !K.has_body) continue;
    auto rf = reach(k);
    std::set<size_t> used = uses[k];
    for (size_t f : rf) used.insert(uses[f].begin(), uses[f].end());
    bool need_r0 = false;
    for (size_t v : used) if (region0[v] >= 0) need_r0 = true;
    uint64_t o = need_r0 ? r0_end : 0;
    kshared[k].assign(m.vars.size(), -1);
    uint32_t dyn_align = 16;
    for (size_t v = 0; v < m.vars.size(); ++v) {
      if (!used.count(v)) continue;
      if (region0[v] >= 0) { kshared[k][v] = region0[v]; continue; }
      if (m.vars[v].dynamic) { dyn_align = std::max(dyn_align, m.vars[v].align); continue; }
      o = align_up(o, m.vars[v].align);
      kshared[k][v] = int64_t(o);
      o += m.vars[v].size;
    }
    bool has_dyn = false;
    for (size_t v : used) if (m.vars[v].dynamic) has_dyn = true;
    if (has_dyn && dyn_align > 16) o = align_up(o, dyn_align);
    uint64_t dyn = align_up(o, 16);
    for (size_t v : used)
      if (m.vars[v].dynamic) kshared[k][v] = int64_t(dyn);
    if (dyn_in_func && has_dyn) {
      if (func_dyn >= 0 && func_dyn != int64_t(dyn))
        fail_fn(m, K, "dynamic shared memory used in a .func called from kernels with different static shared sizes");
      func_dyn = int64_t(dyn);
    }
    KernelInfo ki;
    ki.name = K.name;
    ki.static_shared_bytes = uint32_t(o);
    uint64_t po = 0;
    for (auto& p : K.params) {
      po = align_up(po, p.align);
      ki.params.push_back({p.name, uint32_t(po), p.size, p.align});
      po += p.size;
    }
    ki.param_bytes = uint32_t(po);
    ki.local_bytes = frame[k];
    ki.num_regs = nregs[k];
    ki.num_preds = uint32_t(K.preds.size());
    for (size_t f : rf) {
      ki.local_bytes = std::max(ki.local_bytes, lbase[f] + frame[f]);
      ki.num_regs = std::max(ki.num_regs, rbase[f] + nregs[f]);
      ki.num_preds = std::max(ki.num_preds, pbase[f] + uint32_t(m.funcs[f].preds.size()));
    }
    for (int d = 0; d < 3; ++d) ki.max_ntid[d] = K.maxntid[d], ki.reqntid[d] = K.reqntid[d];
    img.kernels.push_back(ki);
  }
  auto shared_off = [&](size_t f, size_t v, const Instr& in) -> uint64_t {
    if (m.funcs[f].entry) return uint64_t(kshared[f][v]);
    if (m.vars[v].dynamic) {
      if (func_dyn < 0) fail(m, in, "dynamic shared memory in a function no kernel calls");
      return uint64_t(func_dyn);
    }
    return uint64_t(region0[v]);
  };

  // Code order: every .func with a body before the kernels, callees before their callers
  // (post-order of the call graph), then the kernels in module order. A callee then always sits
  // at lower addresses than its call sites, so the SM's thread-frontier rule (lowest PC first) runs
  // lanes inside a call before lanes that skipped it, and they reconverge after the call.
  std::vector<size_t> order;
  {
    std::vector<char> placed(nf, 0);
    std::function<void(size_t)> post = [&](size_t f) {
      if (placed[f]) return;
      placed[f] = 1;
      for (auto& in : m.funcs[f].body)
        if (in.inst.op == Opcode::Call) post(size_t(in.callee));
      if (!m.funcs[f].entry) order.push_back(f);
    };
    for (size_t f = 0; f < nf; ++f)
      if (!m.funcs[f].entry) post(f);
    for (size_t f = 0; f < nf; ++f)
      if (m.funcs[f].entry) order.push_back(f);
  }

  // Resolve everything but code addresses, then iterate sizes/addresses to a fixed point
  // (an address's immediate may need one or two words). A call is lowered into plain
  // instructions around the Call (docs/isa-encoding.md, "Call convention"): each argument is
  // copied from the caller's call-block .param variable to the callee's parameter frame, and after
  // the Call each return value from the callee's return frame to the caller's variable, with
  // ld.local/st.local through the caller's scratch register slot. Those extra sites carry
  // synthetic = true and no symbol references.
  struct Site { size_t f, k; isa::Inst inst; bool synthetic; };
  std::vector<Site> sites;
  std::vector<size_t> first(nf, 0), fend(nf, 0);
  std::vector<std::vector<size_t>> site_of(nf);  // body index -> first site emitted for it
  auto local_copy = [&](size_t f, const Instr& call, uint32_t from, uint32_t to, uint32_t size, size_t k) {
    uint16_t scratch = uint16_t(rbase[f] + nregs[f] - 1);
    for (uint32_t off = 0; off < size;) {
      uint32_t c = 8;
      while (c > 1 && (size - off < c || (from + off) % c || (to + off) % c)) c >>= 1;
      isa::DType t = c == 8 ? isa::DType::B64 : c == 4 ? isa::DType::B32 : c == 2 ? isa::DType::B16 : isa::DType::B8;
      isa::Inst ld, st;
      ld.op = Opcode::Ld, st.op = Opcode::St;
      ld.type = st.type = t;
      ld.mod.space = st.mod.space = Space::Local;
      ld.guard = st.guard = call.inst.guard < 0 ? int16_t(-1) : int16_t(call.inst.guard + int(pbase[f]));
      ld.guard_neg = st.guard_neg = call.inst.guard_neg;
      ld.line = st.line = call.line;
      ld.nops = st.nops = 2;
      ld.ops[0] = {OpKind::Reg, false, scratch, 0};
      ld.ops[1] = {OpKind::Mem, false, isa::kNoReg, int64_t(from + off)};
      st.ops[0] = {OpKind::Mem, false, isa::kNoReg, int64_t(to + off)};
      st.ops[1] = {OpKind::Reg, false, scratch, 0};
      sites.push_back({f, k, ld, true});
      sites.push_back({f, k, st, true});
      off += c;
    }
  };
  for (size_t f : order) {
    const Function& F = m.funcs[f];
    first[f] = sites.size();
    site_of[f].assign(F.body.size() + 1, sites.size());
    if (!F.has_body) { fend[f] = sites.size(); continue; }
    for (size_t k = 0; k < F.body.size(); ++k) {
      const Instr& in = F.body[k];
      site_of[f][k] = sites.size();
      isa::Inst I = in.inst;
      I.line = in.line;
      if (I.guard >= 0) I.guard = int16_t(I.guard + int(pbase[f]));
      for (int o = 0; o < I.nops; ++o) {
        auto& op = I.ops[o];
        if (op.kind == OpKind::Reg || (op.kind == OpKind::Mem && op.reg != isa::kNoReg)) op.reg = uint16_t(op.reg + rbase[f]);
        if (op.kind == OpKind::Pred) op.reg = uint16_t(op.reg + pbase[f]);
      }
      for (auto& r : in.refs) {
        auto& op = I.ops[r.op];
        bool is_mem = op.kind == OpKind::Mem;
        Space vs = Space::Param;
        uint64_t val = 0;
        switch (r.kind) {
          case RefKind::Label: continue;  // code addresses below
          case RefKind::ModuleVar:
            vs = m.vars[r.index].space;
            val = vs == Space::Shared ? shared_off(f, r.index, in) : mvar[r.index];
            break;
          case RefKind::FuncVar:
            vs = F.vars[r.index].space == Space::Param ? Space::Param : Space::Local;
            val = lbase[f] + var_off[f][r.index];
            if (vs == Space::Param) vs = Space::Local;  // call-block .param lives in the local frame
            break;
          case RefKind::Param:
            if (F.entry) {
              vs = Space::Param;
              const KernelInfo* ki = nullptr;
              for (auto& kk : img.kernels) if (kk.name == F.name) ki = &kk;
              val = ki->params[r.index].offset;
            } else {
              vs = Space::Local;
              val = lbase[f] + param_off[f][r.index];
            }
            break;
          case RefKind::Ret:
            vs = Space::Local;
            val = lbase[f] + ret_off[f][r.index];
            break;
        }
        if (is_mem) {
          if (I.mod.space == Space::Param && vs == Space::Local) I.mod.space = Space::Local;
          if (I.mod.space == Space::Generic && vs == Space::Shared) val += isa::kSharedWindowBase;
          if (I.mod.space == Space::Generic && vs == Space::Local) val += isa::kLocalWindowBase;
        }
        op.imm += int64_t(val);
      }
      if (I.op == Opcode::Call) {
        size_t c = size_t(in.callee);
        for (size_t j = 0; j < in.call_args.size(); ++j)
          local_copy(f, in, lbase[f] + var_off[f][in.call_args[j]], lbase[c] + param_off[c][j],
                     F.vars[in.call_args[j]].size, k);
        I.nops = 1;  // Target only: the SM needs no call-site table
        I.ops[1] = isa::Operand{};
        sites.push_back({f, k, I, false});
        for (size_t j = 0; j < in.call_rets.size(); ++j)
          local_copy(f, in, lbase[c] + ret_off[c][j], lbase[f] + var_off[f][in.call_rets[j]],
                     F.vars[in.call_rets[j]].size, k);
        continue;
      }
      sites.push_back({f, k, I, false});
    }
    site_of[f][F.body.size()] = fend[f] = sites.size();
  }
  std::vector<uint64_t> addr(sites.size() + 1, 0);
  auto target_of = [&](const Site& s, uint32_t index) {
    return addr[site_of[s.f][index]];  // index == body size: end of the function
  };
  for (int iter = 0;; ++iter) {
    uint64_t pc = layout.code_base;
    bool changed = false;
    for (size_t i = 0; i < sites.size(); ++i) {
      Site& s = sites[i];
      const Instr& in = m.funcs[s.f].body[s.k];
      if (!s.synthetic) {
        for (auto& r : in.refs)
          if (r.kind == RefKind::Label) s.inst.ops[r.op].imm = int64_t(target_of(s, r.index));
        if (s.inst.op == Opcode::Call) s.inst.ops[0].imm = int64_t(addr[first[size_t(in.callee)]]);
      }
      if (addr[i] != pc) changed = true;
      addr[i] = pc;
      s.inst.size = uint32_t(isa::encoded_size(s.inst));
      pc += s.inst.size;
    }
    if (addr[sites.size()] != pc) changed = true;
    addr[sites.size()] = pc;
    if (!changed) break;
    if (iter > 16) throw ParseError(m.source_name, 1, 1, "code layout does not converge", "");
  }
  for (auto& s : sites) isa::encode(s.inst, img.code);
  Liveness live(m);
  for (auto& ki : img.kernels) {
    size_t f = 0;
    while (m.funcs[f].name != ki.name) ++f;
    ki.entry = addr[first[f]];
    ki.end = addr[fend[f]];
    ki.regs_per_thread = live.run(f);
  }
  return img;
}

Image assemble_text(const std::string& text, const std::string& source_name, const Layout& layout) {
  return assemble(parse(text, source_name), layout);
}

}  // namespace gpuvp::ptx
