// Managed memory, mapped (zero-copy) and registered host memory, __managed__ variables
// (docs/cuda.md, "Managed and mapped memory"; the coherence rules are in cudart/coherence.h).
#include <fmt/format.h>

#include "cudart/api.h"
#include "cudart/coherence.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

// [p, p + n) inside one managed allocation or __managed__ variable.
void require_managed(const void* p, size_t n) {
  const Mirror* m = mirror_of(p, n);
  require(m && (m->kind == Mirror::Managed || m->kind == Mirror::ManagedVar), kErrorInvalidValue,
          fmt::format("{} (+{} bytes) is not managed memory", p, n));
}

// A location a prefetch or an advice names: device 0 or the host.
void require_location(MemLocation loc) {
  require(loc.type == kMemLocationDevice || loc.type == kMemLocationHost || loc.type == kMemLocationHostNumaCurrent,
          kErrorInvalidValue, fmt::format("cudaMemLocation type {} is not a device or the host", loc.type));
  require(loc.type != kMemLocationDevice || loc.id == 0, kErrorInvalidDevice,
          fmt::format("device {} (the platform has device 0)", loc.id));
}

}  // namespace

CUDART_EXPORT int cudaMallocManaged(void** p, size_t n, unsigned flags) {
  return call("cudaMallocManaged", [&] {
    require(p != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    require(n > 0, kErrorInvalidValue, "size 0");
    require(flags == kMemAttachGlobal || flags == kMemAttachHost, kErrorInvalidValue,
            fmt::format("flags {:#x}: cudaMemAttachGlobal or cudaMemAttachHost expected", flags));
    std::lock_guard lk(State::get().lock);
    on_device([&](rt::Runtime& rt) {
      Mirror& m = add_mirror(rt, Mirror::Managed, n, flags);
      if (flags == kMemAttachHost) attach(m, Mirror::Host, 0);
      *p = m.host;
    });
  });
}

// The whole of managed memory moves at launches and synchronisations: a prefetch has nothing to
// move ahead of time. Its arguments are checked as CUDA checks them.
CUDART_EXPORT int cudaMemPrefetchAsync(const void* p, size_t n, MemLocation loc, unsigned flags, void* stream) {
  return call("cudaMemPrefetchAsync", [&] {
    std::lock_guard lk(State::get().lock);
    require_managed(p, n);
    require_location(loc);
    require(flags == 0, kErrorInvalidValue, fmt::format("flags {:#x}: 0 expected", flags));
    stream_of(stream);
  });
}

// Advice changes where pages live on GPUs that migrate them on demand; here nothing does.
CUDART_EXPORT int cudaMemAdvise(const void* p, size_t n, int advice, MemLocation loc) {
  return call("cudaMemAdvise", [&] {
    std::lock_guard lk(State::get().lock);
    require_managed(p, n);
    require(advice >= 1 && advice <= 6, kErrorInvalidValue, fmt::format("{} is not a cudaMemoryAdvise", advice));
    require_location(loc);
  });
}

// Which launches take the memory to the device from now on: every stream's (global), none (host),
// or those of `stream` (single); the host may use it whenever none of them has work left.
CUDART_EXPORT int cudaStreamAttachMemAsync(void* stream, void* p, size_t n, unsigned flags) {
  return call("cudaStreamAttachMemAsync", [&] {
    std::lock_guard lk(State::get().lock);
    const rt::Stream id = stream_of(stream);
    require_managed(p, n);
    require(flags == kMemAttachGlobal || flags == kMemAttachHost || flags == kMemAttachSingle, kErrorInvalidValue,
            fmt::format("flags {:#x}", flags));
    const Mirror::Scope scope = flags == kMemAttachGlobal ? Mirror::Global
                                : flags == kMemAttachHost ? Mirror::Host : Mirror::Single;
    attach(*mirror_of(p, n), scope, id);
  });
}

CUDART_EXPORT int cudaHostGetDevicePointer(void** device, void* host, unsigned flags) {
  return call("cudaHostGetDevicePointer", [&] {
    require(device != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    require(flags == 0, kErrorInvalidValue, fmt::format("flags {:#x}: 0 expected", flags));
    std::lock_guard lk(State::get().lock);
    const Mirror* m = mirror_of(host, 0);
    const uint64_t off = m ? dev(host) - dev(m->host) : 0;
    require(m && (m->kind == Mirror::Mapped || m->kind == Mirror::Registered) && dev(host) >= dev(m->host) &&
                off < m->size,
            kErrorInvalidValue,
            fmt::format("{} is not mapped host memory (cudaHostAllocMapped or cudaHostRegisterMapped)", host));
    *device = reinterpret_cast<void*>(m->dev + off);
  });
}

namespace {
// Whether [a, a + n) meets a registered range, a mirror's host side or a cudaMallocHost block (CUDA counts
// those as registered: they are page-locked already).
bool registered_overlap(uint64_t a, size_t n) {
  const auto meets = [&](uint64_t start, size_t size) { return start < a + n && a < start + size; };
  const State& s = State::get();
  for (const auto& [start, size] : s.pinned)
    if (meets(start, size)) return true;
  for (const auto& [d, m] : s.mirrors)
    if (meets(dev(m.host), m.size)) return true;
  for (const auto& [ptr, b] : s.host_allocs)
    if (meets(dev(ptr), b.size)) return true;
  return false;
}
}  // namespace

CUDART_EXPORT int cudaHostRegister(void* p, size_t n, unsigned flags) {
  return call("cudaHostRegister", [&] {
    require(p != nullptr && n > 0, kErrorInvalidValue, "NULL pointer or size 0");
    require(!(flags & ~(kHostRegisterPortable | kHostRegisterMapped | kHostRegisterIoMemory | kHostRegisterReadOnly)),
            kErrorInvalidValue, fmt::format("unknown flags {:#x}", flags));
    require(!(flags & kHostRegisterIoMemory), kErrorNotSupported, "cudaHostRegisterIoMemory: no I/O memory here");
    require(n <= UINTPTR_MAX - dev(p), kErrorInvalidValue, fmt::format("{} + {} bytes wraps around the address space", p, n));
    State& s = State::get();
    std::lock_guard lk(s.lock);
    require(!registered_overlap(dev(p), n), kErrorHostMemoryAlreadyRegistered,
            fmt::format("{} + {} bytes overlaps memory registered or page-locked already", p, n));
    if (!(flags & kHostRegisterMapped)) return void(s.pinned[dev(p)] = n);  // pinned only: copies time the same
    on_device([&](rt::Runtime& rt) { add_mirror(rt, Mirror::Registered, n, flags, p); });
  });
}

CUDART_EXPORT int cudaHostUnregister(void* p) {
  return call("cudaHostUnregister", [&] {
    State& s = State::get();
    std::lock_guard lk(s.lock);
    if (s.pinned.erase(dev(p))) return;
    Mirror* m = mirror_of(p, 0);
    require(m && m->kind == Mirror::Registered && m->host == p, kErrorHostMemoryNotRegistered,
            fmt::format("{} is not the start of registered memory", p));
    on_device([&](rt::Runtime& rt) {
      host_view(rt);  // the device's last writes reach the program's memory before it is let go
      remove_mirror(rt, *m);
    });
  });
}

// nvcc's code for a __managed__ variable: the host reads it through *host_ptr, which the runtime
// sets when the module is loaded (at __cudaInitModule, before the host's first access, or a launch).
CUDART_EXPORT void __cudaRegisterManagedVar(void** handle, void** host_ptr, char*, const char* device_name, int,
                                            size_t size, int constant, int) {
  State& s = State::get();
  std::lock_guard lk(s.lock);
  s.vars[host_ptr] = VarRecord{reinterpret_cast<FatBinaryRecord*>(handle), device_name, size, constant != 0, host_ptr};
}

CUDART_EXPORT char __cudaInitModule(void** handle) {
  return call("__cudaInitModule", [&] {
           std::lock_guard lk(State::get().lock);
           on_device([&](rt::Runtime& rt) { loaded(*reinterpret_cast<FatBinaryRecord*>(handle), rt); });
         }) == kSuccess;
}

CUDART_PER_THREAD(cudaMemPrefetchAsync_ptsz, cudaMemPrefetchAsync)
CUDART_PER_THREAD(cudaStreamAttachMemAsync_ptsz, cudaStreamAttachMemAsync)
