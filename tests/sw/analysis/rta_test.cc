// The response-time analysis of tx2-scheduling.md against schedules worked by hand.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sw/analysis/rta.h"

using gpuvp::rta::analyse;
using gpuvp::rta::Kernel;

TEST_CASE("rta: a kernel with more blocks than slots runs in rounds") {
  // 9 blocks of 10 ns on 4 slots: 4 at 0, 4 at 10, the last at 20, done at 30.
  auto r = analyse({{"k", 9, 10}}, 4);
  REQUIRE(r.size() == 1);
  CHECK(r[0].start_ns == 0);
  CHECK(r[0].completion_ns == 30);
}

TEST_CASE("rta: later kernels take slots as the head kernel's blocks free them, in queue order") {
  // 4 slots. k1: 6 blocks of 10: 4 at 0; its last 2 at 10 (when the first 4 end), done at 20.
  // k2: 2 blocks of 5 take the 2 slots still free at 10: done at 15.
  // k3: 3 blocks of 4: no slot at 10; 2 at 15 (k2's), the third at 19 (k3's own): done at 23.
  auto r = analyse({{"k1", 6, 10}, {"k2", 2, 5}, {"k3", 3, 4}}, 4);
  REQUIRE(r.size() == 3);
  CHECK(r[0].completion_ns == 20);
  CHECK(r[1].start_ns == 10);
  CHECK(r[1].completion_ns == 15);
  CHECK(r[2].start_ns == 15);
  CHECK(r[2].completion_ns == 23);
}

TEST_CASE("rta: kernels that fit together all start at once, and frees at one instant merge") {
  // 8 slots: 3 + 5 blocks start at 0; k3 (4 blocks) gets k1's 3 slots and k2's 5 at 7 (both free then).
  auto r = analyse({{"k1", 3, 7}, {"k2", 5, 7}, {"k3", 4, 2}}, 8);
  CHECK(r[0].completion_ns == 7);
  CHECK(r[1].completion_ns == 7);
  CHECK(r[2].start_ns == 7);
  CHECK(r[2].completion_ns == 9);
}

TEST_CASE("rta: no slots or a kernel without blocks is refused") {
  CHECK_THROWS_AS(analyse({{"k", 1, 1}}, 0), std::invalid_argument);
  CHECK_THROWS_AS(analyse({{"k", 0, 1}}, 2), std::invalid_argument);
}

TEST_CASE("rta: a completion beyond 2^64 - 1 ns is refused naming the kernel, never wrapped") {
  // 1 slot, 2 blocks of 10^19 ns: the second ends at 2 * 10^19 > 2^64 - 1 (about 1.8447 * 10^19).
  CHECK_THROWS_WITH(analyse({{"big", 2, 10000000000000000000ull}}, 1),
                    Catch::Matchers::Contains("kernel big") && Catch::Matchers::Contains("does not fit 64 bits"));
  // One block less fits exactly: 10^19.
  CHECK(analyse({{"big", 1, 10000000000000000000ull}}, 1)[0].completion_ns == 10000000000000000000ull);
}
