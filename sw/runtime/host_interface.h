#pragma once
// What the host runtime needs from the platform: timed bus reads and writes, a wait for the end of
// a kernel, and the device's properties. platform/ implements it; the runtime knows nothing else
// of the platform's insides.
#include <cstddef>
#include <stdexcept>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sw/isa/kernel_desc.h"

namespace gpuvp::rt {

struct DeviceProps {
  std::string name;
  unsigned sm_count = 1;
  unsigned warp_size = 32;
  unsigned max_threads = 2048;
  unsigned max_threads_per_block = 1024;
  unsigned max_blocks = 8;
  unsigned registers = 65536;
  uint32_t shared_bytes = 16384;
  uint32_t shared_per_block = 16384;
  uint32_t local_bytes = 16384;
  uint32_t stack_bytes = 1024;  // call stack per thread of kernels with recursive functions
  unsigned blocks_per_core = 0;  // configured default, 0 = most that fit
  double clock_mhz = 100;
  double launch_latency_ns = 0;
  uint64_t gmem_base = 0, gmem_size = 0;
  uint64_t sysmem_base = 0, sysmem_size = 0;
  uint64_t cmem_base = 0, cmem_size = 0;
  uint64_t cfg_base = 0;
};

// Work for the GPU's queues in the concurrent-kernel mode (docs/concurrent-kernels.md).
struct WorkRequest {
  enum Kind { Kernel, CopyToDevice, CopyToHost, Record, Wait };
  Kind kind = Kernel;
  uint32_t stream = 0;   // 0: the NULL stream
  bool high_priority = false;
  bool non_blocking = false;  // a non-blocking stream's (cudaStreamNonBlocking): not ordered with stream 0
  std::shared_ptr<const KernelDesc> kernel;  // Kernel
  uint64_t first_block = 0;                  // Kernel: runs grid blocks [first_block, first_block + block_count)
  uint64_t block_count = 0;                  //   (0: the whole grid)
  uint32_t sm_set = 0;                       // Kernel: on the SMs of this set (0: every SM)
  uint64_t device_addr = 0;                  // copies
  std::vector<uint8_t> data;                 // CopyToDevice: the bytes (staged at the call)
  void* host_dst = nullptr;                  // CopyToHost: written when the copy completes
  uint64_t bytes = 0;
  uint32_t event = 0;                        // Record, Wait
  uint64_t tag = 0;                          // the runtime's id of this work (unique)
};

class HostInterface {
 public:
  virtual ~HostInterface() = default;
  // Timed transactions over the host bus; throw RuntimeError naming the address on a TLM error.
  virtual void bus_read(uint64_t addr, void* dst, size_t n) = 0;
  virtual void bus_write(uint64_t addr, const void* src, size_t n) = 0;
  // Waits for kernel_done; throws DeviceError if the GPU reported an error first.
  // Returns the simulated times (ps) at which the scheduler left IDLE and raised kernel_done.
  virtual void wait_kernel_done(uint64_t& start_ps, uint64_t& end_ps) = 0;
  virtual const DeviceProps& props() const = 0;
  // Lets `ns` nanoseconds of simulated time pass on the host side (driver latencies).
  virtual void wait_ns(double ns) = 0;
  // The driver maps each allocation into global memory's bounds check (and unmaps it when freed),
  // so a kernel that reads outside its buffers gets an address error. Default: no checking.
  virtual void map_global(uint64_t /*addr*/, uint64_t /*size*/) {}
  virtual void unmap_global(uint64_t /*addr*/) {}
  // What the kernels' threads printed (device printf) since the last call, in the platform's
  // order; the runtime takes it when it synchronises. Default: nothing.
  virtual std::string take_device_output() { return {}; }

  // The concurrent-kernel mode: whether the GPU has the queues of tx2-scheduling.md (else the batch
  // scheduler runs one kernel at a time through the configuration block).
  virtual bool concurrent() const { return false; }
  // Puts work into the GPU's queues (G1); waits while they are full.
  virtual void submit(WorkRequest /*w*/) { throw std::logic_error("submit: not a concurrent-mode GPU"); }
  // A kernel launch: the driver's `ns` (its launch latency) pass, then submit. The platform knows the
  // launch is on its way meanwhile.
  virtual void submit_after(WorkRequest w, double ns) {
    if (ns > 0) wait_ns(ns);
    submit(std::move(w));
  }
  // Waits until the work `tag` completed and returns the instant (ps); throws DeviceError if the GPU
  // reported an error first.
  virtual uint64_t wait_done(uint64_t /*tag*/) { throw std::logic_error("wait_done: not a concurrent-mode GPU"); }
  // Waits until one of `tags` completed or the time is `until_ps`, whichever comes first; throws
  // DeviceError if the GPU reported an error first.
  virtual void wait_any_until(const std::vector<uint64_t>& /*tags*/, uint64_t /*until_ps*/) {
    throw std::logic_error("wait_any_until: not a concurrent-mode GPU");
  }
  // The completion instant of `tag` if it completed (ps), else ~0 (does not wait).
  virtual uint64_t done_at(uint64_t /*tag*/) const { return ~uint64_t{0}; }
  // SM set `set` (>= 1) is now the SMs of mask `sms` (bit i: SM i): blocks handed out from now on go
  // there; running blocks finish where they are. Throws RuntimeError for a bad set or mask.
  virtual void set_sm_set(uint32_t /*set*/, uint64_t /*sms*/) {
    throw std::logic_error("set_sm_set: not a concurrent-mode GPU");
  }
  virtual unsigned sm_sets() const { return 0; }  // sets the GPU has (set 0 included)
  // Simulated time now (ps).
  virtual uint64_t now_ps() const { return 0; }
  // Starts another host thread running `fn` at the current instant (a SystemC process).
  virtual void spawn(std::function<void()> /*fn*/) { throw std::logic_error("spawn: no host threads here"); }
  virtual void join() {}  // waits for every spawned thread
  // Mutual exclusion between host threads for a sequence of calls that must not interleave
  // (batch mode: one launch writes the configuration block at a time).
  virtual void lock() {}
  virtual void unlock() {}
};

}  // namespace gpuvp::rt
