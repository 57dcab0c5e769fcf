// Access recording of the Verilated block scheduler (rtl/flop_accesses.h): the fates found by
// evaluation on a hand-worked launch (2 blocks, 1 SM, one block per batch) edge by edge, including
// skipped edges; the same live bit-time as the SystemC model's recording on the same launches (they
// are cycle-equal implementations); and recording leaves the golden run exactly as it was.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "faultinj/lifetimes.h"
#include "platform/forked_json.h"
#include "platform/platform.h"
#include "rtl/flop_accesses.h"
#include "rtl/stall_arbiter_wrapper.h"
#include "recorded_golden.h"

using namespace gpuvp;
using gpuvp::fi::GoldenRun;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;

using gpuvp::fi::test::access_events;

TEST_CASE("rtl lifetimes: hand-worked fates of the scheduler's flip-flops over a 2-block launch") {
  // SM_TOT 1, 1 block per core, grid 2x1x1: two batches of one block. The design is driven edge by
  // edge (period 10), edges 70, 80, 90 skipped as the wrapper skips a quiet wait.
  auto m = rtl::make_block_scheduler(1, "lt_hand");
  m->power_on_reset();
  Registry reg;
  register_flops(reg, *m, "s", {});
  const std::vector<std::string> dims = {"block_x", "block_y", "block_z", "grid_x", "grid_y", "grid_z", "shmem_per_block"};
  std::vector<std::string> consumed = dims;
  consumed.insert(consumed.end(), {"num_blocks[0]", "block_idx[0]"});
  std::vector<std::string> observed = consumed;
  observed.insert(observed.end(), {"blocks_scheduled_cnt", "smp_done_array", "threads_per_block"});
  rtl::FlopAccesses acc(*m, reg, "s", 10, observed, consumed, "smp_en");
  for (const char* p : {"cfg_blocks_per_core", "cfg_grid_y", "cfg_grid_z", "cfg_block_y", "cfg_block_z"}) m->port(p).set(1);
  m->port("cfg_grid_x").set(2);
  m->port("cfg_block_x").set(32);
  std::vector<AccessEvent> log;
  reg.record_accesses(&log);
  // Inputs per evaluated edge: en at 10 only, smp_done at 100 and 150 (one-cycle pulses).
  for (uint64_t t : {10, 20, 30, 40, 50, 60, 100, 110, 120, 130, 140, 150, 160, 170, 180}) {
    m->port("en").set(t == 10);
    m->port("smp_done").set(t == 100 || t == 150);
    const std::vector<uint64_t> before = [&] {
      std::vector<uint64_t> v;
      for (const auto& f : m->flops()) v.push_back(f.var.get());
      return v;
    }();
    acc.before_edge(t);
    for (size_t i = 0; i < before.size(); ++i) REQUIRE(m->flops()[i].var.get() == before[i]);  // restored
    m->edge();
  }
  acc.finish(200);  // the run ends at 200: edges 190 and 200 are skipped after the idle edge 180
  reg.record_accesses(nullptr);
  // Worked from rtl/block_scheduler.sv. States: 10 IDLE (en), 20 CALC, 30 CHECK, 40 SCHEDULE (smp_en
  // rises), 50 60 (70 80 90 skipped) 100 WAIT (done arrives at 100, seen at 110), 110 leaves the wait,
  // 120 CALC, 130 CHECK, 140 SCHEDULE, 150 WAIT (done), 160 leaves, 170 CALC (2 >= 2: kernel done), 180 IDLE.
  // The counter: cleared in IDLE (a write, also at the last skipped idle edge 200), compared in CALC,
  // copied to block_idx in CHECK, incremented in SCHEDULE (its own next value depends on it: a read);
  // the wait holds it unread.
  CHECK(access_events(reg, log, "s.blocks_scheduled_cnt") == "W10 R20 R30 R40 R120 R130 R140 R170 W180 W200");
  // Cleared at dispatch; in the wait its population count is compared with the active SMs' at every
  // edge, the skipped ones (70..90) too: one read span.
  CHECK(access_events(reg, log, "s.smp_done_array") == "W40 R50 R60 S70-90 R100 R110 W140 R150 R160");
  // num_blocks: written in CALC, read at dispatch (smp_en, the batch sum, and the SM that samples it),
  // and in the wait only at the edge that compares the counts equal: before, a zero count (no active
  // SM) would not leave the wait either, so the fault is held until that edge.
  CHECK(access_events(reg, log, "s.num_blocks[0]") == "W20 R40 R110 W120 R140 R160");
  // Launch outputs: loaded in CHECK, read by the SM when its smp_en rises; threads_per_block by no one.
  CHECK(access_events(reg, log, "s.block_x") == "W30 R40 W130 R140");
  CHECK(access_events(reg, log, "s.block_idx[0]") == "W30 R40 W130 R140");
  CHECK(access_events(reg, log, "s.threads_per_block") == "W30 W130");
  CHECK(reg.at("s.blocks_scheduled_cnt").reads_observed);
  CHECK_FALSE(reg.at("s.state").reads_observed);
  CHECK(acc.probes() > 15);
}

namespace {

const char* kNopPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry nop()
{
  ret;
}
)";

// A platform per process (SystemC elaborates once): each recording runs in a forked child
// (json_in_child), which answers with the run (dispatch instants, phases, end of the last kernel, state
// hash) and, per observed target, its live bit-time over [0, end of the last kernel).
struct Recorded {
  std::string run;                     // dispatches, phases, end, state hash
  std::map<std::string, double> live;  // observed target -> live bit-time
};

// Launches of the empty kernel with grids that make full, partial and single-SM batches, recording
// accesses or not.
Recorded record(const std::string& impl, unsigned sms, bool recording = true) {
  const nlohmann::json j = json_in_child([&] {
    Config c = Config::preset("flexgrip");
    c.set(fmt::format("sm.count={}", sms));
    c.set("scheduler.impl=" + impl);
    Platform p(c);
    GoldenRun g;
    p.record_markers();
    if (recording) p.registry().record_accesses(&g.accesses);
    p.run([&](rt::Runtime& rt) {
      auto m = rt.load_module(kNopPtx, "nop.ptx");
      for (unsigned blocks : {5u, 1u, 19u}) rt.launch(m, "nop", {blocks}, {32}, rt::KernelArgs{});
      rt.synchronize();
    });
    p.registry().record_accesses(nullptr);
    g.targets = fi::test::target_descs(p.registry());
    const uint64_t end = p.kernel_windows().back().second;
    std::string s = fmt::format("dispatch {} end {} hash {} accesses {} phases", fmt::join(p.dispatch_times(), ","), end,
                                p.state_hash(), g.accesses.empty() ? "none" : "some");
    for (const auto& [name, at] : p.scheduler_phases()) s += fmt::format(" {}@{}", name, at);
    const Lifetimes lt(g);
    nlohmann::json live = nlohmann::json::object();
    for (const std::string& t : lt.observed_targets()) live[t] = lt.ace(t, 0, end).live_bit_ps;
    return nlohmann::json{{"run", s}, {"live", live}};
  }, "recording");
  Recorded r;
  r.run = j.at("run").get<std::string>();
  r.live = j.at("live").get<std::map<std::string, double>>();
  return r;
}

}  // namespace

TEST_CASE("rtl lifetimes: the RTL's live bit-time equals the model's on every observed register, 1 and 2 SMs") {
  for (unsigned sms : {1u, 2u}) {
    INFO(sms << " SMs");
    const Recorded model = record("model", sms), rtl = record("rtl", sms);
    // Cycle-equal implementations: the same dispatches, phases and end (not the same state hash: the
    // RTL registers prng for every policy).
    CHECK(model.run.substr(0, model.run.find(" hash")) == rtl.run.substr(0, rtl.run.find(" hash")));
    // Every target both record (the scheduler's, the arbiters' and the SMs' registers), the scheduler's
    // 10 + 2 per SM and the 5 read at every instant among them; the RTL's prng too, which the round-robin
    // policy never reads (the model registers it for the random policy only).
    CHECK(std::count_if(model.live.begin(), model.live.end(), [](const auto& e) { return e.first.rfind("gpu.sched.", 0) == 0; }) ==
          15 + 2 * sms);
    std::map<std::string, double> rtl_live = rtl.live;
    REQUIRE(rtl_live.count("gpu.sched.prng"));
    CHECK(rtl_live.at("gpu.sched.prng") == 0);
    rtl_live.erase("gpu.sched.prng");
    CHECK(rtl_live == model.live);
    CHECK(model.live.at("gpu.sched.blocks_scheduled_cnt") > 0);
    CHECK(model.live.at("gpu.sched.num_blocks[0]") > 0);
    CHECK(model.live.at("gpu.sched.threads_per_block") == 0);  // no consumer reads it
  }
}

TEST_CASE("rtl lifetimes: recording leaves the RTL golden run as it is (dispatches, phases, end, state)") {
  for (unsigned sms : {1u, 2u, 3u}) {
    INFO(sms << " SMs");
    Recorded on = record("rtl", sms, true), off = record("rtl", sms, false);
    INFO(on.run);
    INFO(off.run);
    const std::string some = "accesses some", none = "accesses none";
    REQUIRE(on.run.find(some) != std::string::npos);
    REQUIRE(off.run.find(none) != std::string::npos);
    on.run.replace(on.run.find(some), some.size(), none);
    CHECK(on.run == off.run);
  }
}

namespace {

// The access log of an observed design driven edge by edge by `drive(t)` (which sets the inputs of the
// edge at t, or returns false to skip it), with the fates of repeated states reused or not, and the
// number of probes it took.
template <class Drive>
std::pair<std::string, uint64_t> driven_log(std::unique_ptr<rtl::VModel> m, const std::vector<std::string>& observed,
                                            const std::vector<std::string>& consumed, const std::string& strobe,
                                            bool memoise, uint64_t edges, Drive drive) {
  m->power_on_reset();
  Registry reg;
  register_flops(reg, *m, "d", {});
  rtl::FlopAccesses acc(*m, reg, "d", 10, observed, consumed, strobe);
  acc.set_memoise(memoise);
  std::vector<AccessEvent> log;
  reg.record_accesses(&log);
  for (uint64_t t = 10; t <= 10 * edges; t += 10) {
    if (!drive(*m, t)) continue;
    acc.before_edge(t);
    m->edge();
  }
  acc.finish(10 * edges + 5);
  reg.record_accesses(nullptr);
  std::string s;
  for (const std::string& o : observed) s += o + ": " + access_events(reg, log, "d." + o) + "\n";
  return {s, acc.probes()};
}

}  // namespace

TEST_CASE("rtl lifetimes: fates reused at a repeated state and inputs are the probed ones (arbiter, scheduler)") {
  // Three requesters; requests, acks and skipped edges from a fixed linear congruential sequence that
  // restarts every 16 edges, so that the arbiter's states come round again.
  for (bool sequential : {false, true}) {
    INFO("sequential " << sequential);
    auto run = [&](bool memoise) {
      return driven_log(rtl::make_stall_arbiter(3, fmt::format("memo_arb_{}_{}", sequential, memoise)), {"last", "stall"}, {},
                        "state", memoise, 1000, [&](rtl::VModel& m, uint64_t t) {
                          uint64_t x = t / 10 % 16 + 1;
                          for (int i = 0; i < 3; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
                          m.port("sequential").set(sequential);
                          m.port("req").set(x >> 40);
                          m.port("ack").set(x >> 50);
                          return (x >> 60) % 4 != 0;
                        });
    };
    const auto probed = run(false), reused = run(true);
    CHECK(reused.first == probed.first);
    CHECK(reused.second * 4 < probed.second);  // most of the edges repeat an earlier one
  }
  // The scheduler through the same 2-block launch four times (round robin: from the second launch on,
  // each repeats the one before edge by edge; the first starts from reset values).
  const std::vector<std::string> consumed = {"block_x", "grid_x", "num_blocks[0]", "block_idx[0]"};
  std::vector<std::string> observed = consumed;
  observed.insert(observed.end(), {"blocks_scheduled_cnt", "smp_done_array", "threads_per_block", "prng"});
  auto run = [&](bool memoise) {
    return driven_log(rtl::make_block_scheduler(1, fmt::format("memo_sched_{}", memoise)), observed, consumed, "smp_en",
                      memoise, 80, [](rtl::VModel& m, uint64_t t) {
                        const uint64_t k = t % 200;  // a launch every 200 ps: en at 10, done at 100 and 150
                        for (const char* p : {"cfg_blocks_per_core", "cfg_grid_y", "cfg_grid_z", "cfg_block_y", "cfg_block_z"})
                          m.port(p).set(1);
                        m.port("cfg_grid_x").set(2);
                        m.port("cfg_block_x").set(32);
                        m.port("en").set(k == 10);
                        m.port("smp_done").set(k == 100 || k == 150);
                        return k < 70 || k > 90;
                      });
  };
  const auto probed = run(false), reused = run(true);
  CHECK(reused.first == probed.first);
  // As worked by hand in the first test case, the idle edges 190 to 210 evaluated here.
  CHECK(reused.first.find("blocks_scheduled_cnt: W10 R20 R30 R40 R120 R130 R140 R170 W180 W190 W200 W210 R220 ") !=
        std::string::npos);
  CHECK(reused.second * 3 < probed.second * 2);
}
