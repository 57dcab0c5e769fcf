#pragma once
// A kernel as the hardware needs it to run its blocks: code entry, dimensions, parameters and the
// resources of one block. The batch path's SMP controller builds it from the configuration block; in
// the concurrent mode the runtime builds it, the dispatcher keeps one per kernel in its queues and
// hands it to the SMs with each block (models/common/gpu_work.h). Here, below both, so both use it.
#include <cstdint>
#include <vector>

namespace gpuvp {

struct KernelDesc {
  uint64_t entry = 0;                  // absolute code address
  uint32_t block[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};
  std::vector<uint8_t> params;         // kernel parameter bytes (param words * 4)
  uint32_t static_shared = 0;
  uint32_t dyn_shared = 0;
  uint32_t local_bytes = 0;            // per thread
  uint32_t num_regs = 0;               // 64-bit register slots per thread
  uint32_t num_preds = 0;              // predicate slots per thread
  uint32_t regs_per_thread = 0;        // 32-bit registers (occupancy check)
  uint32_t smem_per_block = 0;         // stride the scheduler computed (0: compute here)
  uint64_t launch_id = 0;

  uint32_t threads() const { return block[0] * block[1] * block[2]; }
  uint64_t grid_blocks() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
};

}  // namespace gpuvp
