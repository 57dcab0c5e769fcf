#pragma once
// The memory profiler (docs/reliability.md, "Memory profile"): per 128-byte block of every data
// object (allocation), the accesses (global transactions of warps: a coalesced segment piece or one
// lane's access, loads, stores and atomics alike), the L1 misses (reads that leave the SM for L2 /
// DRAM: a miss of the L1, or a load the L1 does not cache; every read on a platform without L1) and
// the distinct warps touching it; per object its footprint, share of the accesses, read-only or not,
// and the hot blocks and objects protection picks.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/memprot/data_objects.h"

namespace gpuvp {

constexpr uint64_t kProfileBlockBytes = 128;

struct BlockProfile {
  uint64_t accesses = 0, l1_misses = 0, warps = 0;
};

struct ObjectProfile {
  std::string name;
  uint64_t base = 0, size = 0;
  bool read_only = true;           // no kernel wrote it
  uint64_t accesses = 0, l1_misses = 0;
  double footprint_share = 0, access_share = 0;  // of all objects' bytes / accesses
  bool hot = false;                // read-only and holding a hot block
  std::vector<BlockProfile> blocks;  // block b covers [base + 128 b, base + 128 (b + 1))
};

// A block of an object, as the fault models and the plot see it.
struct BlockRef {
  size_t object = 0, block = 0;
  uint64_t addr = 0;  // its first byte
};

struct MemoryProfile {
  std::vector<ObjectProfile> objects;  // in allocation order (the runtime's copies of protected objects left out)
  uint64_t accesses = 0, bytes = 0;
  double hot_share = 0.1;
  // Every block, most accessed first (ties: lower address first).
  std::vector<BlockRef> ranked() const;
  // The hot blocks: the shortest prefix of ranked() holding at least hot_share of all accesses,
  // extended by the blocks tied with its last one (an arbitrary cut among equals would pick objects by
  // address); blocks with no access never.
  std::vector<BlockRef> hot_blocks() const;
  // Names of the hot objects, most accessed first.
  std::vector<std::string> hot_objects() const;
  const BlockProfile& at(const BlockRef& b) const { return objects[b.object].blocks[b.block]; }

  std::string table() const;            // per object: footprint, accesses, shares, read-only, hot
  std::string blocks_csv() const;       // rank,object,block,addr,accesses,l1_misses,warps,hot
  // Objects and shares; with `blocks` every block's counts too (accesses, L1 misses, warps).
  nlohmann::json to_json(bool blocks = false) const;
  // What to_json(true) wrote (the study reads a profile made in another process).
  static MemoryProfile from_json(const nlohmann::json& j);
};

class MemProfiler : public MemObserver {
 public:
  explicit MemProfiler(const DataObjects& objs) : objs_(objs) {}
  void access(size_t object, uint64_t addr, unsigned len, bool write, uint64_t warp) override;
  void l1_miss(size_t object, uint64_t addr, unsigned len) override;
  // The profile so far, hot blocks and objects chosen with `hot_share` in (0, 1].
  MemoryProfile result(double hot_share = 0.1) const;

 private:
  struct Counts {
    std::vector<uint64_t> acc, miss;
    std::vector<std::unordered_set<uint64_t>> warps;
    bool written = false;
  };
  Counts& counts(size_t object);
  template <class F>
  void blocks_of(size_t object, uint64_t addr, unsigned len, F f);
  const DataObjects& objs_;
  std::vector<Counts> counts_;
};

}  // namespace gpuvp
