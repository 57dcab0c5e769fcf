// The three movement conditions, checked in the order the technique states them.
#include "sw/ptx/vp_conditions.h"

namespace gpuvp::ptx::vp {

const char* refusal_name(Refusal r) {
  switch (r) {
    case Refusal::None: return "none";
    case Refusal::Barrier: return "barrier or synchronisation between producer and consumer";
    case Refusal::Dependence: return "an instruction between reads what it writes or writes what it uses";
    case Refusal::LoopDepth: return "producer and consumer at different loop depths";
    case Refusal::BlockBoundary: return "the move would leave the basic block";
  }
  return "?";
}

size_t first_blocker(const MoveFacts& m, size_t from, size_t to) {
  for (size_t k = from + 1; k < to; ++k)
    if (m.acc[k].fence || conflict(m.acc[from], m.acc[k])) return k;
  return to;
}

Refusal check_move(const MoveFacts& m, size_t from, size_t to) {
  const size_t n = m.acc.size();
  for (size_t k = from + 1; k < to; ++k) {
    if (m.acc[k].fence) return Refusal::Barrier;
    if (conflict(m.acc[from], m.acc[k])) return Refusal::Dependence;
  }
  // The consumer's depth; past the end of the body, the depth of the code's end (0).
  const unsigned to_depth = to < n ? m.cfg.depth[to] : 0;
  if (m.cfg.depth[from] != to_depth) return Refusal::LoopDepth;
  const size_t b = m.cfg.block_of[from];
  if (to > m.cfg.block_end(b)) return Refusal::BlockBoundary;
  return Refusal::None;
}

}  // namespace gpuvp::ptx::vp
