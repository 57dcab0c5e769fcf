// CacheCore's registered arrays: names and widths, and faults acting as they would in the SRAM
// (a flipped data bit is read, written back when dirty, lost when clean; a flipped valid bit or tag
// changes what hits); the digests equal the arrays' contents.
#include <catch2/catch.hpp>

#include "cache_harness.h"

using namespace gpuvp;
using namespace cache_test;

namespace {
constexpr uint64_t A = kBase, B = kBase + 0x200, C = kBase + 0x400;  // set 0 (cache_harness.h)
using O = CacheOutcome;

// The cache of cache_harness.h registered as gpu.l2. Line l is set l / 2, way l % 2; A (set 0, the
// first line filled) is line 0, its 32-bit words data[0..31].
struct Registered : Harness {
  Registry reg;
  Registered() : Harness(small()) { cache.register_state(reg, "gpu.l2"); }
};
}  // namespace

TEST_CASE("cache registry: tag, valid, dirty, lru and data are registered with their widths") {
  Registered h;
  // 8 lines; tag = 40 address bits - 7 offset bits - 2 index bits = 31; four sectors; two ways: 1-bit
  // ages; 1 KiB of data = 256 words.
  CHECK(h.reg.at("gpu.l2.tag").width == 31);
  CHECK(h.reg.at("gpu.l2.tag").count == 8);
  CHECK(h.reg.at("gpu.l2.valid").width == 4);
  CHECK(h.reg.at("gpu.l2.dirty").width == 4);
  CHECK(h.reg.at("gpu.l2.lru").width == 1);
  CHECK(h.reg.at("gpu.l2.data").width == 32);
  CHECK(h.reg.at("gpu.l2.data").count == 256);
  CHECK(h.reg.matching("gpu.l2.*").size() == 5);
  CHECK(h.reg.at("gpu.l2.data").kind == TargetKind::Memory);
  h.read(A);
  CHECK(h.reg.read("gpu.l2.tag", 0) == 0x80000);  // 0x10000000 >> 9
  CHECK(h.reg.read("gpu.l2.valid", 0) == 0b0001);
  CHECK(h.reg.read("gpu.l2.data", 1) == 0x10000004);

  CacheGeometry one = small();
  one.ways = 1;
  one.size_bytes = 512;
  Registry reg;
  CacheCore direct(one);
  direct.register_state(reg, "gpu.sm0.l1d");
  CHECK_FALSE(reg.contains("gpu.sm0.l1d.lru"));  // a direct-mapped cache has no order to keep
}

TEST_CASE("cache registry: a flipped data bit is read by the next hit") {
  Registered h;
  h.read(A);
  h.reg.flip("gpu.l2.data", 0, 1);  // A + 4
  O o;
  CHECK(h.read(A + 4, &o) == 0x10000005);
  CHECK(o == O::Hit);
}

TEST_CASE("cache registry: a flipped bit in a dirty line is written back with it") {
  Registered h;
  h.write(A + 4, 0x11111111);
  h.reg.flip("gpu.l2.data", 4, 1);  // 0x11111111 ^ 0x10
  h.read(B);
  h.read(C);  // evicts A
  CHECK_FALSE(h.cache.present(A, 4));
  CHECK(h.mem_word(A + 4) == 0x11111101);
}

TEST_CASE("cache registry: a flipped bit in a clean line is lost when the line is evicted and refilled") {
  Registered h;
  h.read(A);
  h.reg.flip("gpu.l2.data", 0, 1);
  h.read(B);
  h.read(C);  // evicts A, clean: nothing written back
  CHECK(h.cache.stats().writebacks == 0);
  O o;
  CHECK(h.read(A + 4, &o) == 0x10000004);
  CHECK(o == O::LineMiss);
}

TEST_CASE("cache registry: a valid bit cleared turns a hit into a miss, one set makes stale bytes hit") {
  Registered h;
  uint32_t two[16];
  h.run(CacheRequest::read(A, 64, two));  // sectors 0 and 1
  CHECK(h.reg.read("gpu.l2.valid", 0) == 0b0011);
  h.reg.flip("gpu.l2.valid", 0, 0);
  CacheAccess a = h.cache.access(CacheRequest::read(A, 4));
  CHECK(a.outcome == O::SectorMiss);
  CHECK(a.fetch == 0b0001);
  // Sector 2 was never filled: its bytes are the array's initial zeros, not memory's 0x10000040.
  h.reg.flip("gpu.l2.valid", 2, 0);
  O o;
  CHECK(h.read(A + 0x40, &o) == 0);
  CHECK(o == O::Hit);
}

TEST_CASE("cache registry: a flipped tag bit makes the line miss its address and answer another") {
  Registered h;
  h.read(A);
  // Tag 0x80000 -> 0x80001: line number 0x80001 * 4 + set 0 = 0x200004, address 0x10000200 (B).
  h.reg.flip("gpu.l2.tag", 0, 0);
  O o;
  CHECK(h.read(B, &o) == 0x10000000);  // A's bytes, at B's address
  CHECK(o == O::Hit);
  CHECK(h.read(A, &o) == 0x10000000);
  CHECK(o == O::LineMiss);
}

TEST_CASE("cache registry: a flipped age changes the LRU victim, a flipped dirty bit writes back") {
  Registered h;
  h.read(B);  // way 0
  h.read(A);  // way 1, most recent: ages B 1, A 0
  CHECK(h.reg.read("gpu.l2.lru", 0) == 1);
  CHECK(h.reg.read("gpu.l2.lru", 1) == 0);
  h.reg.flip("gpu.l2.lru", 0, 1);    // A's age 0 -> 1
  h.reg.flip("gpu.l2.lru", 0, 0);    // B's age 1 -> 0: A is now the oldest
  h.reg.flip("gpu.l2.dirty", 0, 1);  // A (line 1) sector 0 dirty, though never written
  h.read(C);
  CHECK_FALSE(h.cache.present(A, 4));
  CHECK(h.cache.present(B, 4));
  CHECK(h.cache.stats().writebacks == 1);
}

TEST_CASE("cache registry: every array's digest equals its contents, and a fault moves the state hash") {
  Registered h;
  h.read(A);
  h.write(B + 8, 0xABCD);
  h.read(C);
  for (const Target* t : h.reg.matching("gpu.l2.*")) {
    uint64_t d = 0;
    for (uint64_t i = 0; i < t->count; ++i) d ^= word_digest(i, t->get(i));
    CHECK(t->digest() == d);
  }
  const uint64_t before = h.reg.state_hash();
  h.reg.flip("gpu.l2.data", 31, 200);
  CHECK(h.reg.state_hash() != before);
  h.reg.flip("gpu.l2.data", 31, 200);
  CHECK(h.reg.state_hash() == before);
}

// overlay() logs its lookup and the words it reads. Hand-worked: A is line 0 (set 0, way 0), its
// sector 0 valid; [A + 4, A + 12) is words 1 and 2. The same overlay again at the same instant (warps
// fetching one instruction in one cycle) adds nothing; once another way of the set holds a line, or
// at a later instant, it is logged again.
TEST_CASE("cache registry: an overlay repeated at one instant is logged once") {
  Registry reg;
  Harness h(small());
  uint64_t now = 1000;
  h.cache.register_state(reg, "gpu.l2", {}, [&] { return now; });
  h.read(A);
  std::vector<AccessEvent> log;
  reg.record_accesses(&log);
  auto overlay = [&](uint32_t lanes_holding) {
    const size_t from = log.size();
    uint8_t bytes[8] = {};
    h.cache.overlay(A + 4, 8, bytes);
    uint32_t w1 = 0, w2 = 0;
    std::memcpy(&w1, bytes, 4);
    std::memcpy(&w2, bytes + 4, 4);
    CHECK(w1 == A + 4);
    CHECK(w2 == A + 8);
    REQUIRE(log.size() == from + 3);
    const AccessEvent &valid = log[from], &tag = log[from + 1], &data = log[from + 2];
    CHECK((valid.target == reg.at("gpu.l2.valid").serial && valid.index == 0 && valid.lanes == 1 && valid.stride == 2));
    CHECK((tag.target == reg.at("gpu.l2.tag").serial && tag.index == 0 && tag.lanes == lanes_holding && tag.stride == 1));
    CHECK((data.target == reg.at("gpu.l2.data").serial && data.index == 1 && data.lanes == 1 && data.stride == 2));
    for (size_t i = from; i < log.size(); ++i) CHECK((log[i].time_ps == now && log[i].kind == Access::Read));
  };
  overlay(0b01);
  uint8_t again[8] = {};
  h.cache.overlay(A + 4, 8, again);
  CHECK(log.size() == 3);
  h.read(B);  // set 0, way 1: the lookup now reads two tags
  overlay(0b11);
  now = 2000;
  overlay(0b11);
  reg.record_accesses(nullptr);
}
