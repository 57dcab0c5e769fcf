// CacheCore: hand-worked access sequences (hits, misses, fills, evictions, write-backs, LRU order),
// MSHR merging and stalls, write-back against write-through.
#include <catch2/catch.hpp>

#include "cache_harness.h"

using namespace gpuvp;
using namespace cache_test;

namespace {
constexpr uint64_t A = kBase, B = kBase + 0x200, C = kBase + 0x400;  // set 0 (cache_harness.h)
using O = CacheOutcome;
}  // namespace

TEST_CASE("cache core: a hand-worked sequence counts hits, misses, fills, evictions and write-backs") {
  Harness h(small());
  O o;
  // 1. A sector 0: no line. Fetch sector 0 only; way 0 of set 0 (the first invalid way).
  CHECK(h.read(A, &o) == 0x10000000);
  CHECK(o == O::LineMiss);
  // 2. A sector 0 again: hit.
  CHECK(h.read(A + 4, &o) == 0x10000004);
  CHECK(o == O::Hit);
  // 3. 8 bytes of A sector 2 (bytes 0x40..0x47): the line is there, the sector is not. One sector fetched.
  uint32_t two[2];
  CacheAccess a = h.run(CacheRequest::read(A + 0x40, 8, two));
  CHECK(a.outcome == O::SectorMiss);
  CHECK(a.fetch == 0b0100);
  CHECK(two[1] == 0x10000044);
  // 4. B (set 0): no line; way 1, still invalid, takes it. 5. A: hit; A is now the most recent.
  CHECK(h.read(B, &o) == 0x10000200);
  CHECK(o == O::LineMiss);
  h.read(A, &o);
  CHECK(o == O::Hit);
  // 6. 32 bytes of 0xA5 over A sector 1 (bytes 0x20..0x3F): missing but written whole, so no fetch:
  // a sector miss that allocates the sector valid and dirty at once.
  std::vector<uint8_t> a5(32, 0xA5);
  a = h.run(CacheRequest::store(A + 0x20, 32, a5.data()));
  CHECK(a.outcome == O::SectorMiss);
  CHECK(a.fetch == 0);
  CHECK_FALSE(a.pending);
  // 7. C (set 0, full): the victim is B, least recently used (A was used at 5 and 6). FIFO would
  // take A, the first filled. B is clean: evicted, nothing written back.
  CHECK(h.read(C, &o) == 0x10000400);
  CHECK(o == O::LineMiss);
  CHECK(h.cache.present(A, 4));
  CHECK_FALSE(h.cache.present(B, 4));
  // 8. B again: now A (used at 6) is older than C (filled at 7): A goes, its dirty sector 1 with it.
  CHECK(h.read(B, &o) == 0x10000200);
  CHECK(o == O::LineMiss);
  CHECK_FALSE(h.cache.present(A, 4));
  CHECK(h.mem_word(A + 0x20) == 0xA5A5A5A5);
  CHECK(h.mem_word(A + 0x3C) == 0xA5A5A5A5);
  CHECK(h.mem_word(A + 0x40) == 0x10000040);  // sector 2 was clean: not written
  // 9. 32 bytes from 0x10000090 (set 1), bytes 0x10..0x2F of the line: sectors 0 and 1, both fetched.
  uint32_t eight[8];
  a = h.run(CacheRequest::read(kBase + 0x90, 32, eight));
  CHECK(a.outcome == O::LineMiss);
  CHECK(a.fetch == 0b0011);
  CHECK(eight[7] == 0x100000AC);
  // 10. Sector 1 of that line: hit.
  h.read(kBase + 0xA0, &o);
  CHECK(o == O::Hit);

  const CacheStats& s = h.cache.stats();
  CHECK(s.reads == 9);
  CHECK(s.writes == 1);
  CHECK(s.hits == 3);           // 2, 5, 10
  CHECK(s.sector_misses == 2);  // 3, 6
  CHECK(s.line_misses == 5);    // 1, 4, 7, 8, 9
  CHECK(s.merges == 0);
  CHECK(s.stalls == 0);
  CHECK(s.sector_fills == 7);   // 1, 1, 1, 1 (steps 1, 3, 4, 7), 1 (8), 2 (9)
  CHECK(s.evictions == 2);      // B at 7, A at 8
  CHECK(s.writebacks == 1);     // A's sector 1
  CHECK(s.write_throughs == 0);
}

TEST_CASE("cache core: true LRU over four ways chooses victims FIFO would not (unsectored lines)") {
  // One set of four 128-byte ways, one sector per line: every line lands in set 0.
  CacheGeometry g = small();
  g.size_bytes = 512;
  g.ways = 4;
  g.sector_bytes = 128;
  Harness h(g);
  auto line = [](unsigned n) { return kBase + 0x80 * n; };
  for (unsigned n = 0; n < 4; ++n) h.read(line(n));  // lines 0 1 2 3 fill ways 0 1 2 3
  h.read(line(0));
  h.read(line(2));
  // Least recent first: 1, 3, 0, 2 (FIFO order would be 0, 1, 2, 3).
  h.read(line(4));
  CHECK_FALSE(h.cache.present(line(1), 4));
  CHECK(h.cache.present(line(0), 4));
  h.read(line(5));
  CHECK_FALSE(h.cache.present(line(3), 4));
  h.read(line(6));
  CHECK_FALSE(h.cache.present(line(0), 4));
  CHECK(h.cache.present(line(2), 4));  // FIFO would have evicted it by now
  CHECK(h.cache.stats().evictions == 3);
  CHECK(h.cache.stats().sector_fills == 7);  // one whole-line sector per line miss: 0..6
  CHECK(h.cache.stats().hits == 2);
}

TEST_CASE("cache core: a second miss to an outstanding line merges, full MSHRs stall until a fill frees one") {
  Harness h(small(WritePolicy::WriteBack, 2));
  CacheCore& c = h.cache;
  uint32_t v1 = 0, v2 = 0, v5 = 0, ve = 0;
  const CacheRequest r1 = CacheRequest::read(A, 4, &v1), r2 = CacheRequest::read(A + 8, 4, &v2);
  const CacheRequest r5 = CacheRequest::read(A + 0x60, 4, &v5), re = CacheRequest::read(kBase + 0x100, 4, &ve);
  CacheAccess a1 = c.access(r1);  // A: line miss, MSHR 1 waits for sector 0
  CHECK(a1.outcome == O::LineMiss);
  CHECK(a1.fetch == 0b0001);
  CacheAccess a2 = c.access(r2);  // A sector 0 again: merged, nothing more to fetch
  CHECK(a2.outcome == O::Merged);
  CHECK(a2.fetch == 0);
  CHECK(a2.pending);
  CHECK(c.access(CacheRequest::read(kBase + 0x80, 4)).outcome == O::LineMiss);  // set 1: MSHR 2
  CHECK(c.mshrs_busy() == 2);
  CacheAccess ae = c.access(re);  // set 2: no MSHR left
  CHECK(ae.outcome == O::Stall);
  CHECK_FALSE(ae.pending);
  CHECK(ae.fetch == 0);
  CacheAccess a5 = c.access(r5);  // A sector 3: merges into A's MSHR and adds sector 3 to it
  CHECK(a5.outcome == O::Merged);
  CHECK(a5.fetch == 0b1000);
  CHECK(c.outstanding(A) == 0b1001);

  CHECK_FALSE(c.fill(A, 0b0001, &h.mem[0]).mshr_freed);  // sector 3 still on its way
  CHECK(c.fill(A, 0b1000, &h.mem[0]).mshr_freed);
  CHECK(c.mshrs_busy() == 1);
  CHECK_THROWS_AS(c.fill(A, 0b0001, &h.mem[0]), std::logic_error);  // no MSHR waits for A now
  for (const CacheRequest* r : {&r1, &r2, &r5}) CHECK(c.replay(*r));
  CHECK(v1 == 0x10000000);
  CHECK(v2 == 0x10000008);
  CHECK(v5 == 0x10000060);
  CHECK(c.access(re).outcome == O::LineMiss);  // the retry finds a free MSHR

  const CacheStats& s = c.stats();
  CHECK(s.reads == 5);        // the stalled access is not counted; its retry is
  CHECK(s.line_misses == 3);  // A, set 1, the retry
  CHECK(s.merges == 2);
  CHECK(s.stalls == 1);
  CHECK(s.sector_fills == 2);  // A's sectors 0 and 3 once each
  CHECK(s.hits == 0);
}

TEST_CASE("cache core: a replay whose line was replaced meanwhile fails and the request goes again") {
  Harness h(small());
  CacheCore& c = h.cache;
  h.read(A);                       // A sector 0 present
  const CacheRequest r = CacheRequest::read(A, 64);  // sectors 0 and 1
  CacheAccess a = c.access(r);
  CHECK(a.outcome == O::SectorMiss);
  CHECK(a.fetch == 0b0010);
  h.read(B);
  h.read(C);  // A (older than B) is replaced before its fill arrives
  c.fill(A, 0b0010, &h.mem[0]);  // allocates A again, with sector 1 only
  CHECK_FALSE(c.replay(r));
  CHECK(h.run(r).outcome == O::SectorMiss);  // sector 0 fetched again
}

TEST_CASE("cache core: write-back keeps writes until eviction, the victim carries what was written") {
  Harness h(small(WritePolicy::WriteBack));
  // 4 bytes of A sector 0: missing and not written whole, so the sector is fetched first.
  CacheAccess a = h.write(A + 4, 0xDEADBEEF);
  CHECK(a.outcome == O::LineMiss);
  CHECK(a.fetch == 0b0001);
  CHECK_FALSE(a.forward);
  CHECK(h.mem_word(A + 4) == 0x10000004);  // not written through
  CHECK(h.read(A + 4) == 0xDEADBEEF);
  h.read(B);
  std::optional<CacheVictim> victim;
  uint32_t v;
  CacheAccess c = h.cache.access(CacheRequest::read(C, 4, &v));
  CacheFill f = h.cache.fill(C, c.fetch, &h.mem[C - kBase]);  // A (older than B) goes
  REQUIRE(f.victim);
  CHECK(f.victim->line_addr == A);
  CHECK(f.victim->dirty == 0b0001);
  uint32_t words[2];
  std::memcpy(words, f.victim->data.data(), 8);
  CHECK(words[0] == 0x10000000);
  CHECK(words[1] == 0xDEADBEEF);
  // A whole sector written to a missing line: allocated without a fetch, evicting B (clean).
  std::vector<uint8_t> ones(32, 0x11);
  a = h.cache.access(CacheRequest::store(A + 0x20, 32, ones.data()));
  CHECK(a.outcome == O::LineMiss);
  CHECK(a.fetch == 0);
  REQUIRE(a.victim);
  CHECK(a.victim->line_addr == B);
  CHECK(a.victim->dirty == 0);
  CHECK(h.cache.stats().writebacks == 1);
  CHECK(h.cache.stats().evictions == 2);
  // flush writes back the dirty sector and leaves the line clean.
  std::vector<CacheVictim> dirty = h.cache.flush(false);
  REQUIRE(dirty.size() == 1);
  CHECK(dirty[0].line_addr == A);
  CHECK(dirty[0].dirty == 0b0010);
  CHECK(h.cache.flush(true).empty());
  CHECK_FALSE(h.cache.present(A + 0x20, 4));
  CHECK(h.cache.stats().writebacks == 2);
}

TEST_CASE("cache core: write-through writes every write on, allocates nothing on a write miss") {
  Harness h(small(WritePolicy::WriteThrough));
  O o;
  CacheAccess a = h.write(A + 4, 0xDEADBEEF);  // miss: not allocated, written through
  CHECK(a.outcome == O::LineMiss);
  CHECK(a.forward);
  CHECK_FALSE(a.pending);
  CHECK_FALSE(h.cache.present(A, 4));
  CHECK(h.mem_word(A + 4) == 0xDEADBEEF);
  CHECK(h.read(A + 4, &o) == 0xDEADBEEF);  // fetched
  CHECK(o == O::LineMiss);
  a = h.write(A + 4, 0xCAFEF00D);  // hit: the line and the next level take it
  CHECK(a.outcome == O::Hit);
  CHECK(a.forward);
  CHECK(h.read(A + 4, &o) == 0xCAFEF00D);
  CHECK(o == O::Hit);
  CHECK(h.mem_word(A + 4) == 0xCAFEF00D);
  a = h.write(A + 0x24, 7);  // line present, sector 1 not: written through, not allocated
  CHECK(a.outcome == O::SectorMiss);
  CHECK_FALSE(h.cache.present(A + 0x24, 4));
  h.read(B);
  h.read(C);  // A goes, clean
  const CacheStats& s = h.cache.stats();
  CHECK(s.write_throughs == 3);
  CHECK(s.evictions == 1);
  CHECK(s.writebacks == 0);
  CHECK(s.writes == 3);
  CHECK(s.hits == 2);  // the write at A + 4 and the read after it
}

TEST_CASE("cache core: xor set hashing spreads a set's conflicts and recovers a victim's address") {
  CacheGeometry g = small();
  g.hash = SetHash::Xor;
  Harness h(g);
  // Tags 0x80000, 0x80001, 0x80002 (line number / 4): A, B, C go to sets 0, 1, 2; nothing is evicted.
  h.read(A);
  h.read(B);
  h.read(C);
  CHECK(h.cache.stats().evictions == 0);
  // Lines of set 0 under xor: line numbers 0x200005 (0x280) and 0x20000A (0x500): (n ^ n / 4) mod 4 = 0.
  h.write(A, 0x12345678);
  h.read(kBase + 0x280);
  CacheAccess a = h.cache.access(CacheRequest::read(kBase + 0x500, 4));
  CacheFill f = h.cache.fill(a.line_addr, a.fetch, &h.mem[0x500]);
  REQUIRE(f.victim);
  CHECK(f.victim->line_addr == A);
  CHECK(f.victim->dirty == 0b0001);
}

TEST_CASE("cache core: a core validates its geometry, an access must stay inside one line and the address bits") {
  CacheGeometry bad = small();
  bad.ways = 3;  // 1 KiB is not a whole number of 384-byte sets
  CHECK_THROWS_AS(CacheCore{bad}, std::invalid_argument);
  CacheCore c(small());
  CHECK_THROWS_WITH(c.access(CacheRequest::read(kBase + 0x7E, 4)),
                    "gpu.l2: access [0x1000007e, +4) is empty or crosses a 128-byte line");
  CHECK_THROWS_WITH(c.access(CacheRequest::read(kBase, 0)),
                    "gpu.l2: access [0x10000000, +0) is empty or crosses a 128-byte line");
  CHECK_THROWS_WITH(c.present(uint64_t{1} << 40, 4), "gpu.l2: address 0x10000000000 needs more than 40 bits");
  CHECK_THROWS_WITH(c.fill(kBase + 4, 1, nullptr),
                    "gpu.l2: fill of sectors 0x1 of line 0x10000004, which no MSHR waits for");
}
