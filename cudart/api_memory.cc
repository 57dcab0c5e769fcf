// Memory: device and host allocations, copies and memsets in every direction, symbols.
#include <fmt/format.h>

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

// The sides a cudaMemcpyKind names, checked against what the pointers are (CUDA refuses a device
// side that is not device memory with cudaErrorInvalidValue).
std::pair<Side, Side> sides(void* dst, const void* src, size_t n, int kind) {
  require(kind >= kHostToHost && kind <= kDefault, kErrorInvalidMemcpyDirection,
          fmt::format("{} is not a cudaMemcpyKind", kind));
  const Side d = side_of(dst, n), s = side_of(src, n);
  if (kind == kDefault) return {d, s};
  const bool dst_dev = kind == kHostToDevice || kind == kDeviceToDevice;
  const bool src_dev = kind == kDeviceToHost || kind == kDeviceToDevice;
  require(!dst_dev || d != Side::Host, kErrorInvalidValue,
          fmt::format("destination {} (+{} bytes) is not device memory", dst, n));
  require(!src_dev || s != Side::Host, kErrorInvalidValue,
          fmt::format("source {} (+{} bytes) is not device memory", src, n));
  require(dst_dev || dst != nullptr, kErrorInvalidValue, "destination is NULL");
  require(src_dev || src != nullptr, kErrorInvalidValue, "source is NULL");
  // Managed or mapped memory stays a mirror on its host side too: the device may own it.
  return {dst_dev || d == Side::Mirror ? d : Side::Host, src_dev || s == Side::Mirror ? s : Side::Host};
}

void read_device(rt::Runtime& rt, Side s, void* dst, uint64_t src, size_t n) {
  if (s == Side::Symbol) return rt.read_symbol(dst, src, n);
  rt.memcpy_d2h(dst, src, n);
}

void write_device(rt::Runtime& rt, Side s, uint64_t dst, const void* src, size_t n) {
  if (s == Side::Symbol) return rt.write_symbol(dst, src, n);
  rt.memcpy_h2d(dst, src, n);
}

// The copy itself, on the simulation's thread.
void copy_on_device(rt::Runtime& rt, void* dst, Side d, const void* src, Side s, size_t n, rt::Stream st, bool async) {
  if (async && d == Side::Alloc && s == Side::Host) return rt.memcpy_h2d_async(dev(dst), src, n, st);
  if (async && d == Side::Host && s == Side::Alloc) return rt.memcpy_d2h_async(dst, dev(src), n, st);
  rt.stream_synchronize(st);
  if (d == Side::Host && s == Side::Host) return void(std::memmove(dst, src, n));
  if (s == Side::Host) return write_device(rt, d, dev(dst), src, n);
  if (d == Side::Host) return read_device(rt, s, dst, dev(src), n);
  std::vector<uint8_t> stage(n);  // device to device: through the host, as the C++ API offers
  read_device(rt, s, stage.data(), dev(src), n);
  write_device(rt, d, dev(dst), stage.data(), n);
}

// A copy in stream `st`: through the copy engine between host and allocations when `async`, else
// after the stream's work (symbols, device to device, host to host). Managed or mapped memory is
// copied as the host memory it is once the device has handed it back (host_view).
void copy(void* dst, const void* src, size_t n, int kind, rt::Stream st, bool async) {
  auto [d, s] = sides(dst, src, n, kind);
  if (n == 0) return;
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
  const Side d = side_of(dst, n);
  require(d == Side::Alloc || d == Side::Mirror, kErrorInvalidValue,
          fmt::format("memset of {} (+{} bytes): not device memory from cudaMalloc or managed memory", dst, n));
  if (n == 0) return;
  on_device([&](rt::Runtime& rt) {
    rt.stream_synchronize(st);
    if (d == Side::Alloc) return rt.memset(dev(dst), uint8_t(value), n);
    host_view(rt);
    std::memset(host_side(dst), value, n);
  });
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
    *p = nullptr;
    if (n == 0) return;
    std::lock_guard lk(State::get().lock);
    uint64_t a = 0;
    try {
      on_device([&](rt::Runtime& rt) { a = rt.malloc(n); });
    } catch (const rt::RuntimeError& e) {
      throw CudaError(kErrorMemoryAllocation, e.what());
    }
    State::get().device_allocs[a] = n;
    *p = reinterpret_cast<void*>(a);
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
    *p = std::aligned_alloc(4096, (std::max<size_t>(n, 1) + 4095) / 4096 * 4096);
    require(*p != nullptr, kErrorMemoryAllocation, fmt::format("{} bytes of host memory", n));
    State::get().host_allocs[*p] = HostBlock{n, flags};
  });
}

CUDART_EXPORT int cudaMallocHost(void** p, size_t n) { return cudaHostAlloc(p, n, 0); }

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
    copy(dst, src, n, kind, 0, false);
  });
}

CUDART_EXPORT int cudaMemcpyAsync(void* dst, const void* src, size_t n, int kind, void* stream) {
  return call("cudaMemcpyAsync", [&] {
    std::lock_guard lk(State::get().lock);
    copy(dst, src, n, kind, stream_of(stream), true);
  });
}

CUDART_EXPORT int cudaMemset(void* dst, int value, size_t n) {
  return call("cudaMemset", [&] {
    std::lock_guard lk(State::get().lock);
    set(dst, value, n, 0);
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
    symbol_copy(symbol, const_cast<void*>(src), n, offset, kind, true, 0, false);
  }, kErrorInvalidSymbol);
}

CUDART_EXPORT int cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, int kind) {
  return call("cudaMemcpyFromSymbol", [&] {
    std::lock_guard lk(State::get().lock);
    symbol_copy(symbol, dst, n, offset, kind, false, 0, false);
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

CUDART_ALIAS(cudaMemcpy_ptds, cudaMemcpy)
CUDART_ALIAS(cudaMemcpyAsync_ptsz, cudaMemcpyAsync)
CUDART_ALIAS(cudaMemset_ptds, cudaMemset)
CUDART_ALIAS(cudaMemsetAsync_ptsz, cudaMemsetAsync)
CUDART_ALIAS(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol)
CUDART_ALIAS(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol)
CUDART_ALIAS(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync)
CUDART_ALIAS(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync)
