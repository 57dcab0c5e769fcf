#pragma once
// The work of the concurrent-kernel mode and its handshakes (the FlexGripPlus batch handshake,
// smp_en/smp_done, stays for the batch scheduler): the dispatcher hands one block of a kernel to an
// SM, and the SM reports each block's completion at the simulated instant it completes; the
// dispatcher hands a copy to the copy engine, which reports when it is done.
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/isa/kernel_desc.h"

namespace gpuvp {

struct BlockWork {
  std::shared_ptr<const KernelDesc> kernel;
  uint64_t linear = 0;  // block index in the grid
  uint32_t slot = 0;    // the dispatcher's work slot of the kernel (handed back on completion)
};

// Implemented by an SM: takes a block at the current simulated instant. Called from a method
// process: it must not wait; the SM starts the block as soon as its local time allows.
class BlockTarget {
 public:
  virtual ~BlockTarget() = default;
  virtual void assign(const BlockWork& w) = 0;
};

// Implemented by the dispatcher: an SM's block completed at the current simulated instant.
class BlockDoneSink {
 public:
  virtual ~BlockDoneSink() = default;
  virtual void block_done(unsigned sm, const BlockWork& w) = 0;
};

// Implemented by the dispatcher: the first instant (ps) at which it may hand out another block, as far
// as it can tell now; kUnknown when a completion anywhere might let it (an SM then looks at a grid of
// its own cycles). SMs run ahead of simulated time up to it.
class ConcurrentHorizon {
 public:
  static constexpr uint64_t kUnknown = ~uint64_t{0};
  virtual ~ConcurrentHorizon() = default;
  virtual uint64_t no_assignment_before_ps() const = 0;
};

// An asynchronous copy between host memory and global memory. Host memory is not modelled as a
// memory: a copy to the device carries its bytes (staged when the host enqueued it, as the driver
// stages pageable memory), a copy from the device receives them here when the copy engine is done.
struct CopyJob {
  bool to_device = true;
  uint64_t device_addr = 0;
  std::vector<uint8_t> data;  // to_device: the bytes to write; else filled with `bytes` bytes read
  uint64_t bytes = 0;
};

// Implemented by the copy engine: starts a copy at the current simulated instant (method context).
class CopyTarget {
 public:
  virtual ~CopyTarget() = default;
  virtual void start_copy(uint32_t slot, std::shared_ptr<CopyJob> job) = 0;
};

// Implemented by the dispatcher: the copy in `slot` completed at the current simulated instant.
class CopyDoneSink {
 public:
  virtual ~CopyDoneSink() = default;
  virtual void copy_done(uint32_t slot) = 0;
};

}  // namespace gpuvp
