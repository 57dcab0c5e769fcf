// Fault list: target selection, the fault space, and uniform deterministic sampling.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <set>
#include <stdexcept>
#include <tuple>

#include "faultinj/fault_list.h"

using namespace gpuvp::fi;
using Catch::Matchers::Contains;

TEST_CASE("fault list: splitmix64 gives the reference sequence") {
  SplitMix64 r(0);  // Vigna's splitmix64.c seeded with 0
  CHECK(r.next() == 0xe220a8397b1dcdafULL);
  CHECK(r.next() == 0x6e789e6aa1b965f4ULL);
  CHECK(r.next() == 0x06c45d188009454fULL);
}

TEST_CASE("fault list: glob matcher") {
  CHECK(glob_match("gpu.sched.*", "gpu.sched.state"));
  CHECK_FALSE(glob_match("gpu.sched.*", "gpu.schedx"));
  CHECK(glob_match("gpu.sm?.pc", "gpu.sm1.pc"));
  CHECK_FALSE(glob_match("gpu.sm?.pc", "gpu.sm12.pc"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("", ""));
  CHECK_FALSE(glob_match("", "a"));
  CHECK(glob_match("a*b*c", "axxbyyc"));
  CHECK_FALSE(glob_match("a*b*c", "axxbyy"));
  CHECK(glob_match("*num_blocks[?]", "gpu.sched.num_blocks[3]"));
}

TEST_CASE("fault list: glob matcher does not backtrack exponentially") {
  const std::string text(100000, 'a');
  auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(glob_match("************z", text));
  CHECK_FALSE(glob_match("*a*a*a*a*a*a*a*a*b", std::string(2000, 'a')));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
}

namespace {
const std::vector<TargetInfo> kAll = {
    {"gpu.sched.num_blocks[0]", 8, 1}, {"gpu.sched.num_blocks[1]", 8, 1}, {"gpu.sched.prng", 16, 1},
    {"gpu.sched.state", 3, 1},         {"gpu.gmem", 32, 4},
};
}

TEST_CASE("fault list: select targets by include and exclude globs") {
  auto s = select_targets(kAll, {"gpu.sched.*"}, {"gpu.sched.prng"});
  REQUIRE(s.size() == 3);
  CHECK(s[0].name == "gpu.sched.num_blocks[0]");
  CHECK(s[2].name == "gpu.sched.state");
  CHECK_THROWS_WITH(select_targets(kAll, {"gpu.arb*"}, {}), Contains("gpu.arb*"));
  CHECK_THROWS_WITH(select_targets(kAll, {"gpu.gmem"}, {"gpu.g*"}), Contains("gpu.g*"));
}

TEST_CASE("fault list: fault space size") {
  CHECK(edge_count(0, 1000, 10) == 100);  // edges 0, 10, ..., 990
  CHECK(edge_count(5, 25, 10) == 2);      // 10, 20
  CHECK(edge_count(10, 20, 10) == 1);     // 10
  CHECK(edge_count(20, 20, 10) == 0);
  CHECK(total_bits(kAll) == 8 + 8 + 16 + 3 + 128);
  CHECK(fault_space_size(kAll, 0, 1000, 10) == 163 * 100);
  CHECK_THROWS_AS(fault_space_size({{"m", 64, uint64_t{1} << 60}}, 0, 1000, 10), std::overflow_error);
  CHECK_THROWS_AS(edge_count(0, 10, 0), std::invalid_argument);
}

TEST_CASE("fault list: deterministic, sorted, on edges inside the window") {
  FaultTemplate ft;
  ft.duration = Duration::Permanent;
  auto a = make_fault_list(kAll, ft, 1005, 50000, 10, 500, 42);
  auto b = make_fault_list(kAll, ft, 1005, 50000, 10, 500, 42);
  auto c = make_fault_list(kAll, ft, 1005, 50000, 10, 500, 43);
  REQUIRE(a.size() == 500);
  bool same = true, differs = false;
  std::set<std::tuple<uint64_t, std::string, uint64_t, unsigned>> distinct;
  for (size_t i = 0; i < a.size(); ++i) {
    same &= a[i].target == b[i].target && a[i].index == b[i].index && a[i].bit == b[i].bit &&
            a[i].time_ps == b[i].time_ps;
    differs |= a[i].time_ps != c[i].time_ps || a[i].target != c[i].target;
    CHECK(a[i].id == i);
    if (i) CHECK(a[i - 1].time_ps <= a[i].time_ps);
    CHECK(a[i].time_ps % 10 == 0);
    CHECK(a[i].time_ps >= 1010);
    CHECK(a[i].time_ps < 50000);
    CHECK(a[i].duration == Duration::Permanent);
    distinct.insert({a[i].time_ps, a[i].target, a[i].index, a[i].bit});
  }
  CHECK(same);
  CHECK(differs);
  CHECK(distinct.size() == 500);  // drawn without replacement
}

TEST_CASE("fault list: asking for the whole space gives every fault once") {
  const std::vector<TargetInfo> t = {{"a", 2, 1}, {"b", 1, 2}};  // 4 bits
  auto all = make_fault_list(t, {}, 0, 30, 10, 12, 7);           // 3 edges
  std::set<std::tuple<uint64_t, std::string, uint64_t, unsigned>> seen;
  for (auto& f : all) {
    seen.insert({f.time_ps, f.target, f.index, f.bit});
    CHECK(((f.target == "a" && f.index == 0 && f.bit < 2) || (f.target == "b" && f.index < 2 && f.bit == 0)));
  }
  CHECK(seen.size() == 12);
  CHECK_THROWS_AS(make_fault_list(t, {}, 0, 30, 10, 13, 7), std::invalid_argument);
}

TEST_CASE("fault list: targets are chosen in proportion to their bits") {
  // 8000 bits in "small", 24000 in "big": big should get 3/4 of the faults, each bit position 1/8.
  const std::vector<TargetInfo> t = {{"small", 8, 1000}, {"big", 8, 3000}};
  auto faults = make_fault_list(t, {}, 0, 10000, 10, 20000, 1);
  size_t big = 0;
  std::array<size_t, 8> per_bit{};
  for (auto& f : faults) {
    big += f.target == "big";
    ++per_bit[f.bit];
  }
  const double share = static_cast<double>(big) / static_cast<double>(faults.size());
  CHECK(share > 0.72);
  CHECK(share < 0.78);
  for (size_t n : per_bit) {
    CHECK(n > 2000);  // expected 2500
    CHECK(n < 3000);
  }
}
