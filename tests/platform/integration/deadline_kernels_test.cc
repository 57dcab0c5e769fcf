// Sub-kernels of a launch description's PTX kernel and of a built-in workload (docs/deadline.md,
// "Kernels"): the host program runs through a LaunchHook that splits its launch into sub-kernels on two
// SM sets (one SM each on tx2), in two streams at once. Every block runs exactly once, inside its
// sub-kernel's range and on its set's SM, and the outputs equal the CPU reference (the workload's own
// check; y = fma(a, x, y) computed here for the PTX kernel) and an unsplit run's bytes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "platform/deadline_kernels.h"
#include "platform/exec_init.h"
#include "platform/exec_job.h"
#include "platform/platform.h"
#include "sw/workloads/workload.h"

using namespace gpuvp;
using namespace gpuvp::deadline;

namespace {

// The splits tried: even, uneven, single blocks at either end (sizes of consecutive sub-kernels).
std::vector<std::vector<uint64_t>> splits_of(uint64_t blocks) {
  return {{blocks}, {1, blocks - 1}, {blocks / 2, blocks - blocks / 2}, {3, blocks - 4, 1}, std::vector<uint64_t>(blocks, 1)};
}

struct SubRun {
  uint64_t id, first, last;
  unsigned sm;
};

// Runs `program` (a host program over the runtime) once per split with its launch split, and returns
// each sub-kernel launched; `check` sees the program's result after each run.
class Splitter {
 public:
  Splitter(rt::Runtime& rt, std::vector<SubRun>& subs) : rt_(rt), subs_(subs) {
    for (unsigned i = 0; i < 2; ++i) {
      sets_[i] = rt.create_sm_set(uint64_t{1} << i);
      streams_[i] = rt.create_stream(0);
    }
  }
  LaunchHook hook(const std::vector<uint64_t>& sizes) {
    return LaunchHook(rt_, [this, sizes](const Launch& l) {
      REQUIRE(std::accumulate(sizes.begin(), sizes.end(), uint64_t{0}) == l.blocks());
      uint64_t first = 0, id = 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        id = rt_.launch_sub_async(streams_[i % 2], l.module, l.kernel, l.grid, l.block, l.args,
                                  rt::SubKernel{first, first + sizes[i], sets_[i % 2]}, l.dyn_shmem);
        subs_.push_back(SubRun{id, first, first + sizes[i], unsigned(i % 2)});
        first += sizes[i];
      }
      rt_.stream_synchronize(streams_[0]);
      rt_.stream_synchronize(streams_[1]);
      return id;
    }, false);
  }

 private:
  rt::Runtime& rt_;
  std::vector<SubRun>& subs_;
  uint32_t sets_[2] = {0, 0};
  rt::Stream streams_[2] = {0, 0};
};

// Every sub-kernel's blocks ran once each, inside its range, on its set's SM; every run's blocks
// (the sub-kernels of one split) cover 0 .. blocks-1 exactly once.
void check_cover(const std::vector<BlockRecord>& timeline, const std::vector<SubRun>& subs, uint64_t blocks, size_t runs) {
  std::map<uint64_t, const SubRun*> by_id;
  for (const SubRun& s : subs) by_id[s.id] = &s;
  std::vector<std::vector<int>> seen(runs, std::vector<int>(blocks, 0));
  size_t run = 0;
  uint64_t last_first = ~uint64_t{0};
  std::map<uint64_t, size_t> run_of;
  for (const SubRun& s : subs) {  // a run starts again at block 0
    if (s.first == 0 && last_first != ~uint64_t{0}) ++run;
    last_first = s.first;
    run_of[s.id] = run;
  }
  REQUIRE(run + 1 == runs);
  for (const BlockRecord& b : timeline) {
    auto it = by_id.find(b.launch_id);
    if (it == by_id.end()) continue;  // the unsplit run
    INFO("block " << b.block << " of sub-kernel [" << it->second->first << ", " << it->second->last << ") on SM " << b.sm);
    CHECK(b.block >= it->second->first);
    CHECK(b.block < it->second->last);
    CHECK(b.sm == it->second->sm);
    ++seen[run_of[b.launch_id]][b.block];
  }
  for (size_t r = 0; r < runs; ++r) {
    INFO("split " << r);
    CHECK(std::all_of(seen[r].begin(), seen[r].end(), [](int n) { return n == 1; }));
  }
}

}  // namespace

// vectorAdd "large": 16 blocks of 256 threads, c = a + b (its CPU reference compares every element).
TEST_CASE("deadline: a workload's sub-kernels cover its blocks once and give the unsplit output") {
  Platform p(Config::preset("tx2"));
  p.record_timeline();
  const wl::Workload& w = wl::find_or_throw("vectorAdd");
  const wl::LaunchConfig lc = wl::config_named(w, "large");
  std::vector<SubRun> subs;
  size_t runs = 0;
  p.run([&](rt::Runtime& rt) {
    const wl::Result whole = w.run(rt, lc, 7);
    REQUIRE(whole.ok);
    Splitter split(rt, subs);
    for (const auto& sizes : splits_of(16)) {
      LaunchHook hook = split.hook(sizes);
      const wl::Result r = w.run(hook, lc, 7);
      INFO(r.message);
      CHECK(r.ok);
      CHECK(r.output == whole.output);
      ++runs;
    }
  });
  check_cover(p.timeline(), subs, 16, runs);
}

// saxpy (tests/data/exec) as a launch description: y = a x + y over n = 1000 elements, 8 blocks of 128
// threads (the last block's top 24 threads do nothing); x and y seeded random floats.
TEST_CASE("deadline: a PTX kernel's sub-kernels cover its blocks once and give the hand-computed output") {
  const nlohmann::json desc = {
      {"ptx", std::string(GPUVP_SOURCE_DIR) + "/tests/data/exec/saxpy.ptx"}, {"kernel", "saxpy"}, {"grid", {8}}, {"block", {128}},
      {"args", {{{"i32", 1000}}, {{"f32", 2.5}},
                {{"buffer", {{"type", "f32"}, {"count", 1000}, {"init", "random"}, {"seed", 3}}}},
                {{"buffer", {{"type", "f32"}, {"count", 1000}, {"init", "random"}, {"seed", 4}}}}}}};
  const ExecJob job = ExecJob::parse(desc, ExecSource{"test", "", "", false});
  const auto x = exec::random_values<float>("f32", 1000, 3), y = exec::random_values<float>("f32", 1000, 4);
  std::vector<float> expected(1000);
  for (size_t i = 0; i < 1000; ++i) expected[i] = std::fma(2.5f, x[i], y[i]);
  Platform p(Config::preset("tx2"));
  p.record_timeline();
  std::vector<SubRun> subs;
  size_t runs = 0;
  p.run([&](rt::Runtime& rt) {
    Splitter split(rt, subs);
    for (const auto& sizes : splits_of(8)) {
      ExecJob j = job;
      LaunchHook hook = split.hook(sizes);
      j.run(hook);
      std::vector<float> got(1000);
      std::memcpy(got.data(), j.bufs[1].bytes.data(), 4000);
      CHECK(got == expected);
      ++runs;
    }
  });
  check_cover(p.timeline(), subs, 8, runs);
}
