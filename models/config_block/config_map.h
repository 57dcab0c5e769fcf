#pragma once
// Register map of the configuration block (docs/config-block.md). Indices 0..9 and 0x20..0x3F are
// the FlexGripPlus fields of block-scheduler.md; the others are gpuvp's additions.
#include <cstdint>

namespace gpuvp::cfgreg {
enum : unsigned {
  kBlocksPerCore = 0,
  kNumGprs = 1,        // 32-bit registers per thread (occupancy)
  kShmemSize = 2,      // static shared memory per block, bytes
  kParamSize = 3,      // kernel parameter words
  kDynShmemSize = 4,
  kBlockX = 5, kBlockY = 6, kBlockZ = 7,
  kGridX = 8, kGridY = 9,
  kGridZ = 10,
  kEntryLo = 11, kEntryHi = 12,  // kernel entry: system memory address
  kControl = 13,                 // write 1: start the kernel (raises the scheduler's en)
  kStatus = 14,                  // bit0 busy, bit1 done (sticky until next start), bit2 error
  kLocalBytes = 15,              // per-thread local memory bytes
  kNumRegSlots = 16,             // 64-bit register slots per thread (decoder's register file)
  kNumPreds = 17,                // predicate slots per thread
  kStream = 18, kPriority = 19,  // concurrent-kernel mode
  kLaunchId = 20,                // sequence number of the launch (statistics, traces)
  kParamBase = 0x20, kParamWords = 32,
  kNumRegs = 64
};
}  // namespace gpuvp::cfgreg
