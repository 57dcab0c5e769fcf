// Wear-balancing policies and partition rotation (docs/power.md), against sequences worked by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "platform/wear_policy.h"

using namespace gpuvp;

TEST_CASE("wear: monitoring rotates exactly when max - min of the accumulators reaches the threshold") {
  auto p = make_monitoring_policy(10);
  // Sensor readings of 3 SMs at 7 interval ends. Accumulated increases (max - min):
  //  1: [5,2,0] (5)   2: [12,4,2] (10: rotate, clear)   3: [3,5,1] (4)   4: [8,16,3] (13: rotate, clear)
  //  5: [9,1,1] (8)   6: [10,2,11] (9)                   7: [11,3,12] (9)
  const std::vector<std::vector<uint64_t>> readings = {{5, 2, 0},   {12, 4, 2},   {15, 9, 3},  {20, 20, 5},
                                                       {29, 21, 6}, {30, 22, 16}, {31, 23, 17}};
  std::vector<bool> rotated;
  for (size_t i = 0; i < readings.size(); ++i) rotated.push_back(p->rotate(double(i), readings[i]));
  CHECK(rotated == std::vector<bool>{false, true, false, true, false, false, false});
}

// The intervals at whose end a fixed policy (R rotations, T = 1) rotates, asked at every i / n, i = 1 .. n.
static std::vector<int> fixed_rotations(unsigned r, int n) {
  auto p = make_fixed_policy(r, 1.0);
  std::vector<int> at;
  for (int i = 1; i <= n; ++i)
    if (p->rotate(i / double(n), {})) at.push_back(i);
  return at;
}

TEST_CASE("wear: fixed rotates exactly R times, every T / (R + 1), all strictly inside the run") {
  // n = 20 (R + 1) intervals: rotation k falls on the end of interval 20 k exactly (k T / (R + 1)), the
  // R-th at 20 R, 20 intervals before the run's end. (At T / R, ..., T the R-th would be at T itself.)
  for (unsigned r : {1u, 2u, 4u, 8u, 16u}) {
    std::vector<int> want;
    for (unsigned k = 1; k <= r; ++k) want.push_back(int(20 * k));
    INFO("R = " << r);
    CHECK(fixed_rotations(r, int(20 * (r + 1))) == want);
  }
  // Instants between interval ends go to the first interval ending at or after them: R = 2 over 320
  // intervals, T / 3 = 106.67 and 2 T / 3 = 213.33 intervals.
  CHECK(fixed_rotations(2, 320) == std::vector<int>{107, 214});
  // R = 4 over 320: 64, 128, 192, 256 exactly (3 / 5 compared as 0.6 with 192 / 320, not 0.2 * 3 > 0.6).
  CHECK(fixed_rotations(4, 320) == std::vector<int>{64, 128, 192, 256});
  CHECK_THROWS_AS(make_fixed_policy(0, 1.0), std::invalid_argument);
}

TEST_CASE("wear: baseline and uniform never rotate") {
  auto b = make_wear_policy({"baseline"});
  auto u = make_wear_policy({"uniform"});
  for (int k = 0; k < 100; ++k) {
    CHECK_FALSE(b->rotate(k, {uint64_t(k) * 1000, 0}));
    CHECK_FALSE(u->rotate(k, {uint64_t(k) * 1000, 0}));
  }
  CHECK_THROWS_WITH(make_wear_policy({"random"}), "wear policy 'random' unknown (baseline, fixed, monitoring, uniform)");
}

TEST_CASE("wear: uniform wears every SM at the mean rate, normalised GPU cr = mean / max of the baseline") {
  // Baseline per-SM cr of a constructed 4-SM case whose power does not depend on placement (a hot
  // application on SMs 0-1, a cool one on 2-3): 2.4, 2.0, 0.5, 0.3. Mean 5.2 / 4 = 1.3; the baseline's
  // GPU cr is 2.4, uniform's 1.3, normalised 1.3 / 2.4 = 0.541666...
  const std::vector<double> base = {2.4, 2.0, 0.5, 0.3};
  const std::vector<double> u = make_wear_policy({"uniform"})->balance(base);
  REQUIRE(u.size() == 4);
  for (double c : u) CHECK(c == Approx(1.3).epsilon(1e-12));
  CHECK(*std::max_element(u.begin(), u.end()) / 2.4 == Approx(0.5416666666666666).epsilon(1e-12));
  // Every placing policy reports what its run measured.
  for (const char* name : {"baseline", "monitoring"}) {
    WearPolicyConfig c{name};
    c.threshold = 5;
    CHECK(make_wear_policy(c)->balance(base) == base);
  }
}

TEST_CASE("wear: partitions and their rotation by one SM") {
  const std::vector<uint64_t> m = partition_masks({8, 7}, 15);
  CHECK(m == std::vector<uint64_t>{0x00FF, 0x7F00});
  // SM 14 wraps to SM 0: the partitions stay disjoint and keep their sizes.
  CHECK(rotate_mask(0x00FF, 15) == 0x01FE);
  CHECK(rotate_mask(0x7F00, 15) == 0x7E01);
  uint64_t a = m[0], b = m[1];
  for (int i = 0; i < 15; ++i) {
    a = rotate_mask(a, 15);
    b = rotate_mask(b, 15);
    CHECK((a & b) == 0);
    CHECK(__builtin_popcountll(a) == 8);
    CHECK(__builtin_popcountll(b) == 7);
  }
  CHECK(a == m[0]);  // 15 rotations bring every partition back
  CHECK_THROWS_AS(partition_masks({8, 8}, 15), std::invalid_argument);
  CHECK_THROWS_AS(partition_masks({0, 8}, 15), std::invalid_argument);
}
