#pragma once
// The movement conditions of vulnerable-period scheduling (docs/vulnerable-period.md): a producer
// may move down next to its consumer only if (a) no barrier or other synchronisation lies between
// them, (b) no instruction between them reads what it writes or writes what it reads or writes
// (memory included), and (c) both are at the same loop depth. Moves also stay inside a basic block,
// so every path through the code still sees the same values.
#include <cstddef>
#include <vector>

#include "sw/ptx/vp_access.h"
#include "sw/ptx/vp_cfg.h"

namespace gpuvp::ptx::vp {

enum class Refusal { None, Barrier, Dependence, LoopDepth, BlockBoundary };
const char* refusal_name(Refusal r);

struct MoveFacts {
  const std::vector<Access>& acc;
  const Cfg& cfg;
};

// Whether instruction `from` may move down to just before instruction `to` (from < to <= n; n is
// the end of the body), and if not, the first condition that forbids it.
Refusal check_move(const MoveFacts& m, size_t from, size_t to);

// The first instruction in (from, to) that `from` may not pass (a fence or a conflict), or `to`.
size_t first_blocker(const MoveFacts& m, size_t from, size_t to);

}  // namespace gpuvp::ptx::vp
