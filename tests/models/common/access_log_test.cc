// The compact access log (models/common/access_log.h): entries decode to exactly the events pushed,
// at the sizes the encoding gives by hand, and a log received whole goes on where its sender stopped.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "models/common/access_log.h"
#include "models/common/registry.h"

using namespace gpuvp;

namespace {
bool same(const AccessEvent& a, const AccessEvent& b) {
  return a.time_ps == b.time_ps && a.until_ps == b.until_ps && a.index == b.index && a.target == b.target &&
         a.lanes == b.lanes && a.kind == b.kind && a.stride == b.stride;
}
void check_same(const std::vector<AccessEvent>& got, const std::vector<AccessEvent>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("event " << i);
    CHECK(same(got[i], want[i]));
  }
}
}  // namespace

TEST_CASE("access log: each entry's bytes worked by hand") {
  AccessLog log;
  // header, target 5, time 10000 (zigzag 20000 = 3 varint bytes: 20000 >= 2^14), index 3.
  log.push_back({10000, 0, 3, 5, 0, Access::Write, 0});
  CHECK(log.bytes() == 6);
  // Same instant and target: header and index.
  log.push_back({10000, 0, 4, 5, 0, Access::Read, 0});
  CHECK(log.bytes() == 8);
  // 10 ps earlier (zigzag 19: 1 byte), target 200 (2 bytes), index 0, lanes 0xff (2 bytes), stride.
  log.push_back({9990, 0, 0, 200, 0xff, Access::Read, 2});
  CHECK(log.bytes() == 8 + 1 + 2 + 1 + 1 + 2 + 1);
  // A span to the end of the run from instant 0: time 9990 back (zigzag 19979: 3 bytes), until - time
  // = 2^64 - 1 (10 bytes).
  log.push_back({0, kToTheEnd, 1, 200, 0, Access::ReadSpan, 0});
  CHECK(log.bytes() == 16 + 1 + 3 + 1 + 10);
  CHECK(log.size() == 4);
  check_same(log.events(), {{10000, 0, 3, 5, 0, Access::Write, 0},
                            {10000, 0, 4, 5, 0, Access::Read, 0},
                            {9990, 0, 0, 200, 0xff, Access::Read, 2},
                            {0, kToTheEnd, 1, 200, 0, Access::ReadSpan, 0}});
}

TEST_CASE("access log: extreme fields and instants in any order decode exactly") {
  const uint64_t top = ~uint64_t{0};
  const std::vector<AccessEvent> want = {
      {0, 0, 0, 0, 0, Access::Read, 0},  // the first entry: instant 0, target 0, encoded in full
      {top, top, 0xffffffffu, 0xffffffffu, 0xffffffffu, Access::ReadSpan, 255},
      {0, 0, 7, 0xffffffffu, 0, Access::Write, 0},  // from the top back to 0
      {top - 1, 3, 1, 1, 1, Access::ReadSpan, 1},    // until before time: kept modulo 2^64
      {top - 1, 0, 2, 1, 0, Access::Write, 0},
      {5, 100, 9, 0, 0x80000000u, Access::ReadSpan, 3},
  };
  const AccessLog log(want);
  CHECK(log.size() == want.size());
  check_same(log.events(), want);
  std::vector<AccessEvent> iterated;
  for (const AccessEvent& e : log) iterated.push_back(e);
  check_same(iterated, want);
  CHECK(AccessLog().events().empty());
  CHECK(AccessLog().begin() == AccessLog().end());
}

TEST_CASE("access log: copies, moves, and a log received whole that goes on being written") {
  AccessLog a;
  std::vector<AccessEvent> want;
  for (uint32_t i = 0; i < 50000; ++i) {  // past the first allocation: the buffer grows
    const AccessEvent e{uint64_t(i / 3) * 2500, 0, i % 97, i % 5, i % 7 ? 0u : i | 1, Access(i % 2), uint8_t(i % 7 ? 0 : 4)};
    a.push_back(e);
    want.push_back(e);
  }
  const AccessLog copy = a;
  check_same(copy.events(), want);
  AccessLog moved = std::move(a);
  check_same(moved.events(), want);
  CHECK(a.empty());

  // As a pipe's reader gets it: the bytes written in place, then the sender's state.
  AccessLog got;
  REQUIRE(got.receive_encoded(moved.bytes(), moved.size(), moved.last_time(), moved.last_target(),
                              [&](uint8_t* to, size_t n) {
                                std::memcpy(to, moved.data(), n);
                                return true;
                              }));
  const AccessEvent more{uint64_t(49999 / 3) * 2500, 0, 1, 4, 0, Access::Write, 0};  // same instant and target
  got.push_back(more);
  want.push_back(more);
  check_same(got.events(), want);
  AccessLog failed;
  CHECK_FALSE(failed.receive_encoded(4, 1, 0, 0, [](uint8_t*, size_t) { return false; }));
}

TEST_CASE("access log: the registry writes the same events to a compact log as to a vector") {
  Registry reg;
  uint32_t r = 0, m[4] = {};
  reg.add_field("a.r", 8, &r);
  reg.add_array("a.m", 8, m, 4);
  read_always(reg.at_mut("a.m"));
  const Target& tr = reg.at("a.r");
  const Target& tm = reg.at("a.m");
  auto drive = [&] {
    reg.note(tr, 0, Access::Write, 100);
    reg.note_lanes(tm, 1, 0x5, 1, Access::Read, 100);
    reg.note_lanes(tm, 1, 0, 1, Access::Read, 100);  // no lanes: nothing
    reg.note(tr, 0, Access::ReadSpan, 200, 900);
    reg.note(tm, 3, Access::Read, 150);
  };
  std::vector<AccessEvent> v;
  reg.record_accesses(&v);
  drive();
  reg.record_accesses(nullptr);
  AccessLog log;
  reg.record_accesses(&log);
  CHECK(reg.recording());
  drive();
  reg.record_accesses(nullptr);
  CHECK_FALSE(reg.recording());
  // The four words of a.m read always (serial 1), then the events driven.
  const std::vector<AccessEvent> want = {
      {0, kToTheEnd, 0, 1, 0, Access::ReadSpan, 0}, {0, kToTheEnd, 1, 1, 0, Access::ReadSpan, 0},
      {0, kToTheEnd, 2, 1, 0, Access::ReadSpan, 0}, {0, kToTheEnd, 3, 1, 0, Access::ReadSpan, 0},
      {100, 0, 0, 0, 0, Access::Write, 0},          {100, 0, 1, 1, 0x5, Access::Read, 1},
      {200, 900, 0, 0, 0, Access::ReadSpan, 0},     {150, 0, 3, 1, 0, Access::Read, 0},
  };
  check_same(v, want);
  check_same(log.events(), want);
}
