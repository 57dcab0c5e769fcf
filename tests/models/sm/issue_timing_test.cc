// Issue timing with several warp schedulers, dual issue and execution units (docs/sm.md, "Issue
// timing"). Expected cycles are worked out by hand from the rules:
// - instruction fetches take no time (the env below), global accesses L = 100 cycles;
// - a scheduler issues at most dispatch_per_scheduler instructions per cycle; an instruction holds it
//   issue = ceil(32 / (sps / schedulers)) cycles; warp w belongs to scheduler w mod schedulers;
// - an instruction of a unit with u lanes per scheduler holds it ceil(32 / u) cycles (u >= 32: one
//   cycle, and a unit wider than a warp takes a second instruction in the same cycle while lanes are
//   left); its warp is ready again max(issue, unit cycles) + the class latency after the issue
//   (lat.mul = 4, lat.fp64 = 8, lat.alu = 4 here).
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>

#include <nlohmann/json.hpp>

#include "sm_test_util.h"

using namespace smtest;

namespace {

// Fetches take fetch_lat cycles (0 unless a test says), global accesses kLat cycles.
constexpr uint64_t kLat = 100;
struct TimedEnv : ArrayEnv {
  uint64_t fetch_lat = 0;
  uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, AtomicExtension* atomic, uint64_t t,
                  Fault& f) override {
    latency = port == Port::Fetch ? fetch_lat : kLat;
    return ArrayEnv::access(port, addr, data, len, write, atomic, t, f);
  }
};

struct Core {
  SmConfig cfg;
  TimedEnv env;
  std::unique_ptr<SimtCore> core;
  std::vector<uint64_t> issues;
  LaunchParams lp;

  Core(unsigned sps, unsigned schedulers, unsigned dispatch = 1) {
    cfg.sps = sps;
    cfg.schedulers = schedulers;
    cfg.dispatch = dispatch;
    cfg.max_threads = 2048;
    cfg.max_blocks = 32;
    cfg.ibuf_insts = 256;  // the tk1/tx2 presets' buffer: the test programs fit
    lp.entry = kCode;
    lp.num_regs = 24;
    lp.num_preds = 2;
    lp.blocks = {0};
  }
  // Runs `p` with one block of `threads`; the cycle the last warp finished.
  uint64_t run(const Prog& p, unsigned threads) {
    auto bytes = p.encode();
    std::memcpy(env.code.data(), bytes.data(), bytes.size());
    core = std::make_unique<SimtCore>(cfg, env);
    core->set_issue_log(&issues);
    lp.block[0] = threads;
    REQUIRE(core->launch(lp, 0));
    REQUIRE(core->run());
    return core->now();
  }
  const SmStats::Scheduler& sched(unsigned s) const { return core->stats().schedulers.at(s); }
  uint64_t stall(unsigned s, StallReason r) const { return sched(s).stall_cycles[size_t(r)]; }
};

// n independent fma.f32 (destinations r0..r7 in turn, sources r8..r10), then exit.
Prog fmas(unsigned n, DType t = DType::F32) {
  Prog p;
  for (unsigned k = 0; k < n; ++k) p.add(Opcode::Fma, t, {R(k % 8), R(8), R(9), R(10)});
  p.add(Opcode::Exit, DType::None, {});
  return p;
}

uint64_t stall_sum(const SmStats::Scheduler& s) {
  return std::accumulate(std::begin(s.stall_cycles), std::end(s.stall_cycles), uint64_t{0});
}

}  // namespace

TEST_CASE("issue timing: 8 warps of independent FMAs on 1 and on 4 schedulers") {
  // 1 scheduler of 32 lanes: one instruction per cycle for the SM; warp i issues its k-th
  // instruction at 8k + i (8 warps in turn, each ready 5 cycles after its issue): exit of warp 7
  // (k = 10) at 87, done at 88.
  Core one(32, 1);
  CHECK(one.run(fmas(10), 256) == 88);
  // 4 schedulers of 32 lanes: scheduler s has warps s and s + 4; warp s issues at 5k, warp s + 4 at
  // 5k + 1 (latency-bound): the last exit at 51, done at 52. Every scheduler issues 22 instructions.
  Core four(128, 4);
  CHECK(four.run(fmas(10), 256) == 52);
  for (unsigned s = 0; s < 4; ++s) {
    CHECK(four.sched(s).warp_insts == 22);
    CHECK(four.sched(s).cycles == 52);
    CHECK(four.sched(s).issue_cycles + stall_sum(four.sched(s)) == 52);
    CHECK(four.stall(s, StallReason::Dependency) == 30);  // 3 cycles after each of the 10 pairs
  }
  // The issue log: 8 instructions at cycle 0 (one per scheduler and warp pair, first of each).
  CHECK(std::count(four.issues.begin(), four.issues.end(), 0u) == 4);
  CHECK(std::count(four.issues.begin(), four.issues.end(), 1u) == 4);
}

TEST_CASE("issue timing: a scheduler without warps stalls for no warp") {
  Core c(128, 4);
  // One warp (scheduler 0): fma at 0, 5, exit at 10, done at 11.
  CHECK(c.run(fmas(2), 32) == 11);
  CHECK(c.sched(0).issue_cycles == 3);
  CHECK(c.stall(0, StallReason::Dependency) == 8);
  for (unsigned s = 1; s < 4; ++s) {
    CHECK(c.stall(s, StallReason::NoWarp) == 11);
    CHECK(c.sched(s).cycles == 11);
  }
}

TEST_CASE("issue timing: dual issue of independent and dependent pairs") {
  Prog indep;
  indep.add(Opcode::Fma, DType::F32, {R(0), R(8), R(9), R(10)});
  indep.add(Opcode::Fma, DType::F32, {R(1), R(8), R(9), R(10)});
  indep.add(Opcode::Exit, DType::None, {});
  Prog dep;
  dep.add(Opcode::Fma, DType::F32, {R(0), R(8), R(9), R(10)});
  dep.add(Opcode::Fma, DType::F32, {R(1), R(0), R(9), R(10)});  // reads r0
  dep.add(Opcode::Exit, DType::None, {});
  // Kepler-like: 4 schedulers of 48 lanes, 2 dispatch. Independent: both FMAs at 0 (the lanes hold
  // 64 of 48 lane-slots of cycles 0..1), exit at 5, done at 6.
  Core a(192, 4, 2);
  CHECK(a.run(indep, 32) == 6);
  CHECK(a.issues == std::vector<uint64_t>{0, 0, 5});
  CHECK(a.sched(0).dual_issued == 1);
  // Dependent: the second waits for the first's latency: 0, 5, exit at 10.
  Core b(192, 4, 2);
  CHECK(b.run(dep, 32) == 11);
  CHECK(b.issues == std::vector<uint64_t>{0, 5, 10});
  CHECK(b.sched(0).dual_issued == 0);
  // Single dispatch: independent instructions issue as the dependent ones.
  Core c(192, 4, 1);
  CHECK(c.run(indep, 32) == 11);
  CHECK(c.issues == std::vector<uint64_t>{0, 5, 10});
}

TEST_CASE("issue timing: a unit of 48 lanes takes 1.5 warp instructions per cycle") {
  // One scheduler of 48 lanes with dual issue, 8 warps of independent FMAs. Lane-slots booked beyond
  // the cycle's start: 0 -> a pair (64: 16 into the next cycle) -> one (16 + 32 = 48: full) -> 0 ...
  // so cycles alternate two and one instructions, a warp each.
  Core c(48, 1, 2);
  c.run(fmas(60), 256);
  CHECK(std::vector<uint64_t>(c.issues.begin(), c.issues.begin() + 6) == std::vector<uint64_t>{0, 0, 1, 2, 2, 3});
  // While every warp has FMAs left (each is picked every 8 cycles, more than its 5 of latency; the
  // first finishes after 30 pairs, past cycle 232): at most 3 instructions per 2 cycles, 150 in
  // cycles 0..99. A warp whose second instruction lies in a line not yet fetched (the leading warp
  // at a line boundary: 28-byte instructions, 128-byte lines) issues it alone: a few fewer.
  const auto early = std::count_if(c.issues.begin(), c.issues.end(), [](uint64_t t) { return t < 100; });
  CHECK(early <= 150);
  CHECK(early >= 140);
  CHECK(c.sched(0).dual_issued > 0);
}

TEST_CASE("issue timing: fp64 units at 1/32 of the fp32 rate, and their stall reasons") {
  // One scheduler of 32 lanes and 1 fp64 unit: an fp64 instruction holds it 32 cycles, its warp is
  // ready 32 + 8 cycles after the issue. Two warps of 3 independent fp64 FMAs: the unit takes one
  // every 32 cycles: w0 at 0, 64, 128, w1 at 32, 96, 160; exits at 128 + 40 = 168 and 160 + 40 = 200.
  Core d(32, 1);
  d.cfg.units_fp64 = 1;
  CHECK(d.run(fmas(3, DType::F64), 64) == 201);
  CHECK(d.issues == std::vector<uint64_t>{0, 32, 64, 96, 128, 160, 168, 200});
  // Stalls (worked out cycle by cycle): the unit busy while the other warp waits for it (1..31, then
  // 24 cycles after each of the next four fp64 issues), the latency otherwise (7 after each of the
  // five issues 33.., and 169..199).
  CHECK(d.sched(0).issue_cycles == 8);
  CHECK(d.stall(0, StallReason::UnitBusy) == 31 + 4 * 24);
  CHECK(d.stall(0, StallReason::Dependency) == 5 * 7 + 31);
  CHECK(d.sched(0).cycles == 201);
  CHECK(d.sched(0).issue_cycles + stall_sum(d.sched(0)) == 201);
  CHECK(d.core->stats().inst_class[size_t(InstClass::Fp64)] == 6);
  CHECK(d.core->stats().inst_class[size_t(InstClass::Control)] == 2);
  // The one launch (one block of 64 threads) holds them all.
  REQUIRE(d.core->stats().launches.size() == 1);
  CHECK(d.core->stats().launches[0].blocks_run == 1);
  CHECK(d.core->stats().launches[0].inst_class[size_t(InstClass::Fp64)] == 6);
  CHECK(d.core->stats().launches[0].inst_class[size_t(InstClass::Control)] == 2);
  // The same in fp32 on the lanes: w0 at 0, 5, 10, w1 at 1, 6, 11, exits at 15 and 16.
  Core f(32, 1);
  CHECK(f.run(fmas(3), 64) == 17);
  CHECK(f.core->stats().inst_class[size_t(InstClass::Fp32)] == 6);
}

TEST_CASE("issue timing: SFU instructions share the scheduler's special function units") {
  // 8 SFU lanes per scheduler: an rcp holds them 4 cycles; 2 warps of 2 rcp.f32 (lat.sfu = 16):
  // w0 at 0, w1 at 4 (held by the unit at 1..3), w0 at 4 + 16 = 20 (ready at 0 + 4 + 16), w1 at 24,
  // exits at 20 + 20 = 40 and 44, done at 45.
  Core c(32, 1);
  c.cfg.units_sfu = 8;
  Prog p;
  p.add(Opcode::Rcp, DType::F32, {R(0), R(8)});
  p.add(Opcode::Rcp, DType::F32, {R(1), R(8)});
  p.add(Opcode::Exit, DType::None, {});
  CHECK(c.run(p, 64) == 45);
  CHECK(c.issues == std::vector<uint64_t>{0, 4, 20, 24, 40, 44});
  CHECK(c.stall(0, StallReason::UnitBusy) == 3);
  CHECK(c.core->stats().inst_class[size_t(InstClass::Sfu)] == 4);
}

TEST_CASE("issue timing: a load's wait is a pending-load stall, a result's a dependency stall") {
  // One warp: ld.global at 0 (transaction at 1, data at 101, usable at 105), add reading it at 105,
  // exit at 110, done at 111.
  Core c(32, 1);
  Prog p;
  p.add(Opcode::Mov, DType::U64, {R(1), I(int64_t(kGlob))});
  p.add(Opcode::Ld, DType::U32, {R(0), M(1, 0)}).mod.space = Space::Global;
  p.add(Opcode::Add, DType::U32, {R(2), R(0), I(1)});
  p.add(Opcode::Exit, DType::None, {});
  // mov at 0, ld at 5, its data at 5 + 1 + 100 = 106, usable at 110: add at 110, exit at 115.
  CHECK(c.run(p, 1) == 116);
  CHECK(c.issues == std::vector<uint64_t>{0, 5, 110, 115});
  CHECK(c.stall(0, StallReason::PendingLoad) == 104);  // 6..109
  CHECK(c.stall(0, StallReason::Dependency) == 4 + 4);  // 1..4, 111..114
  CHECK(c.core->stats().inst_class[size_t(InstClass::Global)] == 1);
  CHECK(c.core->stats().inst_class[size_t(InstClass::Move)] == 1);
  CHECK(c.core->stats().inst_class[size_t(InstClass::Int)] == 1);
}

namespace {
// The former single-issue timing, computed independently for straight-line code of one latency
// class: one instruction at a time for the SM, ceil(32 / sps) cycles each, a warp ready `lat`
// cycles after its instruction's issue cycles; rr picks the next ready warp after the last one,
// gto the last one while ready, else the lowest.
uint64_t former_timing(unsigned sps, unsigned warps, unsigned insts, unsigned lat, bool gto) {
  const uint64_t issue = (32 + sps - 1) / sps;
  std::vector<uint64_t> ready(warps, 0);
  std::vector<unsigned> left(warps, insts);
  uint64_t now = 0;
  int last = -1;
  for (unsigned done = 0; done < warps;) {
    int pick = -1;
    if (gto && last >= 0 && left[last] && ready[last] <= now) pick = last;
    for (unsigned k = 0; pick < 0 && k < warps; ++k) {
      const unsigned i = gto ? k : (unsigned(last + 1) + k) % warps;
      if (left[i] && ready[i] <= now) pick = int(i);
    }
    if (pick < 0) {
      uint64_t t = ~uint64_t{0};
      for (unsigned i = 0; i < warps; ++i)
        if (left[i]) t = std::min(t, ready[i]);
      now = t;
      continue;
    }
    now += issue;
    ready[pick] = now + lat;
    last = pick;
    if (--left[pick] == 0) ++done;
  }
  return now;
}
}  // namespace

TEST_CASE("issue timing: one scheduler with units as wide as the lanes is the former timing") {
  // Straight-line fma.f32 (lat.mul = 4) then exit (lat.branch = 2; its latency follows no one),
  // over SPs, warps and policies; explicit unit counts equal to the SPs change nothing.
  for (unsigned sps : {8u, 12u, 32u, 128u})
    for (unsigned warps : {1u, 3u, 8u})
      for (bool gto : {false, true}) {
        Core c(sps, 1);
        c.cfg.warp_policy = gto ? WarpPolicy::Gto : WarpPolicy::RoundRobin;
        c.cfg.units_fp64 = c.cfg.units_sfu = c.cfg.units_ldst = sps;
        // fmas(6): 6 FMAs and the exit, all the FMA's latency apart (the exit's own latency is unused).
        INFO("sps " << sps << " warps " << warps << " gto " << gto);
        CHECK(c.run(fmas(6), 32 * warps) == former_timing(sps, warps, 7, 4, gto));
      }
}

namespace {
// The SM parameters of a preset (platform/presets/NAME.json), as the platform gives them to the core.
SmConfig preset_sm(const std::string& name) {
  std::ifstream f(std::string(GPUVP_TEST_DATA) + "/../../platform/presets/" + name + ".json");
  REQUIRE(f);
  const nlohmann::json sm = nlohmann::json::parse(f).at("sm");
  SmConfig c;
  c.sps = sm.at("sps");
  c.schedulers = sm.value("schedulers", 1u);
  c.dispatch = sm.value("dispatch_per_scheduler", 1u);
  if (sm.contains("units")) {
    c.units_fp64 = sm["units"].value("fp64", 0u);
    c.units_sfu = sm["units"].value("sfu", 0u);
    c.units_ldst = sm["units"].value("ldst", 0u);
  }
  c.max_threads = sm.at("max_threads");
  c.max_blocks = sm.at("max_blocks");
  c.ibuf_insts = sm.at("ibuf_insts");
  return c;
}

// FMA throughput: 32 warps (1024 threads), 64 independent fma.f32 each; thread-instructions per cycle.
double fma_rate(const SmConfig& cfg) {
  Core c(cfg.sps, cfg.schedulers, cfg.dispatch);
  c.cfg = cfg;
  const uint64_t end = c.run(fmas(64), 1024);
  return double(c.core->stats().inst_class[size_t(InstClass::Fp32)] * 32) / double(end);
}
}  // namespace

TEST_CASE("issue timing: FMA throughput of the tx2 and tk1 SMs") {
  // tx2 (Pascal GP10B SM): 4 x 32 fp32 lanes, peak 128 per cycle; within 5 % (the ramp-up and the
  // exits of 64-instruction warps).
  const double tx2 = fma_rate(preset_sm("tx2"));
  CHECK(tx2 >= 0.95 * 128);
  CHECK(tx2 <= 128);
  // tk1 (Kepler GK20A SMX): 192 lanes reached only with dual issue; without it 4 x 32 = 2/3 of them.
  const SmConfig tk1 = preset_sm("tk1");
  const double dual = fma_rate(tk1);
  CHECK(dual >= 0.95 * 192);
  CHECK(dual <= 192);
  SmConfig single = tk1;
  single.dispatch = 1;
  const double one = fma_rate(single);
  CHECK(one >= 0.95 * 128);
  CHECK(one <= 128);
}

namespace {
// Threads 0..31 (warp 0) branch over `fmas` FMAs that warp 1 runs, to a barrier (if `barrier`) and exit.
Prog warp0_skips(unsigned fmas, bool barrier) {
  Prog p;
  p.add(Opcode::Mov, DType::U32, {R(1), S(SReg::TidX)});
  Inst setp = mk(Opcode::Setp, DType::U32, {P(0), None(), R(1), I(32)});
  setp.mod.cmp = Cmp::Lt;
  p.add(setp);
  Inst bra = mk(Opcode::Bra, DType::None, {L(1)});
  bra.guard = 0;
  p.add(bra);
  for (unsigned k = 0; k < fmas; ++k) p.add(Opcode::Fma, DType::F32, {R(k), R(8), R(9), R(10)});
  p.label(1);
  if (barrier) p.add(Opcode::Bar, DType::None, {I(0)});
  p.add(Opcode::Exit, DType::None, {});
  return p;
}
}  // namespace

TEST_CASE("issue timing: barrier stalls while every warp of the scheduler waits at a barrier") {
  // One scheduler of 32 lanes, 2 warps. Warp 0 branches over three FMAs to the barrier; warp 1 runs them.
  // mov: w0 0, w1 1 (lat.alu 4); setp: 5, 6; bra: 10 (taken), 11 (lat.branch 2); w0 bar at 13 (waits);
  // w1 fma at 14, 19, 24, bar at 29: the barrier completes at 29 + 1, both warps ready at 30 + 2 = 32;
  // exits at 32 and 33, done at 34. Idle cycles: 2..4, 7..9, 12, 15..18, 20..23, 25..28 wait for a
  // latency (19: warp 1 is the first to become ready), 30..31 for the barrier (2).
  Core c(32, 1);
  CHECK(c.run(warp0_skips(3, true), 64) == 34);
  CHECK(c.issues == std::vector<uint64_t>{0, 1, 5, 6, 10, 11, 13, 14, 19, 24, 29, 32, 33});
  CHECK(c.stall(0, StallReason::Dependency) == 19);
  CHECK(c.stall(0, StallReason::Barrier) == 2);
  CHECK(c.sched(0).issue_cycles == 13);
  CHECK(c.core->stats().inst_class[size_t(InstClass::Barrier)] == 2);
  CHECK(c.core->stats().inst_class[size_t(InstClass::Control)] == 4);  // two bra, two exit
}

TEST_CASE("issue timing: a fetch miss holds the scheduler for the fetch") {
  // One warp, mov then exit, both in one 128-byte line fetched in 50 cycles: the fetch at cycle 0
  // returns the line at 50, mov issues at 50 (lat.alu 4: ready at 55), exit at 55 from the same line
  // (no second fetch), done at 56.
  Core c(32, 1);
  c.env.fetch_lat = 50;
  Prog p;
  p.add(Opcode::Mov, DType::U32, {R(1), S(SReg::TidX)});
  p.add(Opcode::Exit, DType::None, {});
  CHECK(c.run(p, 32) == 56);
  CHECK(c.issues == std::vector<uint64_t>{50, 55});
  CHECK(c.stall(0, StallReason::Fetch) == 50);       // 0..49
  CHECK(c.stall(0, StallReason::Dependency) == 4);   // 51..54
  CHECK(c.sched(0).issue_cycles == 2);
  CHECK(c.core->stats().fetches == 1);
}

TEST_CASE("issue timing: a load without a free scoreboard entry is a memory-port stall") {
  // sm.max_pending_loads = 1, one thread, two independent loads, then exit. mov at 0 (ready 5). The
  // first ld at 5 takes the only scoreboard entry: its transaction at 6, data at 106, usable at 110;
  // until then the warp can issue nothing that might load (the second ld), a memory-port stall,
  // 6..109 (104 cycles). The second ld issues at 110 and takes the entry again: data at 211, usable
  // at 215, when the exit (which waits for every pending load) issues; the warp, its scoreboard full,
  // is held by the port again, 111..214 (104). Done at 216: 4 issues, 4 dependency cycles (1..4) and
  // 208 memory-port cycles.
  Core c(32, 1);
  c.cfg.max_pending_loads = 1;
  Prog p;
  p.add(Opcode::Mov, DType::U64, {R(1), I(int64_t(kGlob))});
  p.add(Opcode::Ld, DType::U32, {R(0), M(1, 0)}).mod.space = Space::Global;
  p.add(Opcode::Ld, DType::U32, {R(2), M(1, 4)}).mod.space = Space::Global;
  p.add(Opcode::Exit, DType::None, {});
  CHECK(c.run(p, 1) == 216);
  CHECK(c.issues == std::vector<uint64_t>{0, 5, 110, 215});
  CHECK(c.stall(0, StallReason::MemoryPort) == 208);
  CHECK(c.stall(0, StallReason::Dependency) == 4);
  CHECK(c.stall(0, StallReason::PendingLoad) == 0);
  // One transaction per load of one thread: the SM issued two.
  CHECK(c.core->stats().mem_transactions == 2);
}

TEST_CASE("issue timing: a nanosleep's wait is a nanosleep stall") {
  // At 1300 MHz (a 769 ps period) nanosleep 1000 sleeps ceil(1000000 / 769) = 1301 cycles: issued at
  // 0, it ends at 1 + 1301 = 1302, the warp ready at 1302 + lat.alu 4 = 1306; exit at 1306, done at
  // 1307. Cycles 1..1305 wait for the sleep (1305), the other 2 issue.
  Core c(32, 1);
  c.cfg.clock = Clock(1300.0);
  Prog p;
  p.add(Opcode::Nanosleep, DType::U32, {I(1000)});
  p.add(Opcode::Exit, DType::None, {});
  CHECK(c.run(p, 32) == 1307);
  CHECK(c.issues == std::vector<uint64_t>{0, 1306});
  CHECK(c.stall(0, StallReason::Nanosleep) == 1305);
  CHECK(c.sched(0).issue_cycles == 2);
  CHECK(c.core->stats().inst_class[size_t(InstClass::Control)] == 2);  // nanosleep and exit
}

TEST_CASE("issue timing: resident warps averaged over the cycles a block is resident") {
  // Two warps on one scheduler; warp 0 branches to exit, warp 1 runs two FMAs first. mov: 0, 1;
  // setp: 5, 6; bra: 10, 11 (lat.branch 2); warp 0 exits at 13, warp 1 fma at 14, 19, exit at 24,
  // done at 25. A warp is resident from its block's start (0) to the end of its exit's cycle: warp 0
  // 14 cycles, warp 1 25, over 25 cycles: 39 / 25 = 1.56 warps.
  Core c(32, 1);
  CHECK(c.run(warp0_skips(2, false), 64) == 25);
  CHECK(c.issues == std::vector<uint64_t>{0, 1, 5, 6, 10, 11, 13, 14, 19, 24});
  CHECK(c.sched(0).cycles == 25);
  CHECK(c.core->stats().warp_resident_cycles == 14 + 25);
  // As the statistics write it (sms[i].issue.resident_warps_avg = warp_resident_cycles / cycles).
  CHECK(double(c.core->stats().warp_resident_cycles) / double(c.sched(0).cycles) == Approx(1.56));
}
