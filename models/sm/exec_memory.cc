// Memory instructions: ld, st, atom, red (the memory unit and coalescer are in memory_unit.cc),
// membar/fence (accesses complete in program order; a device- or system-scope one makes the SM's
// stores visible beyond it: CoreEnv::fence).
#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {
void ld(Exec& x) { x.ld(); }
void st(Exec& x) { x.st(); }
void atom(Exec& x) { x.atom(); }
void membar(Exec& x) {
  if (x.in.mod.level == isa::MemLevel::Gl || x.in.mod.level == isa::MemLevel::Sys) x.env().fence(x.now());
}
}  // namespace

void add_memory_ops(OpTable& t) {
  t[size_t(isa::Opcode::Ld)].fn = ld;
  t[size_t(isa::Opcode::St)].fn = st;
  t[size_t(isa::Opcode::Atom)].fn = atom;
  t[size_t(isa::Opcode::Red)].fn = atom;
  t[size_t(isa::Opcode::Membar)].fn = membar;
}

}  // namespace gpuvp::sm
