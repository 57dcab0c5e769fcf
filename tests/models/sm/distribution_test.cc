// The instruction distribution unit (docs/power.md, "Aging-aware instruction distribution"): counters
// per lane cluster up to the round's limits, reset when all are full, gated clusters idle.
#include <catch2/catch.hpp>

#include "models/sm/cluster_distributor.h"

using namespace gpuvp::sm;

namespace {
std::vector<unsigned> take(ClusterDistributor& d, unsigned n) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < n; ++i) out.push_back(d.next(i));
  return out;
}
}  // namespace

TEST_CASE("distribution: 4:3:3 with one gated cluster, round by round") {
  auto d = make_counter_distributor({4, 3, 3, 0});
  // First working cluster below its limit: 0 four times, then 1 three times, then 2; all full -> reset.
  const std::vector<unsigned> round = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
  for (int r = 0; r < 5; ++r) CHECK(take(*d, 10) == round);
}

TEST_CASE("distribution: over every full round the counts equal the ratio and a gated cluster gets nothing") {
  const std::vector<unsigned> limits = {5, 0, 2, 7, 1, 0};
  auto d = make_counter_distributor(limits);
  for (int r = 0; r < 20; ++r) {
    std::vector<unsigned> count(limits.size(), 0);
    for (unsigned c : take(*d, 15)) ++count[c];
    CHECK(count == limits);
  }
}

TEST_CASE("distribution: counters reset only when all reach their limits") {
  auto d = make_counter_distributor({2, 1});
  CHECK(d->next(0) == 0);
  CHECK(d->next(0) == 0);  // cluster 0 full; cluster 1 not: no reset yet
  CHECK(d->next(0) == 1);  // now both full: reset
  CHECK(d->next(0) == 0);  // a new round starts at cluster 0
}

TEST_CASE("distribution: even gives every cluster one per round, slot follows the warp") {
  auto even = make_counter_distributor({1, 1, 1});
  CHECK(take(*even, 7) == std::vector<unsigned>{0, 1, 2, 0, 1, 2, 0});
  auto slot = make_slot_distributor(4);
  CHECK(slot->next(6) == 2);
  CHECK(slot->next(3) == 3);
  // The SM takes the slot modulo this inline instead of calling next(); counters have no such rule.
  CHECK(slot->slot_modulus() == 4);
  CHECK(make_slot_distributor(0)->slot_modulus() == 1);  // as next(): no cluster counts as one
  CHECK(even->slot_modulus() == 0);
}

TEST_CASE("distribution: limits text is checked") {
  CHECK(parse_limits("4:3:3:0", "k") == std::vector<unsigned>{4, 3, 3, 0});
  CHECK_THROWS_WITH(parse_limits("4::3", "distribution.limits"), Catch::Contains("distribution.limits: '4::3'"));
  CHECK_THROWS_WITH(parse_limits("", "k"), Catch::Contains("not whole numbers"));
  CHECK_THROWS_WITH(parse_limits("4:-1", "k"), Catch::Contains("not whole numbers"));
  CHECK_THROWS_WITH(make_counter_distributor({0, 0}), Catch::Contains("at least one cluster"));
}

TEST_CASE("distribution: pick takes the first free working cluster below its limit, else says when one frees") {
  auto d = make_counter_distributor({2, 1, 0});
  std::vector<uint64_t> free_at = {5, 0, 0};
  uint64_t wait = 0;
  CHECK(d->pick(0, free_at, 0, wait) == 1);  // cluster 0 busy until 5; cluster 2 gated
  free_at[1] = 1;
  CHECK(d->pick(1, free_at, 0, wait) == -1);  // 0 busy, 1 at its limit, 2 gated: nothing counts
  CHECK(wait == 5);
  CHECK(d->pick(1, free_at, 5, wait) == 0);
  CHECK(d->pick(1, free_at, 5, wait) == 0);  // 0 reaches 2: every counter full, all reset
  CHECK(d->pick(1, free_at, 5, wait) == 0);
  auto slot = make_slot_distributor(4);
  CHECK(slot->pick(6, {0, 0, 9, 0}, 3, wait) == -1);  // warp 6's cluster is 2, busy until 9
  CHECK(wait == 9);
}
