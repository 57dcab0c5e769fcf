#include "platform/deadline_policy.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp::deadline {

size_t AppState::current() const {
  size_t k = 0;
  while (k < completed.size() && completed[k] >= app->kernels[k].blocks) ++k;
  return k;
}

size_t AppState::next_to_launch() const {
  size_t k = 0;
  while (k < launched.size() && launched[k] >= app->kernels[k].blocks) ++k;
  return k;
}

uint64_t remaining_ns(const AppState& a, unsigned n, const Gpu& gpu) {
  const size_t k = a.current();
  if (k >= a.app->kernels.size()) return 0;
  const Kernel& cur = a.app->kernels[k];
  const uint64_t e = exec_ns(cur, n, gpu.config());
  uint64_t r = e - e * a.completed[k] / cur.blocks;
  for (size_t j = k + 1; j < a.app->kernels.size(); ++j) r += gpu.launch_latency_ns() + exec_ns(a.app->kernels[j], n, gpu.config());
  return r;
}

void WholeKernels::decide(const std::vector<AppState*>& active, Gpu& gpu) {
  for (AppState* a : active) {
    if (a->next_to_launch() != 0 || a->launched[0] != 0) continue;  // launched at its release already
    a->stream = stream_for(*a, gpu);
    for (size_t k = 0; k < a->app->kernels.size(); ++k) gpu.launch(*a, k, 0, a->app->kernels[k].blocks);
  }
}

std::unique_ptr<Policy> make_policy(const std::string& name) {
  if (name == "fifo") return make_fifo();
  if (name == "priority_streams") return make_priority_streams();
  if (name == "split") return make_split();
  throw std::invalid_argument(fmt::format("policy '{}': known policies are fifo, priority_streams, split", name));
}

}  // namespace gpuvp::deadline
