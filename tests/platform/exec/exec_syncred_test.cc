// nvcc -O3 output of __syncthreads_count/_and/_or (tests/data/exec/syncred.cu: bar.red.popc.u32,
// bar.red.and.pred, bar.red.or.pred) through `gpuvp exec`, against the block reductions computed
// here. Warps that return before the barriers take no part.
#include <catch2/catch.hpp>

#include <random>

#include "exec_util.h"

using namespace exectest;

namespace {

constexpr int kGrid = 5, kBlock = 96;

// Block 0: all odd and positive (and true, or false); 1: random; 2: one thread above 1000 (or true);
// 3: all negative (count 0); 4: all even.
std::vector<int32_t> inputs() {
  std::mt19937 rng(3);
  std::vector<int32_t> v(kGrid * kBlock);
  for (int t = 0; t < kBlock; ++t) {
    v[size_t(t)] = 2 * t + 1;
    v[size_t(kBlock + t)] = int32_t(rng() % 4001) - 2000;
    v[size_t(2 * kBlock + t)] = t == 70 ? 2001 : t % 7;
    v[size_t(3 * kBlock + t)] = -1 - t;
    v[size_t(4 * kBlock + t)] = 2 * t;
  }
  return v;
}

// out of block b: count * 4 + all * 2 + any over threads below `live`, 0 (untouched) from there on.
void check_block(const std::vector<int32_t>& v, const std::vector<int32_t>& o, int b, int live) {
  int count = 0;
  bool all = true, any = false;
  for (int t = 0; t < live; ++t) {
    int32_t x = v[size_t(b * kBlock + t)];
    count += x > 0;
    all &= (x & 1) != 0;
    any |= x > 1000;
  }
  for (int t = 0; t < kBlock; ++t) {
    INFO("live " << live << " block " << b << " thread " << t);
    CHECK(o[size_t(b * kBlock + t)] == (t < live ? count * 4 + int(all) * 2 + int(any) : 0));
  }
}

}  // namespace

TEST_CASE("exec syncred: __syncthreads_count/_and/_or over the block, warps that returned left out", "[exec][syncred]") {
  Outs outs;
  auto v = inputs();
  std::string fv = write_bin(outs, "v.bin", v);
  for (const char* preset : {"tx2", "flexgrip"}) {
    for (int live : {kBlock, 64, 32}) {
      std::string fo = outs("o.bin");
      exec_ok(fmt::format("--preset {} --ptx {} --kernel syncred --grid {} --block {} --arg buf:i32:{}:file={} "
                          "--arg buf:i32:{}:out={} --arg i32:{}",
                          preset, ptx_of("syncred"), kGrid, kBlock, v.size(), fv, v.size(), fo, live));
      auto o = read_bin<int32_t>(fo, v.size());
      for (int b = 0; b < kGrid; ++b) check_block(v, o, b, live);
    }
  }
}
