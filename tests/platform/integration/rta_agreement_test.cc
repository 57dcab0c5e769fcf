// The simulated TX2 against the response-time analysis of tx2-scheduling.md (sw/analysis/rta.h) for
// random kernel sets that meet the analysis' assumptions: all kernels reach the queues at the same
// instant (one host thread each, launched together), one block size for all, every block of kernel i
// spinning C_i. The analysis knows nothing of the simulator: if the dispatcher broke X1, placement or
// the slot accounting, completions would move by whole block times (multiples of 1 ms here).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "platform/platform.h"
#include "sw/analysis/rta.h"
#include "sw/kernels/kernels.h"

using namespace gpuvp;

namespace {

constexpr uint32_t kThreads = 256;  // one block size: 2048 / 256 = 8 blocks per SM, 16 on the TX2
constexpr uint64_t kSlots = 16;

struct Set {
  std::vector<rta::Kernel> kernels;
};

std::vector<Set> random_sets(unsigned count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
  std::vector<Set> sets(count);
  for (Set& s : sets)
    for (uint64_t k = 0, n = pick(2, 6); k < n; ++k)
      s.kernels.push_back({fmt::format("K{}", k), pick(1, 40), 1000000 * pick(1, 5)});
  return sets;
}

// Per kernel of a set: its blocks' own records (globaltimer ns), read back after the set ran.
struct Ran {
  std::vector<uint64_t> first_start, last_end;
  uint64_t queued_ns = 0;  // the instant the launches reached the queues (their calls completed)
};

Ran run_set(rt::Runtime& rt, const rt::Module& m, const std::vector<rt::Stream>& streams, const Set& s) {
  const size_t n = s.kernels.size();
  std::vector<rt::DevPtr> start(n), end(n), sm(n), spin(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t b = s.kernels[k].blocks;
    start[k] = rt.malloc(b * 8), end[k] = rt.malloc(b * 8), sm[k] = rt.malloc(b * 4), spin[k] = rt.malloc(b * 8);
    rt.memcpy_h2d(spin[k], std::vector<uint64_t>(b, s.kernels[k].block_ns).data(), b * 8);
  }
  Ran r;
  for (size_t k = 0; k < n; ++k)  // one host thread per kernel, all calling launch now, in kernel order
    rt.spawn([&, k](rt::Runtime& t) {
      rt::KernelArgs a;
      a.ptr(start[k]).ptr(end[k]).ptr(sm[k]).ptr(spin[k]).u32(1000000);
      t.launch_async(streams[k], m, "timerSpin", {uint32_t(s.kernels[k].blocks)}, {kThreads}, a);
      r.queued_ns = uint64_t(t.now_ns());
    });
  rt.join();
  rt.synchronize();
  for (size_t k = 0; k < n; ++k) {
    auto a = rt.download<uint64_t>(start[k], s.kernels[k].blocks), z = rt.download<uint64_t>(end[k], s.kernels[k].blocks);
    r.first_start.push_back(*std::min_element(a.begin(), a.end()));
    r.last_end.push_back(*std::max_element(z.begin(), z.end()));
    for (auto p : {start[k], end[k], sm[k], spin[k]}) rt.free(p);
  }
  return r;
}

}  // namespace

TEST_CASE("rta agreement: 50 random kernel sets on tx2, simulated completions = the analysis'") {
  const std::vector<Set> sets = random_sets(50, 20261123);
  std::vector<Ran> ran;
  Platform p(Config::preset("tx2"));
  p.run([&](rt::Runtime& rt) {
    const rt::Module m = rt.load_module(kernels::ptx("timerSpin"), "timerSpin.ptx");
    // The analysis' slots are the threads' limit: registers and shared memory must not bind first.
    const ptx::KernelInfo* k = m.image->find_kernel("timerSpin");
    REQUIRE(k);
    REQUIRE(uint64_t(k->regs_per_thread) * kThreads * 8 <= rt.device().registers);
    REQUIRE(rt.device().max_threads / kThreads * rt.device().sm_count == kSlots);
    std::vector<rt::Stream> streams;
    for (int i = 0; i < 6; ++i) streams.push_back(rt.create_stream(0));
    for (const Set& s : sets) ran.push_back(run_set(rt, m, streams, s));
  });
  REQUIRE(ran.size() == sets.size());
  double worst = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    const auto expected = rta::analyse(sets[i].kernels, kSlots);
    uint64_t blocks = 0;
    for (auto& k : sets[i].kernels) blocks += k.blocks;
    // Each wave of blocks adds what the analysis leaves out: the hand-over (a completion seen at the next
    // edge, one block per cycle), a block's first instructions before it reads %globaltimer (64 warps
    // of 8 blocks starting together on an SM share its issue slots and memory port: up to ~2 us), and
    // the last sleep's overshoot (~1 us). Allow 5 us per wave, far below the 1 ms of a misordering.
    const double tol_ns = 5000.0 * double(blocks / kSlots + sets[i].kernels.size() + 2);
    for (size_t k = 0; k < expected.size(); ++k) {
      INFO(fmt::format("set {} kernel {} ({} blocks of {} ns)", i, k, sets[i].kernels[k].blocks,
                       sets[i].kernels[k].block_ns));
      const double got_start = double(ran[i].first_start[k]) - double(ran[i].queued_ns);
      const double got_end = double(ran[i].last_end[k]) - double(ran[i].queued_ns);
      CHECK(got_start == Approx(double(expected[k].start_ns)).margin(tol_ns));
      CHECK(got_end == Approx(double(expected[k].completion_ns)).margin(tol_ns));
      worst = std::max({worst, std::abs(got_end - double(expected[k].completion_ns)),
                        std::abs(got_start - double(expected[k].start_ns))});
    }
  }
  WARN(fmt::format("largest deviation from the analysis: {:.0f} ns", worst));
}
