#pragma once
// Response-time analysis of concurrent kernels on a TX2-class GPU (docs/concurrent-kernels.md):
// the GPU as one big SM of `slots` block slots; kernels, all released at the same instant, reach the
// execution-engine queue in order; the head kernel's blocks take free slots as they free (no
// preemption), and every block of kernel i runs for C_i. Completion times without simulating; the
// simulator must agree wherever these assumptions hold (one block size, common release).
#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp::rta {

struct Kernel {
  std::string name;
  uint64_t blocks = 1;   // g_i
  uint64_t block_ns = 0; // C_i: how long each block runs
};

struct Result {
  uint64_t start_ns = 0;       // the kernel's first blocks start (from the common release)
  uint64_t completion_ns = 0;  // its last blocks end
};

// Kernels in queue order; `slots` (g_max) >= 1. Times are from the release. A time beyond 2^64 - 1 ns
// throws std::overflow_error naming the kernel.
std::vector<Result> analyse(const std::vector<Kernel>& kernels, uint64_t slots);

}  // namespace gpuvp::rta
