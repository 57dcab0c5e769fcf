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

// The global memory as CUDA describes DRAM. The platform models no bus width: 64 bits per L2 slice (the
// presets' chips have one 64-bit channel per slice: TK1 1, TX2 2, GTX 480 6), and the clock that makes
// two transfers per clock over that width the memory's bandwidth (the dram model's, else
// gmem.bytes_per_cycle per GPU clock): bandwidth = 2 x clock x width / 8, CUDA's formula.
struct DramFigures {
  unsigned bus_bits;
  int clock_khz;
};

DramFigures dram_figures() {
  const Config& c = Session::get().config();
  const unsigned bits = 64 * unsigned(c.i("l2.slices"));
  const double bytes_per_s = c.s("gmem.model") == "dram"
                                 ? c.f("gmem.bandwidth_gbps") * 1e9
                                 : double(c.i("gmem.bytes_per_cycle")) * c.f("gpu.clock_mhz") * 1e6;
  return {bits, int(bytes_per_s / (2.0 * bits / 8) / 1e3 + 0.5)};
}

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
    case kAttrMaxPitch: return INT32_MAX;  // cudaMemcpy2D's pitches
    case kAttrGpuOverlap: return Session::get().concurrent() ? 1 : 0;  // copies beside kernels: the copy engine
    case kAttrKernelExecTimeout: case kAttrEccEnabled: case kAttrTccDriver: return 0;
    case kAttrPciBusId: case kAttrPciDeviceId: case kAttrPciDomainId: return 0;  // integrated: no PCI
    case kAttrCooperativeLaunch: return 0;
    case kAttrMaxSharedMemoryPerBlockOptin: return int(p.shared_per_block);
    case kAttrMemoryClockRate: return dram_figures().clock_khz;
    case kAttrGlobalMemoryBusWidth: return int(dram_figures().bus_bits);
    case kAttrL2CacheSize: return int(Session::get().config().i("l2.size_kib") * 1024);
    case kAttrTextureAlignment: return 512;  // CUDA's on these GPUs (the platform has no textures)
    case kAttrStreamPrioritiesSupported: return 1;
    // Global loads in the L1 as the preset's l1d.cache_global says; local memory always there.
    case kAttrGlobalL1CacheSupported: return Session::get().config().b("sm.l1d.cache_global") ? 1 : 0;
    case kAttrLocalL1CacheSupported: return 1;
    case kAttrHostNativeAtomicSupported: return 0;
    case kAttrMemoryPoolsSupported: return 0;  // cudaMallocAsync and pools are not supported: samples skip them
    case kAttrHostRegisterSupported: return 1;  // cudaHostRegister
    case kAttrMaxPersistingL2CacheSize: return 0;  // no persisting L2 accesses (Ampere's)
    case kAttrReservedSharedMemoryPerBlock: return 0;  // none reserved before Ampere: all of it the kernel's
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
  d.streamPrioritiesSupported = attribute(kAttrStreamPrioritiesSupported);
  d.globalL1CacheSupported = attribute(kAttrGlobalL1CacheSupported);
  d.localL1CacheSupported = attribute(kAttrLocalL1CacheSupported);
  d.textureAlignment = attribute(kAttrTextureAlignment);
  d.sharedMemPerMultiprocessor = p.shared_bytes;
  d.regsPerMultiprocessor = attribute(kAttrMaxRegistersPerMultiprocessor);
  d.sharedMemPerBlockOptin = p.shared_per_block;
  d.maxBlocksPerMultiProcessor = attribute(kAttrMaxBlocksPerMultiprocessor);
  d.memoryBusWidth = attribute(kAttrGlobalMemoryBusWidth);
  d.memPitch = size_t(attribute(kAttrMaxPitch));
  d.l2CacheSize = attribute(kAttrL2CacheSize);
}

KernelRecord& kernel_record(const void* func) {
  State& s = State::get();
  auto it = s.kernels.find(func);
  require(it != s.kernels.end(), kErrorInvalidDeviceFunction, fmt::format("{} is not a registered kernel", func));
  return *it->second;
}

// The kernel's assembled description (its module loaded).
ptx::KernelInfo kernel_info(const void* func, unsigned* ptx_isa = nullptr, size_t* const_bytes = nullptr) {
  const KernelRecord& k = kernel_record(func);
  ptx::KernelInfo info;
  on_device([&](rt::Runtime& rt) {
    const rt::Module& m = loaded(*k.fatbin, rt);
    check_runnable(*k.fatbin, k.name);
    const ptx::KernelInfo* ki = m.image->find_kernel(k.name);
    require(ki != nullptr, kErrorInvalidDeviceFunction, fmt::format("kernel {} is not in its module", k.name));
    info = *ki;
    if (const_bytes) *const_bytes = m.image->const_data.size();
  });
  if (ptx_isa) *ptx_isa = k.fatbin->ptx_isa;
  return info;
}

// The dynamic shared memory a block of k can have: what the SM's per-block limit leaves beside its
// static shared memory and parameters.
uint32_t dynamic_shared_room(const ptx::KernelInfo& k) {
  const uint64_t fixed = rt::shared_per_block(k.param_bytes, k.static_shared_bytes, 0);
  return uint32_t(props().shared_per_block > fixed ? props().shared_per_block - fixed : 0);
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
    for (auto& [a, m] : State::get().mirrors) used += m.block ? m.size : 0;  // managed and mapped: device copies
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
    // 0, as CUDA's calculator gives, for a block the kernel cannot be launched with (its
    // __launch_bounds__ or the device's limit).
    const unsigned bound = k.thread_limit() ? k.thread_limit() : props().max_threads_per_block;
    *blocks = unsigned(block_size) > std::min(bound, props().max_threads_per_block)
                  ? 0
                  : int(rt::blocks_that_fit(props(), uint64_t(block_size), k.regs_per_thread, shmem, nullptr));
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
    const unsigned bounds = k.thread_limit() ? k.thread_limit() : ~0u;  // __launch_bounds__
    attr->maxThreadsPerBlock = int(std::min({p.max_threads_per_block, by_regs, bounds}));
    attr->numRegs = int(k.regs_per_thread);
    attr->ptxVersion = int(isa);
    attr->binaryVersion = kMajor * 10 + kMinor;
    attr->maxDynamicSharedSizeBytes = int(kernel_record(func).max_dynamic_shared.value_or(dynamic_shared_room(k)));
  });
}

// Only the dynamic shared memory limit changes anything (launches asking for more are refused); the
// carveout is the preset's (sm.l1_shared_kib), accepted as a preference CUDA may ignore too.
CUDART_EXPORT int cudaFuncSetAttribute(const void* func, int attr, int value) {
  return call("cudaFuncSetAttribute", [&] {
    std::lock_guard lk(State::get().lock);
    KernelRecord& rec = kernel_record(func);
    if (attr == kFuncAttrPreferredSharedMemoryCarveout)
      return require(value >= -1 && value <= 100, kErrorInvalidValue, fmt::format("carveout {}%", value));
    require(attr == kFuncAttrMaxDynamicSharedMemorySize, kErrorInvalidValue,
            fmt::format("function attribute {} is not supported", attr));
    const uint32_t room = dynamic_shared_room(kernel_info(func));
    require(value >= 0 && uint32_t(value) <= room, kErrorInvalidValue,
            fmt::format("{} bytes of dynamic shared memory for {}: the SM leaves it at most {}", value, rec.name, room));
    rec.max_dynamic_shared = uint32_t(value);
  });
}

// The L1/shared split is the preset's: the preference is checked and kept by no one, as CUDA may ignore it.
CUDART_EXPORT int cudaFuncSetCacheConfig(const void* func, int config) {
  return call("cudaFuncSetCacheConfig", [&] {
    require(config >= 0 && config <= kFuncCachePreferEqual, kErrorInvalidValue, fmt::format("cache configuration {}", config));
    std::lock_guard lk(State::get().lock);
    kernel_record(func);
  });
}
