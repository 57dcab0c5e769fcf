// Assembler stage: code layout and encoding. An address immediate may need one or two words, so
// sizes and addresses are iterated to a fixed point, filling label and call targets each round.
#include "sw/isa/encoding.h"
#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;

namespace {

// Label and call targets of a (non-synthetic) site from the current addresses.
void fill_targets(const Program& p, Site& s) {
  const Instr& in = p.m.funcs[s.f].body[s.k];
  for (auto& r : in.refs)  // r.index == body size: end of the function
    if (r.kind == RefKind::Label) s.inst.ops[r.op].imm = int64_t(p.addr[p.site_of[s.f][r.index]]);
  if (s.inst.op == Opcode::Call) s.inst.ops[0].imm = int64_t(p.addr[p.first[size_t(in.callee)]]);
}

}  // namespace

void lay_out_code(Program& p) {
  p.addr.assign(p.sites.size() + 1, 0);
  for (int iter = 0;; ++iter) {
    uint64_t pc = p.layout.code_base;
    bool changed = false;
    for (size_t i = 0; i < p.sites.size(); ++i) {
      Site& s = p.sites[i];
      if (!s.synthetic) fill_targets(p, s);
      if (p.addr[i] != pc) changed = true;
      p.addr[i] = pc;
      s.inst.size = uint32_t(isa::encoded_size(s.inst));
      pc += s.inst.size;
    }
    if (p.addr[p.sites.size()] != pc) changed = true;
    p.addr[p.sites.size()] = pc;
    if (!changed) break;
    if (iter > 16) throw ParseError(p.m.source_name, 1, 1, "code layout does not converge", "");
  }
}

void encode_sites(const Program& p, Image& img) {
  for (auto& s : p.sites) isa::encode(s.inst, img.code);
}

}  // namespace gpuvp::ptx::detail
