#pragma once
// What the host runtime needs from the platform: timed bus reads and writes, a wait for the end of
// a kernel, and the device's properties. platform/ implements it; the runtime knows nothing else
// of the platform's insides.
#include <cstddef>
#include <cstdint>
#include <string>

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
};

}  // namespace gpuvp::rt
