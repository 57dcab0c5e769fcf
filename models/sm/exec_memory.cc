// Memory instructions: ld, st, atom, red (the memory unit and coalescer are in memory_unit.cc),
// membar/fence (nothing to order: accesses complete in program order).
#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {
void ld(Exec& x) { x.ld(); }
void st(Exec& x) { x.st(); }
void atom(Exec& x) { x.atom(); }
void membar(Exec&) {}
}  // namespace

void add_memory_ops(OpTable& t) {
  t[size_t(isa::Opcode::Ld)].fn = ld;
  t[size_t(isa::Opcode::St)].fn = st;
  t[size_t(isa::Opcode::Atom)].fn = atom;
  t[size_t(isa::Opcode::Red)].fn = atom;
  t[size_t(isa::Opcode::Membar)].fn = membar;
}

}  // namespace gpuvp::sm
