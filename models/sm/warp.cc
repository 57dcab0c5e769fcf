#include "models/sm/warp.h"

namespace gpuvp {

void Warp::move(unsigned g, uint32_t lanes, uint64_t pc) {
  if (!lanes || pc == groups[g].pc) return;
  // Merge into an existing group at the target PC (reconvergence).
  for (unsigned i = 0; i < ngroups; ++i) {
    if (i != g && groups[i].pc == pc) {
      groups[i].mask |= lanes;
      remove(g, lanes);
      return;
    }
  }
  if (lanes == groups[g].mask) {
    groups[g].pc = pc;
    return;
  }
  groups[g].mask &= ~lanes;
  groups[ngroups++] = Group{pc, lanes};
}

void Warp::remove(unsigned g, uint32_t lanes) {
  groups[g].mask &= ~lanes;
  if (!groups[g].mask) groups[g] = groups[--ngroups];
}

}  // namespace gpuvp
