#pragma once
// A caller of CacheCore as a cache model will be, without time: a next level (a byte array over
// [kBase, kBase + 64 KiB) whose 32-bit word at address a holds a, so every expected value is an
// address) that answers every fetch at once, takes every write-back and every forwarded write.
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "models/cache/cache_core.h"

namespace cache_test {

constexpr uint64_t kBase = 0x1000'0000;

// 4 sets x 2 ways of 128-byte lines of four 32-byte sectors (1 KiB). Lines kBase, kBase + 0x200 and
// kBase + 0x400 all fall in set 0 (line numbers 0x200000, 0x200004, 0x200008: mod 4 = 0).
inline gpuvp::CacheGeometry small(gpuvp::WritePolicy w = gpuvp::WritePolicy::WriteBack, unsigned mshrs = 4) {
  gpuvp::CacheGeometry g;
  g.name = "gpu.l2";
  g.size_bytes = 1024;
  g.line_bytes = 128;
  g.sector_bytes = 32;
  g.ways = 2;
  g.mshrs = mshrs;
  g.write = w;
  return g;
}

struct Harness {
  gpuvp::CacheCore cache;
  std::vector<uint8_t> mem = std::vector<uint8_t>(64 * 1024);

  explicit Harness(const gpuvp::CacheGeometry& g) : cache(g) {
    for (uint32_t off = 0; off < mem.size(); off += 4) {
      const uint32_t a = static_cast<uint32_t>(kBase + off);
      std::memcpy(&mem[off], &a, 4);
    }
  }
  uint32_t mem_word(uint64_t addr) const {
    uint32_t v;
    std::memcpy(&v, &mem[addr - kBase], 4);
    return v;
  }
  void write_back(const std::optional<gpuvp::CacheVictim>& v) {
    if (!v) return;
    const unsigned sector = cache.geometry().sector_bytes;
    for (unsigned s = 0; s < cache.geometry().sectors(); ++s)
      if (v->dirty >> s & 1) std::memcpy(&mem[v->line_addr - kBase + s * sector], &v->data[s * sector], sector);
  }
  // One request start to end: a miss is filled at once from `mem` and replayed.
  gpuvp::CacheAccess run(const gpuvp::CacheRequest& r) {
    gpuvp::CacheAccess a = cache.access(r);
    write_back(a.victim);
    if (a.forward) std::memcpy(&mem[r.addr - kBase], r.src, r.size);
    if (a.fetch) {
      gpuvp::CacheFill f = cache.fill(a.line_addr, a.fetch, &mem[a.line_addr - kBase]);
      write_back(f.victim);
    }
    if (a.pending && !cache.replay(r)) throw std::logic_error("replay after fill failed");
    return a;
  }
  uint32_t read(uint64_t addr, gpuvp::CacheOutcome* outcome = nullptr) {
    uint32_t v = 0;
    gpuvp::CacheAccess a = run(gpuvp::CacheRequest::read(addr, 4, &v));
    if (outcome) *outcome = a.outcome;
    return v;
  }
  gpuvp::CacheAccess write(uint64_t addr, uint32_t v) { return run(gpuvp::CacheRequest::store(addr, 4, &v)); }
};

}  // namespace cache_test
