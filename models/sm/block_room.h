#pragma once
// Room for blocks on an SM (docs/sm.md, "Concurrent kernels"): what one block of a kernel needs of
// the SM (BlockShape), and the SM's resources in use with their limits (Occupancy), which finds
// where one more block goes: the lowest free block slot, then first fit for contiguous warp slots,
// shared memory and register and predicate storage. SimtCore builds an Occupancy from its resident
// blocks to add a block (add_block) or to count how many more fit (room_for).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuvp {
struct LaunchParams;  // simt_core.h
}

namespace gpuvp::sm {

// One block of a kernel as the SM sees it.
struct BlockShape {
  uint32_t threads = 0, wpb = 0;          // threads, warps (the last one may be partial)
  uint32_t user_off = 0, user_bytes = 0;  // shared memory: user region offset in the block, its size
  uint32_t stride = 0;                    // shared memory the block occupies
  uint64_t regs32 = 0;                    // 32-bit registers the occupancy counts (regs_per_thread * threads)
  size_t reg_slots = 0;                   // register file entries (64-bit lane slots): wpb * num_regs * 32
  size_t pred_words = 0;                  // predicate file words (lane masks): wpb * max(num_preds, 1)
};
// lp's block dimensions must have been checked (1..max threads per block) and warp_size be 1..32.
BlockShape block_shape(const LaunchParams& lp, unsigned warp_size);

// How many blocks of shape s an empty SM holds at once, and the resource that bounds them (the first
// of "blocks", "warp_slots", "threads", "registers", "shared_memory" that allows the fewest).
struct OccupancyLimit {
  unsigned blocks = 0;
  const char* limited_by = "";
};
struct SmResources {
  unsigned blocks, warp_slots;
  uint64_t threads, regs32, smem;
};
OccupancyLimit occupancy_limit(const BlockShape& s, const SmResources& r);

// Where a block lies: its slot and the first warp slot, register, predicate and shared memory offsets.
struct Placement {
  unsigned slot = 0, first_warp = 0;
  size_t reg_base = 0, pred_base = 0;
  uint32_t smem_base = 0;
};

class Occupancy {
 public:
  struct Limits {
    unsigned blocks = 0, warps = 0;
    uint64_t threads = 0, regs32 = 0, smem = 0;
    size_t reg_slots = 0, pred_words = 0;  // storage of the register and predicate files
  };
  explicit Occupancy(const Limits& limits) : lim_(limits), slot_used_(limits.blocks, false) {}
  // A resident block: its shape at its placement.
  void add(const BlockShape& s, const Placement& p);
  // Reserves room for one more block of shape s and says where (p). Returns nullptr when it fits,
  // else the resource that is short (for messages), leaving the occupancy as it was.
  const char* take(const BlockShape& s, Placement& p);
  // How many more blocks of shape s fit (take after take).
  unsigned room(const BlockShape& s) const;

 private:
  struct Range {
    uint64_t begin, size;
  };
  // Lowest offset at which `size` units fit in [0, capacity) beside `used`; false when none does.
  static bool first_fit(std::vector<Range>& used, uint64_t size, uint64_t capacity, uint64_t& at);

  Limits lim_;
  std::vector<bool> slot_used_;
  unsigned blocks_ = 0;
  uint64_t threads_ = 0, regs32_ = 0;
  std::vector<Range> warps_, smem_, regs_, preds_;
};

}  // namespace gpuvp::sm
