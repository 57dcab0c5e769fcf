// What a pointer is: cudaPointerGetAttributes and cudaHostGetFlags, from the allocations and
// registrations the library keeps (State), as CUDA reports them on a device without unified
// addressing: a device pointer only where a kernel can reach the memory (docs/cuda.md).
#include <fmt/format.h>

#include <algorithm>

#include "cudart/api.h"
#include "cudart/coherence.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

// The unmapped cudaMallocHost/cudaHostAlloc block holding the byte at p.
const HostBlock* host_block(const void* p) {
  const auto& blocks = State::get().host_allocs;
  auto it = blocks.upper_bound(p);
  if (it == blocks.begin()) return nullptr;
  --it;
  return dev(p) - dev(it->first) < std::max<size_t>(it->second.size, 1) ? &it->second : nullptr;
}

void* at(uint64_t address) { return reinterpret_cast<void*>(address); }

// Managed memory is both sides' at one address; mapped and registered memory is host memory with a
// device alias (the same address for cudaHostAllocMapped, a device buffer for cudaHostRegisterMapped).
PointerAttributes of_mirror(const Mirror& m, const void* p) {
  const bool host_side = dev(p) >= dev(m.host) && dev(p) - dev(m.host) < m.size;
  const uint64_t off = host_side ? dev(p) - dev(m.host) : dev(p) - m.dev;
  const bool managed = m.kind == Mirror::Managed || m.kind == Mirror::ManagedVar;
  return {managed ? kMemoryManaged : kMemoryHost, 0, at(m.dev + off), at(dev(m.host) + off), {}};
}

PointerAttributes attributes_of(const void* p) {
  State& s = State::get();
  if (in_ranges(s.device_allocs, dev(p), 1) || in_ranges(s.symbols, dev(p), 1))
    return {kMemoryDevice, 0, const_cast<void*>(p), nullptr, {}};
  if (const Mirror* m = mirror_of(p, 1)) return of_mirror(*m, p);
  // Pinned but not mapped: host memory no kernel reaches (no unified addressing).
  if (in_ranges(s.pinned, dev(p), 1) || host_block(p)) return {kMemoryHost, 0, nullptr, const_cast<void*>(p), {}};
  return {kMemoryUnregistered, kInvalidDeviceId, nullptr, const_cast<void*>(p), {}};
}

}  // namespace

CUDART_EXPORT int cudaPointerGetAttributes(PointerAttributes* attributes, const void* p) {
  return call("cudaPointerGetAttributes", [&] {
    require(attributes != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    *attributes = attributes_of(p);
  });
}

// The flags given to cudaHostAlloc (0 for cudaMallocHost), for any address inside the block.
CUDART_EXPORT int cudaHostGetFlags(unsigned* flags, void* p) {
  return call("cudaHostGetFlags", [&] {
    require(flags != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    if (const HostBlock* b = host_block(p)) return void(*flags = b->flags);
    const Mirror* m = mirror_of(p, 1);
    require(m && m->kind == Mirror::Mapped, kErrorInvalidValue,
            fmt::format("{} is not memory from cudaHostAlloc or cudaMallocHost", p));
    *flags = m->flags;
  });
}
