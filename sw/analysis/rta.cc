// The analysis of tx2-scheduling.md: free slots g_f, the next allocation time t_a and the pending
// frees h (time, slots). A kernel that fits finishes C_i after t_a; one that does not takes every free
// slot at t_a and waits for the earliest free (equal times merged) for the rest.
#include "sw/analysis/rta.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace gpuvp::rta {

namespace {
// t + d for a time of kernel `k`: a sum beyond 64 bits is refused, never wrapped.
uint64_t later(uint64_t t, uint64_t d, const Kernel& k) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(t, d, &sum))
    throw std::overflow_error("rta: kernel " + k.name + ": its completion time does not fit 64 bits of ns (more than " +
                              std::to_string(~uint64_t{0}) + " ns)");
  return sum;
}
}  // namespace

std::vector<Result> analyse(const std::vector<Kernel>& kernels, uint64_t slots) {
  if (slots == 0) throw std::invalid_argument("rta: the GPU has no block slots");
  std::map<uint64_t, uint64_t> frees;  // h: time -> slots freed then (equal times merged)
  uint64_t free_slots = slots, t = 0;  // g_f, t_a
  std::vector<Result> out;
  for (const Kernel& k : kernels) {
    if (k.blocks == 0) throw std::invalid_argument("rta: kernel " + k.name + " has no blocks");
    Result r;
    bool started = false;
    uint64_t left = k.blocks;
    for (;;) {
      if (free_slots > 0 && !started) {
        r.start_ns = t;
        started = true;
      }
      const uint64_t now = std::min(free_slots, left);
      if (now) frees[later(t, k.block_ns, k)] += now;
      free_slots -= now;
      left -= now;
      if (left == 0) {
        r.completion_ns = later(t, k.block_ns, k);
        break;
      }
      auto first = frees.begin();  // the earliest free: t_a and g_f become it
      t = first->first;
      free_slots += first->second;
      frees.erase(first);
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace gpuvp::rta
