// nvcc -O3 output of __match_any_sync/__match_all_sync (tests/data/exec/match.cu:
// match.{any,all}.sync.{b32,b64}) through `gpuvp exec`, against masks computed here per warp.
#include <catch2/catch.hpp>

#include <random>

#include "exec_util.h"

using namespace exectest;

TEST_CASE("exec match: __match_any_sync and __match_all_sync on 32- and 64-bit values", "[exec][match]") {
  Outs outs;
  const int n = 128;  // four warps: few distinct values, all equal, all distinct, random
  std::mt19937 rng(4);
  std::vector<int32_t> v(n);
  std::vector<int64_t> w(n);
  for (int i = 0; i < n; ++i) {
    int warp = i / 32;
    v[size_t(i)] = warp == 0 ? int32_t(rng() % 3) : warp == 1 ? -5 : warp == 2 ? i : int32_t(rng());
    // 64-bit values equal in the low half and different in the high half where v differs.
    w[size_t(i)] = int64_t(uint64_t(uint32_t(v[size_t(i)])) << 32 | 7u);
  }
  std::string fv = write_bin(outs, "v.bin", v), fw = write_bin(outs, "w.bin", w), fo = outs("o.bin");
  exec_ok(fmt::format("--preset tx2 --ptx {} --kernel match --grid 2 --block 64 --arg buf:i32:{}:file={} "
                      "--arg buf:i64:{}:file={} --arg buf:u32:{}:out={}",
                      ptx_of("match"), n, fv, n, fw, 6 * n, fo));
  auto o = read_bin<uint32_t>(fo, size_t(6 * n));
  for (int i = 0; i < n; ++i) {
    int base = i / 32 * 32;
    uint32_t same = 0;
    for (int j = 0; j < 32; ++j) same |= uint32_t(v[size_t(base + j)] == v[size_t(i)]) << j;
    bool uniform = same == ~0u;
    INFO("thread " << i);
    for (size_t k : {0, 3}) {  // b32, b64
      CHECK(o[size_t(6 * i) + k] == same);
      CHECK(o[size_t(6 * i) + k + 1] == (uniform ? ~0u : 0u));
      CHECK(o[size_t(6 * i) + k + 2] == uint32_t(uniform));
    }
  }
}
