// The device: one GPU, the platform's, with the properties its configuration gives.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cudart/api.h"
#include "cudart/coherence.h"
#include "sw/runtime/host_runtime.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

constexpr int kMajor = kComputeCapability / 10, kMinor = kComputeCapability % 10;
constexpr int kMaxGridDim = 0xFFFF;  // the configuration block's 16-bit grid fields

void check_device(int device) {
  require(device == 0, kErrorInvalidDevice, fmt::format("device {}: the platform has one GPU, device 0", device));
}

const rt::DeviceProps& props() { return Session::get().props(); }

// Every attribute the library answers; anything else is cudaErrorInvalidValue naming it.
int attribute(int attr) {
  const rt::DeviceProps& p = props();
  switch (attr) {
    case kAttrMaxThreadsPerBlock: return int(p.max_threads_per_block);
    case kAttrMaxBlockDimX: case kAttrMaxBlockDimY: return int(p.max_threads_per_block);
    case kAttrMaxBlockDimZ: return std::min(64, int(p.max_threads_per_block));
    case kAttrMaxGridDimX: case kAttrMaxGridDimY: case kAttrMaxGridDimZ: return kMaxGridDim;
    case kAttrMaxSharedMemoryPerBlock: return int(p.shared_per_block);
    case kAttrTotalConstantMemory: return int(std::min<uint64_t>(p.cmem_size, INT32_MAX));
    case kAttrWarpSize: return int(p.warp_size);
    case kAttrMaxRegistersPerBlock: return int(p.registers);
    case kAttrClockRate: return int(p.clock_mhz * 1000);
    case kAttrMultiProcessorCount: return int(p.sm_count);
    case kAttrIntegrated: return 1;
    case kAttrCanMapHostMemory: return 1;
    case kAttrComputeMode: return 0;  // cudaComputeModeDefault
    case kAttrConcurrentKernels: return Session::get().concurrent() ? 1 : 0;
    case kAttrMaxThreadsPerMultiProcessor: return int(p.max_threads);
    case kAttrAsyncEngineCount: return Session::get().concurrent() ? 1 : 0;
    case kAttrUnifiedAddressing: return 0;
    case kAttrComputeCapabilityMajor: return kMajor;
    case kAttrComputeCapabilityMinor: return kMinor;
    case kAttrMaxSharedMemoryPerMultiprocessor: return int(p.shared_bytes);
    case kAttrMaxRegistersPerMultiprocessor: return int(p.registers);
    case kAttrManagedMemory: return 1;
    case kAttrPageableMemoryAccess: return 0;
    case kAttrConcurrentManagedAccess: return 0;  // the host may not touch managed memory while kernels run
    case kAttrMaxBlocksPerMultiprocessor: return int(p.max_blocks);
    default: throw CudaError(kErrorInvalidValue, fmt::format("device attribute {} is not supported", attr));
  }
}

void fill(DeviceProp& d) {
  const rt::DeviceProps& p = props();
  std::memset(&d, 0, sizeof d);
  std::snprintf(d.name, sizeof d.name, "gpuvp %s", p.name.c_str());
  d.totalGlobalMem = p.gmem_size;
  d.sharedMemPerBlock = attribute(kAttrMaxSharedMemoryPerBlock);
  d.regsPerBlock = attribute(kAttrMaxRegistersPerBlock);
  d.warpSize = attribute(kAttrWarpSize);
  d.maxThreadsPerBlock = attribute(kAttrMaxThreadsPerBlock);
  d.maxThreadsDim[0] = attribute(kAttrMaxBlockDimX);
  d.maxThreadsDim[1] = attribute(kAttrMaxBlockDimY);
  d.maxThreadsDim[2] = attribute(kAttrMaxBlockDimZ);
  for (int& g : d.maxGridSize) g = kMaxGridDim;
  d.totalConstMem = p.cmem_size;
  d.major = kMajor, d.minor = kMinor;
  d.multiProcessorCount = attribute(kAttrMultiProcessorCount);
  d.integrated = attribute(kAttrIntegrated);
  d.canMapHostMemory = attribute(kAttrCanMapHostMemory);
  d.managedMemory = attribute(kAttrManagedMemory);
  d.concurrentKernels = attribute(kAttrConcurrentKernels);
  d.asyncEngineCount = attribute(kAttrAsyncEngineCount);
  d.maxThreadsPerMultiProcessor = attribute(kAttrMaxThreadsPerMultiProcessor);
  d.streamPrioritiesSupported = 1;
  d.sharedMemPerMultiprocessor = p.shared_bytes;
  d.regsPerMultiprocessor = attribute(kAttrMaxRegistersPerMultiprocessor);
  d.sharedMemPerBlockOptin = p.shared_per_block;
  d.maxBlocksPerMultiProcessor = attribute(kAttrMaxBlocksPerMultiprocessor);
}

// The kernel's assembled description (its module loaded).
ptx::KernelInfo kernel_info(const void* func, unsigned* ptx_isa = nullptr, size_t* const_bytes = nullptr) {
  State& s = State::get();
  auto it = s.kernels.find(func);
  require(it != s.kernels.end(), kErrorInvalidDeviceFunction, fmt::format("{} is not a registered kernel", func));
  const KernelRecord& k = *it->second;
  ptx::KernelInfo info;
  on_device([&](rt::Runtime& rt) {
    const rt::Module& m = loaded(*k.fatbin, rt);
    const ptx::KernelInfo* ki = m.image->find_kernel(k.name);
    require(ki != nullptr, kErrorInvalidDeviceFunction, fmt::format("kernel {} is not in its module", k.name));
    info = *ki;
    if (const_bytes) *const_bytes = m.image->const_data.size();
  });
  if (ptx_isa) *ptx_isa = k.fatbin->ptx_isa;
  return info;
}

}  // namespace

CUDART_EXPORT int cudaGetDeviceCount(int* count) {
  return call("cudaGetDeviceCount", [&] {
    require(count != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    *count = 0;
    Session::get();  // a platform that cannot be built is no device
    *count = 1;
  });
}

CUDART_EXPORT int cudaGetDevice(int* device) {
  return call("cudaGetDevice", [&] {
    require(device != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    *device = 0;
  });
}

CUDART_EXPORT int cudaSetDevice(int device) {
  return call("cudaSetDevice", [&] {
    check_device(device);
    Session::get();
  });
}

CUDART_EXPORT int cudaGetDeviceProperties(DeviceProp* prop, int device) {
  return call("cudaGetDeviceProperties", [&] {
    require(prop != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    check_device(device);
    fill(*prop);
  });
}

CUDART_EXPORT int cudaDeviceGetAttribute(int* value, int attr, int device) {
  return call("cudaDeviceGetAttribute", [&] {
    require(value != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    check_device(device);
    *value = attribute(attr);
  });
}

CUDART_EXPORT int cudaDeviceSynchronize() {
  return call("cudaDeviceSynchronize", [&] {
    std::lock_guard lk(State::get().lock);
    on_device([](rt::Runtime& rt) {
      rt.synchronize();
      to_host_if_idle(rt);
    });
  });
}

// Waits for the device and frees what the program allocated; modules, streams and events stay
// (the platform's memories and ids are not reset: docs/cuda.md).
CUDART_EXPORT int cudaDeviceReset() {
  return call("cudaDeviceReset", [&] {
    State& s = State::get();
    std::lock_guard lk(s.lock);
    on_device([&](rt::Runtime& rt) {
      rt.synchronize();
      to_host_if_idle(rt);
      for (auto& [a, n] : s.device_allocs) rt.free(a);
      std::vector<Mirror> allocated;  // managed and mapped allocations; module variables stay
      for (auto& [a, m] : s.mirrors)
        if (m.kind != Mirror::ManagedVar && m.kind != Mirror::Registered) allocated.push_back(m);
      for (auto& m : allocated) remove_mirror(rt, m);
    });
    s.device_allocs.clear();
  });
}

CUDART_EXPORT int cudaDriverGetVersion(int* v) {
  return call("cudaDriverGetVersion", [&] {
    require(v != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    *v = 13000;
  });
}

CUDART_EXPORT int cudaRuntimeGetVersion(int* v) {
  return call("cudaRuntimeGetVersion", [&] {
    require(v != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    *v = 13000;
  });
}

CUDART_EXPORT int cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  return call("cudaMemGetInfo", [&] {
    require(free_bytes && total, kErrorInvalidValue, "pointer to a result is NULL");
    std::lock_guard lk(State::get().lock);
    size_t used = 0;
    for (auto& [a, n] : State::get().device_allocs) used += n;
    *total = props().gmem_size;
    *free_bytes = *total > used ? *total - used : 0;
  });
}

// The runtime's C++ template (cuda_runtime.h) calls the WithFlags form. Flags (0, or 1 =
// cudaOccupancyDisableCachingOverride) change nothing here: the platform has no such cache setting.
CUDART_EXPORT int cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func, int block_size,
                                                                         size_t dyn_shared, unsigned flags) {
  return call("cudaOccupancyMaxActiveBlocksPerMultiprocessor", [&] {
    require(flags <= 1, kErrorInvalidValue, fmt::format("unknown flags {:#x}", flags));
    require(blocks != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    require(block_size > 0, kErrorInvalidValue, fmt::format("block size {}", block_size));
    std::lock_guard lk(State::get().lock);
    const ptx::KernelInfo k = kernel_info(func);
    const uint64_t shmem = rt::shared_per_block(k.param_bytes, k.static_shared_bytes, uint32_t(dyn_shared));
    *blocks = int(rt::blocks_that_fit(props(), uint64_t(block_size), k.regs_per_thread, shmem, nullptr));
  });
}

CUDART_EXPORT int cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func, int block_size,
                                                                size_t dyn_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, dyn_shared, 0);
}

CUDART_EXPORT int cudaFuncGetAttributes(FuncAttributes* attr, const void* func) {
  return call("cudaFuncGetAttributes", [&] {
    require(attr != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    unsigned isa = 0;
    size_t const_bytes = 0;
    const ptx::KernelInfo k = kernel_info(func, &isa, &const_bytes);
    const rt::DeviceProps& p = props();
    std::memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = k.static_shared_bytes;
    attr->constSizeBytes = const_bytes;
    attr->localSizeBytes = k.local_bytes;
    const unsigned by_regs = k.regs_per_thread ? p.registers / k.regs_per_thread / p.warp_size * p.warp_size : ~0u;
    attr->maxThreadsPerBlock = int(std::min(p.max_threads_per_block, by_regs));
    attr->numRegs = int(k.regs_per_thread);
    attr->ptxVersion = int(isa);
    attr->binaryVersion = kMajor * 10 + kMinor;
    const uint64_t fixed = rt::shared_per_block(k.param_bytes, k.static_shared_bytes, 0);
    attr->maxDynamicSharedSizeBytes = int(p.shared_per_block > fixed ? p.shared_per_block - fixed : 0);
  });
}
