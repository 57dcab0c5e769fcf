// R1-R3 and most-room placement (tx2-scheduling.md), with the TX2's per-SM limits; the expected
// counts are the limits divided by hand.
#include <catch2/catch.hpp>

#include "models/scheduler/sm_room.h"

using namespace gpuvp;

namespace {
const SmLimits kTx2{2048, 65536, 65536, 32};
BlockNeeds block(uint32_t threads, uint32_t smem, uint32_t regs_per_thread) {
  return BlockNeeds{threads, smem, threads * regs_per_thread};
}
}  // namespace

TEST_CASE("sm room: each resource limits the blocks an SM holds") {
  Registry reg;
  SmRoom r(reg, "gpu.sched", 2, kTx2);
  CHECK(r.room(0, block(1024, 256, 16)) == 2);     // threads: 2048 / 1024
  CHECK(r.room(0, block(32, 256, 16)) == 32);      // block slots
  CHECK(r.room(0, block(64, 49152, 16)) == 1);     // shared memory: 65536 / 49152
  CHECK(r.room(0, block(512, 256, 64)) == 2);      // registers: 65536 / (512 * 64)
  CHECK(r.room(0, block(256, 12288, 32)) == 5);    // shared memory: 65536 / 12288 = 5 (threads would allow 8)
  CHECK(r.capacity(block(2048, 256, 64)) == 0);    // 131072 registers: never fits
}

TEST_CASE("sm room: most room first, ties to the lowest SM id, re-evaluated per block") {
  Registry reg;
  SmRoom r(reg, "gpu.sched", 2, kTx2);
  const BlockNeeds b = block(512, 256, 16);  // 4 per SM
  std::vector<int> order;
  for (int i = 0; i < 8; ++i) {
    int sm = r.place(b);
    REQUIRE(sm >= 0);
    order.push_back(sm);
    r.take(unsigned(sm), b);
  }
  CHECK(order == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});  // alone, it looks like round robin
  CHECK(r.place(b) == -1);
  r.give(1, b);
  CHECK(r.place(b) == 1);
  // A different kernel's block: SM 0 full of threads, SM 1 has room for one 512-thread block only.
  CHECK(r.room(0, block(256, 256, 16)) == 0);
  CHECK(r.room(1, block(256, 256, 16)) == 2);
  CHECK(reg.read("gpu.sched.used_threads", 1) == 1536);
  CHECK(reg.read("gpu.sched.used_blocks", 0) == 4);
}

TEST_CASE("sm room: a counter corrupted past its limit means no room, and giving back saturates at zero") {
  Registry reg;
  SmRoom r(reg, "gpu.sched", 1, kTx2);
  reg.write("gpu.sched.used_threads", 0xFFFFFFFF, 0);
  CHECK(r.room(0, block(32, 256, 16)) == 0);
  CHECK(r.place(block(32, 256, 16)) == -1);
  reg.write("gpu.sched.used_threads", 0, 0);
  r.give(0, block(1024, 4096, 32));
  CHECK(reg.read("gpu.sched.used_smem", 0) == 0);
  CHECK(r.room(0, block(1024, 256, 16)) == 2);
}
