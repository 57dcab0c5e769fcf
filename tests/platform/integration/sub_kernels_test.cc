// Sub-kernels on SM sets (docs/concurrent-kernels.md, "SM sets and sub-kernels") on the whole tx2
// platform with 4 SMs: mandelbrot (a 2D grid, so a block's linear index must map back to its x and y)
// split into sub-kernels at seeded random points, each on a random SM set. The image must equal the
// CPU's (the kernel writes every pixel once from its real block index), every block of the grid must run
// exactly once over all sub-kernels, and no block may run on an SM outside its sub-kernel's set at the
// time it was handed out (the sets do not change here).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "platform/platform.h"
#include "sw/kernels/kernels.h"

using namespace gpuvp;
using Catch::Matchers::Contains;

namespace {

constexpr int kW = 64, kH = 24, kMaxIter = 40;
constexpr float kX0 = -2.0f, kY0 = -1.2f, kDx = 3.0f / kW, kDy = 2.4f / kH;

// The CPU reference, with the kernel's rounding (one IEEE single operation at a time).
std::vector<int> mandelbrot_cpu() {
  std::vector<int> out(kW * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const float cx = kX0 + float(x) * kDx, cy = kY0 + float(y) * kDy;
      float zx = 0, zy = 0;
      int it = 0;
      while (it < kMaxIter) {
        const float x2 = zx * zx, y2 = zy * zy;
        if (x2 + y2 > 4.0f) break;
        const float xy = zx * zy;
        zy = (xy + xy) + cy;
        zx = (x2 - y2) + cx;
        ++it;
      }
      out[size_t(y * kW + x)] = it;
    }
  return out;
}

struct Part {
  uint64_t first, last, sms;
  uint64_t launch = 0;
};

// One split per process (SystemC elaborates once per process: one Platform per test case).
void check_split(uint64_t seed) {
  Config cfg = Config::preset("tx2");
  cfg.set("sm.count=4");
  Platform p(cfg);
  p.record_timeline();
  // Grid 8 x 3 blocks of 8 x 8 threads: 24 blocks. Cut points and sets drawn from the seed.
  std::mt19937_64 rng(seed);
  std::set<uint64_t> cuts{0, 24};
  while (cuts.size() < 2 + rng() % 6) cuts.insert(1 + rng() % 23);
  std::vector<Part> parts;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) parts.push_back({*it, *std::next(it), 1 + rng() % 15});
  std::vector<int> image;
  p.run([&](rt::Runtime& rt) {
    auto out = rt.malloc(kW * kH * 4);
    rt.memset(out, 0xff, kW * kH * 4);
    auto m = rt.load_module(kernels::ptx("mandelbrot"), "mandelbrot.ptx");
    rt::KernelArgs args;
    args.ptr(out).i32(kW).i32(kH).f32(kX0).f32(kY0).f32(kDx).f32(kDy).i32(kMaxIter);
    for (Part& q : parts) {
      const rt::Stream s = rt.create_stream(0);
      q.launch = rt.launch_sub_async(s, m, "mandelbrot", {8, 3}, {8, 8}, args,
                                     rt::SubKernel{q.first, q.last, rt.create_sm_set(q.sms)});
    }
    rt.synchronize();
    image = rt.download<int>(out, kW * kH);
  });
  CHECK(image == mandelbrot_cpu());
  std::map<uint64_t, const Part*> by_launch;
  for (const Part& q : parts) by_launch[q.launch] = &q;
  std::vector<int> runs(24, 0);
  for (const BlockRecord& r : p.timeline()) {
    const Part* q = by_launch.at(r.launch_id);
    INFO("launch " << r.launch_id << " block " << r.block << " on SM " << r.sm);
    CHECK(r.block >= q->first);
    CHECK(r.block < q->last);
    CHECK((q->sms >> r.sm & 1) == 1);
    ++runs.at(r.block);
  }
  CHECK(runs == std::vector<int>(24, 1));
}

}  // namespace

TEST_CASE("sub-kernels: a split (seed 1) covers the grid once, on its SM sets, with the unsplit image") { check_split(1); }
TEST_CASE("sub-kernels: a split (seed 2) covers the grid once, on its SM sets, with the unsplit image") { check_split(2); }
TEST_CASE("sub-kernels: a split (seed 3) covers the grid once, on its SM sets, with the unsplit image") { check_split(3); }

TEST_CASE("sub-kernels: a bad range or SM set is refused naming the kernel or the set") {
  Config cfg = Config::preset("tx2");
  Platform p(cfg);
  p.run([&](rt::Runtime& rt) {
    auto m = rt.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
    rt::KernelArgs args;
    args.ptr(0).ptr(0).ptr(0).i32(0);
    CHECK_THROWS_WITH(rt.launch_sub_async(0, m, "vectorAdd", {4}, {32}, args, rt::SubKernel{3, 5, 0}),
                      Contains("vectorAdd") && Contains("[3, 5)") && Contains("4 blocks"));
    CHECK_THROWS_WITH(rt.launch_sub_async(0, m, "vectorAdd", {4}, {32}, args, rt::SubKernel{0, 2, 1}),
                      Contains("SM set 1 was not created"));
    CHECK_THROWS_WITH(rt.create_sm_set(0b100), Contains("beyond the GPU's 2"));
    CHECK_THROWS_WITH(rt.set_sm_set(1, 0b1), Contains("SM set 1 was not created"));
  });
}
