#pragma once
// Per-SM resource accounting and block placement of the concurrent-kernel dispatcher
// (tx2-scheduling.md R1-R3 and "Placement"): a block may go to an SM only if the SM has enough free
// threads, shared memory, registers and block slots for it, and the next block goes to the SM that can
// currently hold the most blocks of its kernel, ties to the lowest SM id. Pure logic; the counters
// are registered state (<path>.used_threads[i], used_smem[i], used_regs[i], used_blocks[i]).
#include <cstdint>
#include <string>
#include <vector>

#include "models/common/registry.h"

namespace gpuvp {

struct SmLimits {
  uint32_t threads = 2048, smem = 65536, regs = 65536, blocks = 32;
};

// What one block of a kernel takes on an SM.
struct BlockNeeds {
  uint32_t threads = 0;
  uint32_t smem = 0;  // bytes, as the SM lays blocks out (header, parameters, shared memory; 256-rounded)
  uint32_t regs = 0;  // 32-bit registers: per thread x threads
};

class SmRoom {
 public:
  SmRoom(Registry& reg, const std::string& path, unsigned sms, const SmLimits& limits);

  // Blocks of this size SM `sm` can take now (R1-R3).
  uint32_t room(unsigned sm, const BlockNeeds& b) const;
  // The SM with the most room for one more block (ties: lowest id), or -1 if none has room; only SMs
  // whose bit is set in `allowed` (bit i: SM i) are considered.
  int place(const BlockNeeds& b, uint64_t allowed = ~uint64_t{0}) const;
  void take(unsigned sm, const BlockNeeds& b);
  void give(unsigned sm, const BlockNeeds& b);  // the block completed
  // Blocks of this size an empty SM holds (0: the block can never run here).
  uint32_t capacity(const BlockNeeds& b) const;
  unsigned sms() const { return unsigned(threads_.size()); }

 private:
  SmLimits lim_;
  std::vector<uint32_t> threads_, smem_, regs_, blocks_;  // used
};

}  // namespace gpuvp
