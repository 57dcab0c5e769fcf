// FlexGripPlus pipeline timing (sm.timing = flexgrip): each rule against a cycle count worked by hand
// from the stage state machines of the soft GPU's VHDL (docs/sm.md, "FlexGripPlus timing"), for an
// SM of 8 SPs (a warp passes as 4 lane groups).
#include <catch2/catch.hpp>

#include <vector>

#include "models/sm/flexgrip_pipeline.h"
#include "sm_test_util.h"

using namespace smtest;
using gpuvp::sm::FgCosts;
using gpuvp::sm::FlexgripPipeline;

namespace {

constexpr unsigned kPackets = 4;  // 32 threads / 8 SPs

// Memories with the soft GPU's own timing: instruction words one per cycle over the 32-bit bus, a
// global word in S + 1 cycles (the byte-wide controller's idle cycle, then a byte per cycle).
struct TimedEnv : ArrayEnv {
  struct Access {
    Port port;
    uint64_t at, done;
  };
  std::vector<Access> log;
  uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, AtomicExtension* atomic, uint64_t t,
                  Fault& f) override {
    if (ArrayEnv::access(port, addr, data, len, write, atomic, t, f) == kFail) return kFail;
    const uint64_t done = port == Port::Fetch ? t + (len + 3) / 4 : t + 1 + len;
    log.push_back({port, t, done});
    return done;
  }
  // The decoder's untimed look at the encoding is no bus transaction.
  bool peek(Port port, uint64_t addr, uint8_t* data, unsigned len, Fault& f) override {
    return ArrayEnv::access(port, addr, data, len, false, nullptr, 0, f) != kFail;
  }
  std::vector<Access> on(Port p) const {
    std::vector<Access> v;
    for (const Access& a : log)
      if (a.port == p) v.push_back(a);
    return v;
  }
};

struct FlexgripRun {
  SmConfig cfg;
  TimedEnv env;
  LaunchParams lp;
  std::unique_ptr<SimtCore> core;
  FlexgripRun() {
    cfg.sps = 8;
    cfg.warp_size = 32;
    cfg.shared_bytes = 16384;
    cfg.timing = SmTiming::Flexgrip;
    cfg.warp_policy = WarpPolicy::StrictRoundRobin;
    lp.entry = kCode;
    lp.num_regs = 16;
    lp.num_preds = 8;
    lp.blocks = {0};
  }
  bool go(const Prog& p, unsigned threads, uint64_t start) {
    auto bytes = p.encode();
    std::memcpy(env.code.data(), bytes.data(), bytes.size());
    core = std::make_unique<SimtCore>(cfg, env);
    lp.block[0] = threads;
    return core->launch(lp, start) && core->run();
  }
};

// Runs one instruction's lane groups through an empty pipeline from cycle 0, fetching its words one
// per cycle, as the SIMT core does; returns when the last lane group leaves the warp checker.
uint64_t alone(const FgCosts& k) {
  FlexgripPipeline pipe;
  pipe.reset(0);
  FlexgripPipeline::Cursor c;
  for (unsigned j = 0; j < kPackets; ++j) {
    const auto& p = j ? k.rest : k.first;
    c = FlexgripPipeline::Cursor{0, 0};
    pipe.run(c, p, gpuvp::sm::kFetch);
    const uint64_t s = pipe.start(c);
    pipe.finish(c, s + p.o[gpuvp::sm::kFetch]);
    pipe.run(c, p, gpuvp::sm::kFgStages);
  }
  return c.t;
}

}  // namespace

TEST_CASE("flexgrip timing: an ALU instruction of a full warp is paced by its read stage") {
  // add.s32 r3, r1, r2: a 32-bit instruction (one word); read = pre 4 (lane group 0) or 2, + 6 +
  // two register operands of 5; execute 3; write 8; checker 2; scheduler and decode 2.
  const FgCosts k = gpuvp::sm::flexgrip_costs(mk(Opcode::Add, DType::S32, {R(3), R(1), R(2)}), kPackets, true);
  CHECK(k.words == 1);
  CHECK(k.first.o[gpuvp::sm::kRead] == 20);
  CHECK(k.rest.o[gpuvp::sm::kRead] == 18);
  CHECK(k.first.o[gpuvp::sm::kExecute] == 3);
  CHECK(k.first.o[gpuvp::sm::kWrite] == 8);
  // Group 0: scheduler 0-2, fetch 2-5, decode 5-7, read 7-27, execute 27-30, write 30-38, checker 38-40.
  // Group 1 reaches read at 10 but it is busy until 27 (+1 hand-over): read 28-46, ..., checker 57-59.
  // Group 2: decode waits for group 1 to leave it (29): read 47-65, checker 76-78.
  // Group 3: read 66-84, execute 84-87, write 87-95, checker 95-97.
  CHECK(alone(k) == 97);
}

TEST_CASE("flexgrip timing: 64-bit instructions take two words and read their predicate per lane group") {
  Inst imm = mk(Opcode::Add, DType::U32, {R(3), R(1), I(7)});  // immediate form: 64-bit, short read
  FgCosts k = gpuvp::sm::flexgrip_costs(imm, kPackets, true);
  CHECK(k.words == 2);
  CHECK(k.first.o[gpuvp::sm::kFetch] == 2 + 2);  // IDLE, two words, STALL
  CHECK(k.rest.o[gpuvp::sm::kFetch] == 2);       // later lane groups reuse the fetched words
  CHECK(k.first.o[gpuvp::sm::kRead] == 4 + 6 + 5);
  Inst guarded = mk(Opcode::Add, DType::U32, {R(3), R(1), R(2)});
  guarded.guard = 0;  // @%p0: predicate read once per lane group before the operands: 8 + 2 x 4
  k = gpuvp::sm::flexgrip_costs(guarded, kPackets, true);
  CHECK(k.words == 2);
  CHECK(k.first.o[gpuvp::sm::kRead] == 16 + 6 + 10);
  CHECK(k.rest.o[gpuvp::sm::kRead] == 2 + 6 + 10);
  // Through the core: the fetch of lane group 0 reads the two words (8 bytes) at once over the bus.
  FlexgripRun r;
  Prog p;
  p.add(imm);
  p.add(Opcode::Exit, DType::None, {});
  REQUIRE(r.go(p, 32, 0));
  const auto fetches = r.env.on(CoreEnv::Port::Fetch);
  REQUIRE(fetches.size() == 2);  // one per warp instruction, not per lane group
  CHECK(fetches[0].done - fetches[0].at == 2);
}

TEST_CASE("flexgrip timing: a global load by a full warp serves the threads one after another") {
  // r0 = lane * 4 + global base, then ld.global.u32 r1, [r0]. Each thread: enable 1, the word (S + 1 =
  // 5 cycles), done-detect 1: 7 cycles, so the 8 threads of a lane group are 7 cycles apart. After the
  // group's last word: detect 1, the read stage's 4 closing cycles, execute takes the packet and frees
  // the read stage one cycle later; the next lane group then needs pre 2 + 6 + 9 (arbitration and
  // effective address) and its enable cycle: its first word starts 1 + 4 + 1 + 17 + 1 = 24 cycles after
  // the previous group's last word ended.
  FlexgripRun r;
  Prog p;
  p.add(Opcode::Mov, DType::U32, {R(2), S(SReg::LaneId)});
  p.add(Opcode::Shl, DType::B32, {R(2), R(2), I(2)});
  p.add(Opcode::Add, DType::U64, {R(0), R(2), I(int64_t(kGlob))});
  p.add(Opcode::Ld, DType::U32, {R(1), M(0, 0)}).mod.space = Space::Global;
  p.add(Opcode::Exit, DType::None, {});
  for (unsigned l = 0; l < 32; ++l) r.env.put<uint32_t>(kGlob + 4 * l, 100 + l);
  REQUIRE(r.go(p, 32, 0));
  for (unsigned l = 0; l < 32; ++l) CHECK(r.core->reg(0, l, 1) == 100 + l);
  const auto loads = r.env.on(CoreEnv::Port::GlobalRead);
  REQUIRE(loads.size() == 32);
  for (unsigned l = 1; l < 32; ++l) {
    INFO("thread " << l);
    CHECK(loads[l].at - loads[l - 1].done == (l % 8 ? 2u : 24u));
  }
}

TEST_CASE("flexgrip timing: the SMP controller sets a batch up before its first warp issues") {
  // Two blocks of 64 threads with 7 parameter words. Per block: block ids 2, the 16-byte header 16,
  // 7 words x 6, the last parameter read 1, R0 of 64 threads x 3, block end 2 = 255; then 3 to the
  // warp generator, which takes 1 + 4 warps x 3 + 1 per block (2) + 2 = 17, and 2 to hand over to
  // the scheduler: 1 + 2 x 255 + 3 + 17 + 2 = 533 cycles.
  CHECK(gpuvp::sm::flexgrip_setup_cycles(2, 64, 7, 4) == 533);
  FlexgripRun r;
  r.lp.blocks = {0, 1};
  r.lp.params.assign(28, 0);
  Prog p;
  p.add(Opcode::Exit, DType::None, {});
  REQUIRE(r.go(p, 64, 1000));
  const auto fetches = r.env.on(CoreEnv::Port::Fetch);
  REQUIRE(!fetches.empty());
  // The first warp's scheduler stage takes 2 cycles and the fetch stage's IDLE 1: the first word
  // goes out at 1000 + 533 + 3.
  CHECK(fetches.front().at == 1536);
}
