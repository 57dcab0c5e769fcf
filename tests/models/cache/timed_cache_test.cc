// TimedCache: the timing every cache of the platform runs under, worked by hand on the harness's
// 4-set, 2-way cache of 128-byte lines of four 32-byte sectors (cache_harness.h), with a next level
// that answers every access 100 cycles after it leaves.
#include <catch2/catch.hpp>

#include <cstring>

#include "cache_harness.h"
#include "models/cache/timed_cache.h"

using namespace gpuvp;
using namespace cache_test;

namespace {
constexpr uint64_t A = kBase, B = kBase + 0x200, C = kBase + 0x400;  // all in set 0

struct Call {
  uint64_t addr;
  unsigned len;
  bool write;
  uint64_t at;
  bool operator==(const Call& o) const { return addr == o.addr && len == o.len && write == o.write && at == o.at; }
};

// The next level: the harness's memory (word at a holds a), 100 cycles per access; every call logged.
struct Timed {
  std::vector<uint8_t> mem = std::vector<uint8_t>(64 * 1024);
  std::vector<Call> calls;
  TimedCache cache;
  Timed(const CacheGeometry& g, CacheTiming t)
      : cache(g, t, [this](const NextAccess& n) {
          calls.push_back({n.addr, n.len, n.write, n.at});
          if (n.write) std::memcpy(&mem[n.addr - kBase], n.data, n.len);
          else std::memcpy(n.data, &mem[n.addr - kBase], n.len);
          return n.at + 100;
        }) {
    for (uint32_t off = 0; off < mem.size(); off += 4) {
      const uint32_t a = static_cast<uint32_t>(kBase + off);
      std::memcpy(&mem[off], &a, 4);
    }
  }
  uint64_t read(uint64_t addr, uint64_t at, uint32_t* v = nullptr) {
    uint32_t tmp;
    return cache.read(addr, reinterpret_cast<uint8_t*>(v ? v : &tmp), 4, at);
  }
};
}  // namespace

TEST_CASE("timed cache: a hand-worked sequence with merges, an MSHR stall, LRU victims and a write-back") {
  Timed t(small(WritePolicy::WriteBack, 2), CacheTiming{10, 1});
  uint32_t v = 0;
  // 1. A at 0: line miss; sector 0 leaves at 10 (lookup), arrives at 110.
  CHECK(t.read(A, 0, &v) == 110);
  CHECK(v == A);
  // 2. A+4 at 20: the line is in flight: a merge, done with the fill.
  CHECK(t.read(A + 4, 20, &v) == 110);
  CHECK(v == A + 4);
  // 3. A sector 2 at 30: in flight, but sector 2 was not asked for: fetched at 40, there at 140.
  CHECK(t.read(A + 0x40, 30) == 140);
  // 4. B at 40: a second MSHR (A's is busy until 140): there at 150.
  CHECK(t.read(B, 40) == 150);
  // 5. C at 50: both MSHRs busy: stall until A's fill at 140; fetched at 150, there at 250. The fill
  //    evicts A, the least recently used (B was filled after A's last use).
  CHECK(t.read(C, 50) == 250);
  // 6. 32 bytes over B sector 1 at 260: written whole, no fetch; dirty.
  std::vector<uint8_t> a5(32, 0xA5);
  CHECK(t.cache.write(B + 0x20, a5.data(), 32, 260) == 270);
  // 7. A at 300: line miss; the victim is C (B was written at 260, after C's fill).
  CHECK(t.read(A, 300) == 410);
  // 8. A+8 at 420: hit. 9. C at 440: the victim is B, whose dirty sector 1 is written back when C's
  //    fill arrives (550).
  CHECK(t.read(A + 8, 420) == 430);
  CHECK(t.read(C, 440) == 550);

  const std::vector<Call> expect = {{A, 32, false, 10},        {A + 0x40, 32, false, 40}, {B, 32, false, 50},
                                    {C, 32, false, 150},       {A, 32, false, 310},       {C, 32, false, 450},
                                    {B + 0x20, 32, true, 550}};
  CHECK(t.calls == expect);
  CHECK(t.mem[B + 0x20 - kBase] == 0xA5);
  const CacheStats s = t.cache.stats();
  CHECK(s.reads == 8);
  CHECK(s.writes == 1);
  CHECK(s.hits == 1);
  CHECK(s.merges == 1);
  CHECK(s.sector_misses == 2);
  CHECK(s.line_misses == 5);
  CHECK(s.stalls == 1);
  CHECK(s.sector_fills == 6);
  CHECK(s.evictions == 3);
  CHECK(s.writebacks == 1);
}

TEST_CASE("timed cache: a requester behind in time waits as long as the miss it merges with") {
  Timed t(small(), CacheTiming{10, 1});
  CHECK(t.read(A, 100) == 210);      // leaves at 110, there at 210
  CHECK(t.read(A + 4, 50) == 160);   // 50 + (210 - 100): the same wait as the miss itself
  CHECK(t.read(A + 8, 150) == 210);  // after the miss: with its fill
  CHECK(t.read(A + 12, 300) == 310); // the fill has arrived: a hit
  CHECK(t.cache.stats().merges == 2);
  CHECK(t.cache.stats().hits == 1);
}

TEST_CASE("timed cache: one lookup per bank per cycle, lines interleaved over the banks") {
  Timed t(small(), CacheTiming{1, 2});
  t.read(A, 0);              // line 0 -> bank 0, slot 0
  t.read(A + 0x80, 0);       // line 1 -> bank 1, slot 0
  CHECK(t.cache.accepted() == 0);
  t.read(A + 0x100, 0);      // line 2 -> bank 0: slot 0 taken, slot 1
  CHECK(t.cache.accepted() == 1);
  t.read(A + 0x104, 0);      // bank 0 again: slot 2
  CHECK(t.cache.accepted() == 2);
}

TEST_CASE("timed cache: write-through writes go to the next level and allocate nothing") {
  Timed t(small(WritePolicy::WriteThrough), CacheTiming{5, 1});
  const uint32_t x = 0x12345678;
  CHECK(t.cache.write(A, reinterpret_cast<const uint8_t*>(&x), 4, 0) == 105);  // forwarded at 5
  CHECK(t.calls.size() == 1);
  CHECK(t.calls[0] == Call{A, 4, true, 5});
  uint32_t v = 0;
  CHECK(t.read(A, 200, &v) == 305);  // a line miss: the write allocated nothing
  CHECK(v == x);
  CHECK(t.cache.write(A, reinterpret_cast<const uint8_t*>(&x), 4, 400) == 505);  // a hit, forwarded
  CHECK(t.cache.stats().write_throughs == 2);
  t.cache.invalidate(600);
  CHECK(t.read(A, 700) == 805);  // dropped by the invalidation
}

TEST_CASE("timed cache: the constant cache's unsectored 64-byte lines fetch whole lines, LRU over two ways") {
  // 512 bytes, 64-byte lines of one sector, 2 ways: 4 sets; kBase, +0x100, +0x200 all in set 0.
  CacheGeometry g = small(WritePolicy::WriteThrough);
  g.size_bytes = 512;
  g.line_bytes = 64;
  g.sector_bytes = 64;
  Timed t(g, CacheTiming{7, 1});
  uint32_t v = 0;
  CHECK(t.read(A + 60, 0, &v) == 107);  // line miss: the whole line leaves at 7
  CHECK(v == A + 60);
  CHECK(t.read(A, 200) == 207);          // the whole line came: a hit
  CHECK(t.read(A + 0x100, 210) == 317);  // way 1
  CHECK(t.read(A, 320) == 327);          // A most recent
  CHECK(t.read(A + 0x200, 330) == 437);  // evicts A + 0x100, the least recently used
  CHECK(t.read(A, 440) == 447);          // still there
  CHECK(t.read(A + 0x100, 450) == 557);  // refetched; evicts A + 0x200 (A was used at 440)
  CHECK(t.read(A, 560) == 567);          // a hit
  const std::vector<Call> expect = {{A, 64, false, 7}, {A + 0x100, 64, false, 217}, {A + 0x200, 64, false, 337},
                                    {A + 0x100, 64, false, 457}};
  CHECK(t.calls == expect);
  const CacheStats s = t.cache.stats();
  CHECK(s.hits == 4);
  CHECK(s.line_misses == 4);
  CHECK(s.sector_fills == 4);
  CHECK(s.evictions == 2);  // A + 0x100, then A + 0x200
}

// A write-back L1 at a kernel's end (docs/caches.md, "Write-back L1"): dirty sectors leave by
// eviction (at the evicting access's lookup) and by write_back_all (all of them at its cycle, the
// lines kept clean); clean lines never leave. Worked by hand on the 4-set, 2-way cache, latency 10,
// next level 100 cycles.
TEST_CASE("timed cache: write-backs of a write-back cache by eviction and at a kernel's end") {
  Timed t(small(WritePolicy::WriteBack), CacheTiming{10, 1});
  const uint64_t D = kBase + 0x80;  // set 1
  const uint32_t w4 = 0x11111111;
  uint8_t sector[32];
  std::memset(sector, 0x22, sizeof sector);
  // 1. 4 bytes at A at 0: a partly written sector is fetched first (leaves at 10, there at 110).
  CHECK(t.cache.write(A, reinterpret_cast<const uint8_t*>(&w4), 4, 0) == 110);
  // 2. sector 1 of B written whole at 200: allocated without a fetch into set 0's free way.
  CHECK(t.cache.write(B + 0x20, sector, 32, 200) == 210);
  // 3. sector 0 of C written whole at 300: set 0 is full, A (least recent) leaves with its dirty
  //    sector 0, written back at the lookup (310).
  std::memset(sector, 0x33, sizeof sector);
  CHECK(t.cache.write(C, sector, 32, 300) == 310);
  // 4. a read of D at 400: a clean line (fetched at 410).
  CHECK(t.read(D, 400) == 510);
  // 5. the kernel's end at 500: C (set 0, way 0, where A was) then B (way 1); D is clean.
  t.cache.write_back_all(500);
  const std::vector<Call> expect = {
      {A, 32, false, 10}, {A, 32, true, 310}, {D, 32, false, 410}, {C, 32, true, 500}, {B + 0x20, 32, true, 500}};
  CHECK(t.calls == expect);
  CHECK(t.cache.stats().writebacks == 3);
  uint32_t v;
  std::memcpy(&v, &t.mem[A - kBase], 4);
  CHECK(v == w4);
  CHECK(t.mem[A + 4 - kBase] == uint8_t(A + 4));  // the rest of A's sector as fetched
  CHECK(t.mem[B + 0x20 - kBase] == 0x22);
  CHECK(t.mem[C + 31 - kBase] == 0x33);
  // 6. nothing is dirty any more, and the lines stay: C hits at 700 without a next-level call.
  t.cache.write_back_all(600);
  CHECK(t.read(C, 700, &v) == 710);
  CHECK(v == 0x33333333u);
  CHECK(t.calls.size() == expect.size());
  CHECK(t.cache.stats().writebacks == 3);
}

TEST_CASE("timed cache: write_back_all of a write-through cache calls nothing") {
  Timed t(small(WritePolicy::WriteThrough), CacheTiming{10, 1});
  const uint32_t w4 = 0x11111111;
  CHECK(t.read(A, 0) == 110);
  t.cache.write(A, reinterpret_cast<const uint8_t*>(&w4), 4, 200);
  const size_t calls = t.calls.size();
  t.cache.write_back_all(300);
  CHECK(t.calls.size() == calls);
  CHECK(t.cache.stats().writebacks == 0);
}

// Two write-back L1s of different SMs over one next level: each writes one word of the same sector
// (fetching the rest first). Writing back whole sectors, the second would overwrite the first's word
// with the stale bytes it fetched; writing back the bytes written (write_bytes), both words arrive.
TEST_CASE("timed cache: write-back caches side by side write back only the bytes written") {
  for (const bool bytes : {false, true}) {
    Timed t(small(WritePolicy::WriteBack), CacheTiming{10, 1, bytes});
    std::vector<uint8_t>& mem = t.mem;
    TimedCache other(small(WritePolicy::WriteBack), CacheTiming{10, 1, bytes}, [&mem](const NextAccess& n) {
      if (n.write) std::memcpy(&mem[n.addr - kBase], n.data, n.len);
      else std::memcpy(n.data, &mem[n.addr - kBase], n.len);
      return n.at + 100;
    });
    const uint32_t x = 0xAAAA0000, y = 0xBBBB0000;
    t.cache.write(A, reinterpret_cast<const uint8_t*>(&x), 4, 0);
    other.write(A + 8, reinterpret_cast<const uint8_t*>(&y), 4, 0);
    t.cache.write_back_all(200);
    other.write_back_all(300);
    uint32_t at0, at8, at4;
    std::memcpy(&at0, &mem[0], 4);
    std::memcpy(&at4, &mem[4], 4);
    std::memcpy(&at8, &mem[8], 4);
    INFO("write_bytes " << bytes);
    CHECK(at0 == (bytes ? x : uint32_t(A)));  // whole sectors: the other cache's stale copy of word 0 wins
    CHECK(at4 == A + 4);
    CHECK(at8 == y);
    // Written back: 4 bytes each with write_bytes, a sector each without.
    CHECK(t.calls.back().len == (bytes ? 4u : 32u));
  }
}
