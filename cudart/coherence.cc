#include "cudart/coherence.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cudart/api.h"

namespace gpuvp::cudart {

namespace {

constexpr uint64_t kPage = 4096;
uint64_t page_down(uint64_t a) { return a & ~(kPage - 1); }
uint64_t page_up(uint64_t a) { return page_down(a + kPage - 1); }

// Pages mapped at device addresses -> how many mirrors use each (module variables share pages).
std::map<uint64_t, unsigned>& mapped_pages() {
  static std::map<uint64_t, unsigned> pages;
  return pages;
}

// The host pages under [dev, dev + size) at those very addresses, so that one pointer serves host
// code and kernels. Fails when the process already uses an address there.
void map_at(uint64_t dev, size_t size) {
  for (uint64_t pg = page_down(dev); pg < dev + size; pg += kPage) {
    if (mapped_pages()[pg]++) continue;
    void* want = reinterpret_cast<void*>(pg);
    void* got = mmap(want, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want) continue;
    const int err = errno;
    if (got != MAP_FAILED) munmap(got, kPage);
    mapped_pages().erase(pg);
    throw CudaError(kErrorMemoryAllocation,
                    fmt::format("host pages at the device address {:#x} cannot be mapped ({}): the process uses "
                                "that address range",
                                pg, std::strerror(err)));
  }
}

void unmap_at(uint64_t dev, size_t size) {
  for (uint64_t pg = page_down(dev); pg < dev + size; pg += kPage) {
    auto it = mapped_pages().find(pg);
    if (it == mapped_pages().end() || --it->second) continue;
    munmap(reinterpret_cast<void*>(pg), kPage);
    mapped_pages().erase(it);
  }
}

// A host access to managed memory the device holds ends the program with SIGSEGV, as on the GPU; the
// program's user is told which memory and why before the default action. Other faults go on as before.
struct sigaction previous_segv;

void on_segv(int sig, siginfo_t* info, void* ctx) {
  const uint64_t a = reinterpret_cast<uint64_t>(info->si_addr);
  for (auto& [dev, m] : State::get().mirrors)
    if (m.device_owns && a >= page_down(m.dev) && a < page_up(m.dev + m.size)) {  // (or a page it shares)
      char line[400];
      const int n = std::snprintf(line, sizeof line,
                                  "gpuvp: the host accessed managed memory at %#lx (on the pages of allocation %#lx, %zu bytes) while "
                                  "the device holds it: synchronise with the work that may use it first (this GPU "
                                  "has no concurrent managed access; docs/cuda.md, \"Managed and mapped memory\")\n",
                                  static_cast<unsigned long>(a), static_cast<unsigned long>(m.dev), m.size);
      if (n > 0 && write(2, line, size_t(std::min(n, int(sizeof line) - 1)))) {}
      break;
    }
  sigaction(SIGSEGV, &previous_segv, nullptr);  // the fault comes again, to what handled it before
  (void)sig, (void)ctx;
}

void catch_managed_faults() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGSEGV, &sa, &previous_segv) == 0;
  }();
  (void)installed;
}

bool managed(const Mirror& m) { return m.kind == Mirror::Managed || m.kind == Mirror::ManagedVar; }

// Whether the device holds managed memory on page pg (module variables share pages).
bool device_holds_page(uint64_t pg) {
  for (auto& [d, m] : State::get().mirrors)
    if (managed(m) && m.device_owns && m.dev < pg + kPage && pg < m.dev + m.size) return true;
  return false;
}

// Managed pages while the device holds memory on them: no host access (a fault, as on the GPUs CUDA
// describes). Only m's first and last pages may hold other memory (module variables share pages): one
// of them stays closed while the device holds what else is on it.
void protect_pages(const Mirror& m) {
  if (!managed(m) || !m.size) return;
  const uint64_t first = page_down(m.dev), last = page_down(m.dev + m.size - 1);
  if (m.device_owns) catch_managed_faults();
  mprotect(reinterpret_cast<void*>(first), last + kPage - first, m.device_owns ? PROT_NONE : PROT_READ | PROT_WRITE);
  if (m.device_owns) return;
  for (const uint64_t pg : {first, last})
    if (device_holds_page(pg)) mprotect(reinterpret_cast<void*>(pg), kPage, PROT_NONE);
}

// m's pages open for the library's own copy of its bytes (a neighbour the device holds closed them).
void open_pages(const Mirror& m) {
  if (!managed(m) || !m.size) return;
  const uint64_t first = page_down(m.dev);
  mprotect(reinterpret_cast<void*>(first), page_up(m.dev + m.size) - first, PROT_READ | PROT_WRITE);
}

bool inside(uint64_t start, size_t size, uint64_t p, size_t n) {
  return p >= start && p - start <= size && n <= size - (p - start);
}

// Whether no stream has work left (the NULL stream's and every created one's).
bool device_idle(rt::Runtime& rt) {
  if (!rt.stream_idle(0)) return false;
  for (auto& [handle, s] : State::get().streams)
    if (!rt.stream_idle(s->id)) return false;
  return true;
}

// Memory attached to one stream comes back (and goes, to_device) through that stream: another
// stream's work, which the NULL stream's copy would wait for, does not hold it.
void to_host(rt::Runtime& rt, Mirror& m) {
  open_pages(m);
  if (m.scope == Mirror::Single) {
    rt.memcpy_d2h_async(m.host, m.dev, m.size, m.stream);
    rt.stream_synchronize(m.stream);
  } else {
    rt.memcpy_d2h(m.host, m.dev, m.size);
  }
  m.device_owns = false;
  protect_pages(m);
}

// Whether no work that may use the mirror is left.
bool released(rt::Runtime& rt, const Mirror& m) {
  return m.scope == Mirror::Single ? rt.stream_idle(m.stream) : device_idle(rt);
}

}  // namespace

Mirror& add_mirror(rt::Runtime& rt, Mirror::Kind kind, size_t size, unsigned flags, void* host) {
  if (size > SIZE_MAX / 2) throw CudaError(kErrorMemoryAllocation, fmt::format("{} bytes", size));
  Mirror m;
  m.kind = kind;
  m.size = size;
  m.flags = flags;
  // Whole pages of their own: a page shared with another allocation could not be protected alone.
  const size_t bytes = page_up(size) + (host ? 0 : kPage);
  try {
    m.block = rt.malloc(bytes);
  } catch (const rt::RuntimeError& e) {
    throw CudaError(kErrorMemoryAllocation, e.what());
  }
  m.dev = host ? m.block : page_up(m.block);
  m.host = host ? host : reinterpret_cast<void*>(m.dev);
  try {
    if (host) {
      rt.memcpy_h2d(m.dev, host, size);  // the device's copy starts as the host's bytes
    } else {
      map_at(m.dev, size);
      m.mapped_bytes = size;
    }
  } catch (...) {
    rt.free(m.block);
    throw;
  }
  return State::get().mirrors[m.dev] = m;
}

void add_var_mirror(rt::Runtime& rt, uint64_t addr, size_t size) {
  Mirror m;
  m.kind = Mirror::ManagedVar;
  m.dev = addr;
  m.host = reinterpret_cast<void*>(addr);
  m.size = size;
  map_at(addr, size);
  m.mapped_bytes = size;
  open_pages(m);
  rt.memcpy_d2h(m.host, addr, size);  // the variable's initial value
  protect_pages(State::get().mirrors[addr] = m);
}

void remove_mirror(rt::Runtime& rt, const Mirror& m) {
  const Mirror copy = m;
  State::get().mirrors.erase(copy.dev);
  protect_pages(copy);
  if (copy.mapped_bytes) unmap_at(copy.dev, copy.mapped_bytes);
  if (copy.block) rt.free(copy.block);
}

Mirror* mirror_of(const void* p, size_t n) {
  const uint64_t a = dev(p);
  for (auto& [d, m] : State::get().mirrors)
    if (inside(m.dev, m.size, a, n) || inside(dev(m.host), m.size, a, n)) return &m;
  return nullptr;
}

void* host_side(const void* p) {
  Mirror* m = mirror_of(p, 0);
  if (!m || inside(dev(m->host), m->size, dev(p), 0)) return const_cast<void*>(p);
  return static_cast<char*>(m->host) + (dev(p) - m->dev);
}

void to_device(rt::Runtime& rt, rt::Stream launch) {
  for (auto& [dev, m] : State::get().mirrors) {
    if (m.device_owns || m.scope == Mirror::Host || (m.scope == Mirror::Single && m.stream != launch)) continue;
    open_pages(m);
    if (m.scope == Mirror::Single) rt.memcpy_h2d_async(m.dev, m.host, m.size, launch);  // the bytes taken now
    else rt.memcpy_h2d(m.dev, m.host, m.size);
    m.device_owns = true;
    protect_pages(m);
  }
}

void to_host_if_idle(rt::Runtime& rt) {
  for (auto& [dev, m] : State::get().mirrors)
    if (m.device_owns && released(rt, m)) to_host(rt, m);
}

void host_view(rt::Runtime& rt) {
  bool owned = false;
  for (auto& [dev, m] : State::get().mirrors) owned |= m.device_owns;
  if (!owned) return;
  rt.synchronize();
  for (auto& [dev, m] : State::get().mirrors)
    if (m.device_owns) to_host(rt, m);
}

void attach(Mirror& m, Mirror::Scope scope, rt::Stream stream) {
  m.scope = scope;
  m.stream = stream;
}

}  // namespace gpuvp::cudart
