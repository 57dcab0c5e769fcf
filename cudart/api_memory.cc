// Memory: device and host allocations, copies and memsets in every direction, symbols.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cudart/api.h"
#include "cudart/coherence.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

enum class Side { Host, Alloc, Symbol, Mirror };

// Where [p, p + n) is: a cudaMalloc allocation, a module variable, managed or mapped memory (either of
// its addresses), else host memory.
Side side_of(const void* p, size_t n) {
  State& s = State::get();
  if (in_ranges(s.device_allocs, dev(p), n)) return Side::Alloc;
  if (mirror_of(p, n)) return Side::Mirror;
  if (in_ranges(s.symbols, dev(p), n)) return Side::Symbol;
  return Side::Host;
}

// A range a copy or a memset names as device memory: an allocation, a module variable (its address from
// cudaGetSymbolAddress too), managed or mapped memory. CUDA refuses anything else with cudaErrorInvalidValue.
Side device_side(const void* p, size_t n, const char* role) {
  const Side s = side_of(p, n);
  require(s != Side::Host, kErrorInvalidValue, fmt::format("{} {} (+{} bytes) is not device memory", role, p, n));
  return s;
}

// The sides a cudaMemcpyKind names, checked against what the pointers are.
std::pair<Side, Side> sides(void* dst, const void* src, size_t n, int kind) {
  require(kind >= kHostToHost && kind <= kDefault, kErrorInvalidMemcpyDirection,
          fmt::format("{} is not a cudaMemcpyKind", kind));
  if (kind == kDefault) return {side_of(dst, n), side_of(src, n)};
  const bool dst_dev = kind == kHostToDevice || kind == kDeviceToDevice;
  const bool src_dev = kind == kDeviceToHost || kind == kDeviceToDevice;
  const Side d = dst_dev ? device_side(dst, n, "destination") : side_of(dst, n);
  const Side s = src_dev ? device_side(src, n, "source") : side_of(src, n);
  require(dst_dev || dst != nullptr, kErrorInvalidValue, "destination is NULL");
  require(src_dev || src != nullptr, kErrorInvalidValue, "source is NULL");
  // Managed or mapped memory stays a mirror on its host side too: the device may own it.
  return {dst_dev || d == Side::Mirror ? d : Side::Host, src_dev || s == Side::Mirror ? s : Side::Host};
}

// The copy itself, on the simulation's thread. Between the host and an allocation it goes through the
// copy engine in its stream (a synchronous one waited for; in the NULL stream, as the dispatcher orders
// that stream's copies); between two allocations, as two such copies through the host. Any other
// (symbols, host to host) waits for the work a call in its stream waits for (wait_as_in), then
// completes before the call returns.
void copy_on_device(rt::Runtime& rt, void* dst, Side d, const void* src, Side s, size_t n, rt::Stream st, bool async) {
  const bool engine = (d == Side::Alloc && s == Side::Host) || (d == Side::Host && s == Side::Alloc);
  if (engine && (async || st != 0)) {
    if (d == Side::Alloc) rt.memcpy_h2d_async(dev(dst), src, n, st);
    else rt.memcpy_d2h_async(dst, dev(src), n, st);
    return async ? void() : rt.stream_synchronize(st);
  }
  if (engine) {
    rt.stream_synchronize(0);
    return d == Side::Alloc ? rt.memcpy_h2d(dev(dst), src, n) : rt.memcpy_d2h(dst, dev(src), n);
  }
  std::vector<uint8_t> stage(n);
  if (d == Side::Alloc && s == Side::Alloc) {
    copy_on_device(rt, stage.data(), Side::Host, src, s, n, st, false);
    return copy_on_device(rt, dst, d, stage.data(), Side::Host, n, st, false);
  }
  wait_as_in(rt, st);
  if (d == Side::Host && s == Side::Host) return void(std::memmove(dst, src, n));
  if (s != Side::Host) rt.read_unordered(d == Side::Host ? dst : stage.data(), dev(src), n);
  if (d != Side::Host) rt.write_unordered(dev(dst), s == Side::Host ? src : stage.data(), n);
}

// A copy in stream `st`: through the copy engine between host and allocations when `async`, else
// after the stream's work (symbols, device to device, host to host). Managed or mapped memory is
// copied as the host memory it is once the device has handed it back (host_view).
// Page-locked host memory: cudaMallocHost/cudaHostAlloc blocks and registered ranges.
bool pinned(const void* p, size_t n) {
  State& s = State::get();
  if (in_ranges(s.pinned, dev(p), n)) return true;
  auto it = s.host_allocs.upper_bound(p);
  if (it == s.host_allocs.begin()) return false;
  --it;
  const uint64_t off = dev(p) - dev(it->first);
  return off <= it->second.size && n <= it->second.size - off;
}

void copy(void* dst, const void* src, size_t n, int kind, rt::Stream st, bool async) {
  if (n == 0) return;  // whatever the pointers, as CUDA
  auto [d, s] = sides(dst, src, n, kind);
  // CUDA: a copy from the device into pageable memory has completed when the call returns.
  if (async && d == Side::Host && s == Side::Alloc && !pinned(dst, n)) async = false;
  const bool mirrored = d == Side::Mirror || s == Side::Mirror;
  if (d == Side::Mirror) d = Side::Host, dst = host_side(dst);
  if (s == Side::Mirror) s = Side::Host, src = host_side(src);
  on_device([&, d = d, s = s](rt::Runtime& rt) {
    if (mirrored) host_view(rt);
    copy_on_device(rt, dst, d, src, s, n, st, async);
    if (!async) to_host_if_idle(rt);  // a synchronous copy that left the device idle
  });
}

void set(void* dst, int value, size_t n, rt::Stream st) {
  if (n == 0) return;  // whatever dst is, as CUDA
  const Side d = device_side(dst, n, "memset of");
  on_device([&](rt::Runtime& rt) {
    wait_as_in(rt, st);
    if (d != Side::Mirror) return rt.write_unordered(dev(dst), std::vector<uint8_t>(n, uint8_t(value)).data(), n);
    host_view(rt);
    std::memset(host_side(dst), value, n);
  });
}

// cudaMalloc's allocation (NULL for 0 bytes), recorded as the program's.
void* device_alloc(size_t n) {
  if (n == 0) return nullptr;
  std::lock_guard lk(State::get().lock);
  uint64_t a = 0;
  try {
    on_device([&](rt::Runtime& rt) { a = rt.malloc(n); });
  } catch (const rt::RuntimeError& e) {
    throw CudaError(kErrorMemoryAllocation, e.what());
  }
  State::get().device_allocs[a] = n;
  return reinterpret_cast<void*>(a);
}

// `height` rows of `width` bytes, each a copy(): rows that touch form one.
void copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, int kind,
             rt::Stream st, bool async) {
  require(width <= dpitch && width <= spitch && dpitch <= INT32_MAX && spitch <= INT32_MAX, kErrorInvalidPitchValue,
          fmt::format("rows of {} bytes with pitches {} and {} (at least the width, at most 2^31 - 1)", width, dpitch, spitch));
  require(height == 0 || std::max(dpitch, spitch) <= SIZE_MAX / height, kErrorInvalidValue,
          fmt::format("{} rows of pitch {} and {} bytes exceed the address space", height, dpitch, spitch));
  if (width == dpitch && width == spitch) return copy(dst, src, width * height, kind, st, async);
  for (size_t r = 0; r < height; ++r)
    copy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width, kind, st, async);
}

// The device address of a registered __device__ or __constant__ variable (its module loaded).
uint64_t symbol_address(const void* symbol, VarRecord** rec = nullptr) {
  State& s = State::get();
  auto it = s.vars.find(symbol);
  require(it != s.vars.end(), kErrorInvalidSymbol, fmt::format("{} is not a registered device variable", symbol));
  uint64_t addr = 0;
  on_device([&](rt::Runtime& rt) {
    const rt::Module& m = loaded(*it->second.fatbin, rt);
    for (auto* vars : {&m.image->globals, &m.image->consts})
      for (auto& v : *vars)
        if (v.name == it->second.name) addr = v.address;
  });
  require(addr != 0, kErrorInvalidSymbol, fmt::format("variable {} is not in its module's PTX", it->second.name));
  if (rec) *rec = &it->second;
  return addr;
}

void symbol_copy(const void* symbol, void* host, size_t n, size_t offset, int kind, bool to, rt::Stream st,
                 bool async) {
  VarRecord* v = nullptr;
  const uint64_t addr = symbol_address(symbol, &v);
  require(offset <= v->size && n <= v->size - offset, kErrorInvalidValue,
          fmt::format("{} bytes at offset {} of {} ({} bytes)", n, offset, v->name, v->size));
  const int want = to ? kHostToDevice : kDeviceToHost;
  require(kind == want || kind == kDeviceToDevice || kind == kDefault, kErrorInvalidMemcpyDirection,
          fmt::format("cudaMemcpyKind {} for a symbol copy", kind));
  void* sym = reinterpret_cast<void*>(addr + offset);
  if (to) copy(sym, host, n, kind, st, async);
  else copy(host, sym, n, kind, st, async);
}

}  // namespace

CUDART_EXPORT int cudaMalloc(void** p, size_t n) {
  return call("cudaMalloc", [&] {
    require(p != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    *p = device_alloc(n);
  });
}

// Rows of `width` bytes `pitch` bytes apart, the pitch a multiple of 512 bytes (what CUDA gives on
// the GPUs of the reported compute capability).
CUDART_EXPORT int cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  return call("cudaMallocPitch", [&] {
    require(p != nullptr && pitch != nullptr, kErrorInvalidValue, "pointer to a result is NULL");
    constexpr size_t kPitchAlign = 512;
    require(width <= SIZE_MAX / 2, kErrorMemoryAllocation, fmt::format("rows of {} bytes", width));
    *pitch = (std::max<size_t>(width, 1) + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
    require(height == 0 || *pitch <= SIZE_MAX / height, kErrorMemoryAllocation, fmt::format("{} rows of {} bytes", height, *pitch));
    *p = device_alloc(*pitch * height);
  });
}

CUDART_EXPORT int cudaFree(void* p) {
  return call("cudaFree", [&] {
    if (!p) return;
    State& s = State::get();
    std::lock_guard lk(s.lock);
    auto managed = s.mirrors.find(dev(p));
    if (managed != s.mirrors.end() && managed->second.kind == Mirror::Managed)
      return on_device([&](rt::Runtime& rt) { remove_mirror(rt, managed->second); });
    require(s.device_allocs.count(dev(p)), kErrorInvalidValue, fmt::format("{} is not an allocation's start", p));
    on_device([&](rt::Runtime& rt) { rt.free(dev(p)); });
    s.device_allocs.erase(dev(p));
  });
}

CUDART_EXPORT int cudaHostAlloc(void** p, size_t n, unsigned flags) {
  return call("cudaHostAlloc", [&] {
    require(p != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    require(!(flags & ~(kHostAllocPortable | kHostAllocMapped | kHostAllocWriteCombined)), kErrorInvalidValue,
            fmt::format("unknown flags {:#x}", flags));
    std::lock_guard lk(State::get().lock);
    if (flags & kHostAllocMapped) {  // host pages at a device address: one pointer for both sides
      require(n > 0, kErrorInvalidValue, "cudaHostAllocMapped of 0 bytes");
      return on_device([&](rt::Runtime& rt) { *p = add_mirror(rt, Mirror::Mapped, n, flags).host; });
    }
    // Page-aligned as the driver's pinned allocations; on the platform every copy engine transfer
    // takes the same simulated time from pinned or pageable memory.
    require(n <= SIZE_MAX / 2, kErrorMemoryAllocation, fmt::format("{} bytes of host memory", n));
    *p = std::aligned_alloc(4096, (std::max<size_t>(n, 1) + 4095) / 4096 * 4096);
    require(*p != nullptr, kErrorMemoryAllocation, fmt::format("{} bytes of host memory", n));
    State::get().host_allocs[*p] = HostBlock{n, flags};
  });
}

CUDART_EXPORT int cudaMallocHost(void** p, size_t n) {
  return served_as("cudaMallocHost", [&] { return cudaHostAlloc(p, n, 0); });
}

CUDART_EXPORT int cudaFreeHost(void* p) {
  return call("cudaFreeHost", [&] {
    if (!p) return;
    State& s = State::get();
    std::lock_guard lk(s.lock);
    auto mapped = s.mirrors.find(dev(p));
    if (mapped != s.mirrors.end() && mapped->second.kind == Mirror::Mapped)
      return on_device([&](rt::Runtime& rt) { remove_mirror(rt, mapped->second); });
    require(s.host_allocs.erase(p) == 1, kErrorInvalidValue, fmt::format("{} is not from cudaMallocHost", p));
    std::free(p);
  });
}

CUDART_EXPORT int cudaMemcpy(void* dst, const void* src, size_t n, int kind) {
  return call("cudaMemcpy", [&] {
    std::lock_guard lk(State::get().lock);
    copy(dst, src, n, kind, default_stream(), false);
  });
}

CUDART_EXPORT int cudaMemcpyAsync(void* dst, const void* src, size_t n, int kind, void* stream) {
  return call("cudaMemcpyAsync", [&] {
    std::lock_guard lk(State::get().lock);
    copy(dst, src, n, kind, stream_of(stream), true);
  });
}

CUDART_EXPORT int cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                               int kind) {
  return call("cudaMemcpy2D", [&] {
    std::lock_guard lk(State::get().lock);
    copy_2d(dst, dpitch, src, spitch, width, height, kind, default_stream(), false);
  });
}

CUDART_EXPORT int cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                    size_t height, int kind, void* stream) {
  return call("cudaMemcpy2DAsync", [&] {
    std::lock_guard lk(State::get().lock);
    copy_2d(dst, dpitch, src, spitch, width, height, kind, stream_of(stream), true);
  });
}

CUDART_EXPORT int cudaMemset(void* dst, int value, size_t n) {
  return call("cudaMemset", [&] {
    std::lock_guard lk(State::get().lock);
    set(dst, value, n, default_stream());
  });
}

CUDART_EXPORT int cudaMemsetAsync(void* dst, int value, size_t n, void* stream) {
  return call("cudaMemsetAsync", [&] {
    std::lock_guard lk(State::get().lock);
    set(dst, value, n, stream_of(stream));
  });
}

CUDART_EXPORT int cudaMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset, int kind) {
  return call("cudaMemcpyToSymbol", [&] {
    std::lock_guard lk(State::get().lock);
    symbol_copy(symbol, const_cast<void*>(src), n, offset, kind, true, default_stream(), false);
  }, kErrorInvalidSymbol);
}

CUDART_EXPORT int cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, int kind) {
  return call("cudaMemcpyFromSymbol", [&] {
    std::lock_guard lk(State::get().lock);
    symbol_copy(symbol, dst, n, offset, kind, false, default_stream(), false);
  }, kErrorInvalidSymbol);
}

CUDART_EXPORT int cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t n, size_t offset, int kind,
                                          void* stream) {
  return call("cudaMemcpyToSymbolAsync", [&] {
    std::lock_guard lk(State::get().lock);
    symbol_copy(symbol, const_cast<void*>(src), n, offset, kind, true, stream_of(stream), true);
  }, kErrorInvalidSymbol);
}

CUDART_EXPORT int cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t n, size_t offset, int kind,
                                            void* stream) {
  return call("cudaMemcpyFromSymbolAsync", [&] {
    std::lock_guard lk(State::get().lock);
    symbol_copy(symbol, dst, n, offset, kind, false, stream_of(stream), true);
  }, kErrorInvalidSymbol);
}

CUDART_EXPORT int cudaGetSymbolAddress(void** p, const void* symbol) {
  return call("cudaGetSymbolAddress", [&] {
    require(p != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    *p = reinterpret_cast<void*>(symbol_address(symbol));
  }, kErrorInvalidSymbol);
}

CUDART_EXPORT int cudaGetSymbolSize(size_t* size, const void* symbol) {
  return call("cudaGetSymbolSize", [&] {
    require(size != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    State& s = State::get();
    std::lock_guard lk(s.lock);
    auto it = s.vars.find(symbol);
    require(it != s.vars.end(), kErrorInvalidSymbol, fmt::format("{} is not a registered device variable", symbol));
    *size = it->second.size;
  });
}

CUDART_PER_THREAD(cudaMemcpy_ptds, cudaMemcpy)
CUDART_PER_THREAD(cudaMemcpyAsync_ptsz, cudaMemcpyAsync)
CUDART_PER_THREAD(cudaMemset_ptds, cudaMemset)
CUDART_PER_THREAD(cudaMemcpy2D_ptds, cudaMemcpy2D)
CUDART_PER_THREAD(cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync)
CUDART_PER_THREAD(cudaMemsetAsync_ptsz, cudaMemsetAsync)
CUDART_PER_THREAD(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol)
CUDART_PER_THREAD(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol)
CUDART_PER_THREAD(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync)
CUDART_PER_THREAD(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync)
