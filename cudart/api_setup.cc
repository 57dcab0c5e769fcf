// Setup calls common programs make before their work (the CUDA samples' asyncAPI and simpleStreams,
// helper_cuda.h): device flags, limits, the cache preference, the profiler's range, device choice. The
// platform has nothing they change: each checks its arguments as CUDA does and keeps what it is given
// for its Get counterpart (docs/cuda.md, "Setup calls").
#include <fmt/format.h>

#include "cudart/api.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

// CUDA's value of a limit nobody set: the preset's stack and printf FIFO, CUDA's 8 MiB heap (the
// platform has no device malloc; the value is only kept).
size_t default_limit(int limit) {
  if (limit == kLimitStackSize) return Session::get().props().stack_bytes;
  if (limit == kLimitPrintfFifoSize) return size_t(Session::get().config().i("host.printf_fifo_bytes"));
  return size_t{8} << 20;
}

void check_limit(int limit) {
  require(limit == kLimitStackSize || limit == kLimitPrintfFifoSize || limit == kLimitMallocHeapSize,
          kErrorUnsupportedLimit, fmt::format("cudaLimit {} (the platform keeps the stack, printf FIFO and heap sizes)", limit));
}

}  // namespace

CUDART_EXPORT int cudaSetDeviceFlags(unsigned flags) {
  return call("cudaSetDeviceFlags", [&] {
    const unsigned schedule = flags & kDeviceScheduleMask;
    require(!(flags & ~(kDeviceScheduleMask | kDeviceMapHost | kDeviceLmemResizeToMax | kDeviceSyncMemops)) &&
                (schedule == 0 || schedule == 1 || schedule == 2 || schedule == 4),
            kErrorInvalidValue, fmt::format("device flags {:#x}", flags));
    std::lock_guard lk(State::get().lock);
    State::get().device_flags = flags;
  });
}

// cudaDeviceMapHost is implicit for the runtime: CUDA reports it whatever was set.
CUDART_EXPORT int cudaGetDeviceFlags(unsigned* flags) {
  return call("cudaGetDeviceFlags", [&] {
    require(flags != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    *flags = State::get().device_flags | kDeviceMapHost;
  });
}

CUDART_EXPORT int cudaDeviceSetCacheConfig(int config) {
  return call("cudaDeviceSetCacheConfig", [&] {
    require(config >= 0 && config <= kFuncCachePreferEqual, kErrorInvalidValue, fmt::format("cache configuration {}", config));
    std::lock_guard lk(State::get().lock);
    State::get().cache_config = config;
  });
}

CUDART_EXPORT int cudaDeviceGetCacheConfig(int* config) {
  return call("cudaDeviceGetCacheConfig", [&] {
    require(config != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    *config = State::get().cache_config;
  });
}

CUDART_EXPORT int cudaDeviceSetLimit(int limit, size_t value) {
  return call("cudaDeviceSetLimit", [&] {
    check_limit(limit);
    std::lock_guard lk(State::get().lock);
    if (limit == kLimitStackSize) {
      const uint64_t most = Session::get().props().local_bytes;
      require(value <= most, kErrorInvalidValue, fmt::format("a stack of {} bytes per thread (local memory holds {})", value, most));
      on_device([&](rt::Runtime& rt) { rt.set_stack_bytes(uint32_t(value)); });  // later launches' threads
    }
    State::get().limits[limit] = value;
  });
}

CUDART_EXPORT int cudaDeviceGetLimit(size_t* value, int limit) {
  return call("cudaDeviceGetLimit", [&] {
    require(value != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    check_limit(limit);
    std::lock_guard lk(State::get().lock);
    auto it = State::get().limits.find(limit);
    *value = it != State::get().limits.end() ? it->second : default_limit(limit);
  });
}

// Profiling ranges mark nothing here: the platform's statistics cover the whole run (docs/cuda.md).
CUDART_EXPORT int cudaProfilerStart() {
  return call("cudaProfilerStart", [] {});
}

CUDART_EXPORT int cudaProfilerStop() {
  return call("cudaProfilerStop", [] {});
}

// One device: it is the best match for any properties.
CUDART_EXPORT int cudaChooseDevice(int* device, const void* prop) {
  return call("cudaChooseDevice", [&] {
    require(device != nullptr && prop != nullptr, kErrorInvalidValue, "pointer to the result or the properties is NULL");
    *device = 0;
  });
}
