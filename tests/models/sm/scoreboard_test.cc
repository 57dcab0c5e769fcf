// The scoreboard of the issue timing (sm.max_pending_loads; docs/sm.md, "Scoreboard"). Expected
// cycles are worked out by hand from the rules below, for one thread (one transaction per load):
// - memory: every global access takes L = 100 cycles and holds its port 1 cycle (a pipelined
//   memory: last_release = start + 1); instruction fetches take no time;
// - sps = warp_size: an instruction issues in 1 cycle, then waits lat.alu = 4: ALU issue-to-issue 5;
// - a load issued at s: its transaction starts at s + 1, releases the port at s + 2, the warp may
//   issue again at s + 2 + 4 = s + 6; the data completes at s + 1 + L = s + 101 and is usable
//   (written) at s + 101 + 4 = s + 105, the old rule's ready cycle.
#include <catch2/catch.hpp>

#include "models/common/registry.h"
#include "sm_test_util.h"

using namespace smtest;

namespace {
constexpr uint64_t kLat = 100;

// ArrayEnv whose global port is pipelined, and which calls `at_sync` whenever the core syncs.
struct PipelinedEnv : ArrayEnv {
  uint64_t rel = 0;
  std::function<void(uint64_t)> at_sync;
  uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, AtomicExtension* atomic, uint64_t t,
                  Fault& f) override {
    latency = port == Port::Fetch ? 0 : kLat;
    rel = t + 1;
    return ArrayEnv::access(port, addr, data, len, write, atomic, t, f);
  }
  uint64_t last_release() const override { return rel; }
  void sync(uint64_t at) override {
    if (at_sync) at_sync(at);
  }
};

struct Sb {
  SmConfig cfg;
  PipelinedEnv env;
  std::unique_ptr<SimtCore> core;
  std::vector<uint64_t> issues;  // issue cycle of each instruction, in order
  LaunchParams lp;

  explicit Sb(unsigned bound) {
    cfg.sps = 32;
    cfg.max_pending_loads = bound;
    lp.entry = kCode;
    lp.num_regs = 16;
    lp.num_preds = 2;
    lp.blocks = {0};
    lp.block[0] = 1;
    for (unsigned i = 0; i < 8; ++i) env.put<uint64_t>(kGlob + 8 * i, 10 + i);
  }
  bool run(const Prog& p, uint64_t horizon = ~uint64_t{0}) {
    auto bytes = p.encode();
    std::memcpy(env.code.data(), bytes.data(), bytes.size());
    core = std::make_unique<SimtCore>(cfg, env);
    core->set_issue_log(&issues);
    core->set_horizon(horizon);
    return core->launch(lp, 0) && core->run();
  }
  uint64_t reg(unsigned r) const { return core->reg(0, 0, r); }
};

void base(Prog& p) { p.add(Opcode::Mov, DType::U64, {R(0), I(int64_t(kGlob))}); }  // issues at 0
void load(Prog& p, unsigned d, unsigned a, int64_t off) {
  p.add(Opcode::Ld, DType::U64, {R(d), M(a, off)}).mod.space = Space::Global;
}
void finish(Prog& p, unsigned r) {
  p.add(Opcode::St, DType::U64, {M(0, 0x100), R(r)}).mod.space = Space::Global;
  p.add(Opcode::Exit, DType::None, {});
}
// N independent loads into r1..rN, then r9 = r1 + ... + rN.
Prog independent(unsigned n) {
  Prog p;
  base(p);
  for (unsigned i = 0; i < n; ++i) load(p, 1 + i, 0, 8 * i);
  p.add(Opcode::Add, DType::U64, {R(9), R(1), I(0)});
  for (unsigned i = 1; i < n; ++i) p.add(Opcode::Add, DType::U64, {R(9), R(9), R(1 + i)});
  finish(p, 9);
  return p;
}
}  // namespace

TEST_CASE("scoreboard: independent loads overlap: one latency plus N issue slots") {
  Sb s(8);
  REQUIRE(s.run(independent(4)));
  // loads at 5, 11, 17, 23 (every 6); data at 110, 116, 122, 128; the first add needs r1 (110).
  CHECK(s.issues[1] == 5);
  CHECK(s.issues[4] == 23);
  CHECK(s.issues[5] == 110);  // add r9 = r1: 5 + 105, not 5 + 4 x 105
  CHECK(s.issues[8] == 128);  // the last use: 5 + 3 x 6 + 105
  CHECK(s.env.get<uint64_t>(kGlob + 0x100) == 10 + 11 + 12 + 13);
  Sb old(0);  // without a scoreboard each load waits for its data: 5, 110, 215, 320, use at 425
  REQUIRE(old.run(independent(4)));
  CHECK(old.issues[4] == 320);
  CHECK(old.issues[5] == 425);
}

TEST_CASE("scoreboard: a dependent chain pays the full latency per load") {
  Sb s(8);
  for (unsigned i = 0; i < 4; ++i) s.env.put<uint64_t>(kGlob + 0x40 * i, kGlob + 0x40 * (i + 1));
  Prog p;
  base(p);
  load(p, 1, 0, 0);
  for (unsigned i = 0; i < 3; ++i) load(p, 1, 1, 0);  // r1 = *r1
  finish(p, 1);
  REQUIRE(s.run(p));
  // each load reads the previous one's destination: 5, 110, 215, 320; the store at 425
  CHECK(s.issues == std::vector<uint64_t>{0, 5, 110, 215, 320, 425, s.issues.back()});
  CHECK(s.env.get<uint64_t>(kGlob + 0x100) == kGlob + 0x100);
}

TEST_CASE("scoreboard: at most B loads in flight: N loads take ceil(N/B) latencies") {
  Sb s(2);
  REQUIRE(s.run(independent(6)));
  // B = 2: loads at 5, 11; the third waits for the first's data (110): 110, 116; then 215, 221;
  // last data at 221 + 105 = 326.
  CHECK(std::vector<uint64_t>(s.issues.begin() + 1, s.issues.begin() + 7) ==
        std::vector<uint64_t>{5, 11, 110, 116, 215, 221});
  CHECK(s.issues[12] == 326);
  CHECK(s.env.get<uint64_t>(kGlob + 0x100) == 10 + 11 + 12 + 13 + 14 + 15);
}

TEST_CASE("scoreboard: only instructions using a pending destination stall (RAW, WAW)") {
  Sb s(8);
  Prog p;
  base(p);
  load(p, 1, 0, 0);                                        // 5, data at 110
  p.add(Opcode::Add, DType::U64, {R(5), R(6), I(1)});      // unrelated: 11
  p.add(Opcode::Add, DType::U64, {R(7), R(1), I(1)});      // reads r1: 110
  load(p, 2, 0, 8);                                        // 115, data at 220
  p.add(Opcode::Mov, DType::U64, {R(2), I(77)});           // writes r2 (WAW): 220
  finish(p, 2);
  REQUIRE(s.run(p));
  CHECK(std::vector<uint64_t>(s.issues.begin(), s.issues.begin() + 6) ==
        std::vector<uint64_t>{0, 5, 11, 110, 115, 220});
  CHECK(s.reg(7) == 11);
  CHECK(s.env.get<uint64_t>(kGlob + 0x100) == 77);  // the load's late data did not overwrite the mov
}

TEST_CASE("scoreboard: a fault between a load's issue and its data is overwritten, one after it stays") {
  // The load issues at 5 and writes r1 at 110. The stop is the first sync at or after the horizon.
  for (uint64_t h : {50u, 200u}) {
    Sb s(8);
    Prog p;
    base(p);
    load(p, 1, 0, 0);
    p.add(Opcode::Add, DType::U64, {R(5), R(6), I(1)});
    p.add(Opcode::St, DType::U64, {M(0, 0x100), R(1)}).mod.space = Space::Global;  // 110, done 215
    p.add(Opcode::Exit, DType::None, {});                                           // 215
    Registry reg;
    uint64_t seen = ~uint64_t{0};
    s.env.at_sync = [&](uint64_t at) {
      if (at < h || seen != ~uint64_t{0}) return;
      seen = reg.read("sm.regs", 2 * 32);  // r1, lane 0 (low word)
      reg.write("sm.regs", 0xdead, 2 * 32);
    };
    s.cfg.max_pending_loads = 8;
    auto bytes = p.encode();
    std::memcpy(s.env.code.data(), bytes.data(), bytes.size());
    s.core = std::make_unique<SimtCore>(s.cfg, s.env);
    s.core->set_horizon(h);
    REQUIRE(s.core->launch(s.lp, 0));
    s.core->register_state(reg, "sm");
    REQUIRE(s.core->run());
    if (h == 50) {
      CHECK(seen == 0);                                  // at 50 the data has not arrived
      CHECK(s.reg(1) == 10);                             // its arrival at 110 overwrote the fault
      CHECK(s.env.get<uint64_t>(kGlob + 0x100) == 10);
    } else {
      CHECK(seen == 10);
      CHECK(s.reg(1) == 0xdead);
    }
  }
}
