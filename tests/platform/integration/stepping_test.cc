// Running in steps (what fault injection does before it forks) changes nothing: stopping at many
// instants gives the same outputs, cycles and statistics as one run. And at a stop, an SM's
// registered state is its state at that instant, not at its local time ahead of it.
#include <catch2/catch.hpp>

#include "common/subprocess.h"
#include "platform/platform.h"
#include "sw/isa/encoding.h"
#include "sw/ptx/assembler.h"
#include "sw/workloads/workload.h"

using namespace gpuvp;

namespace {
nlohmann::json comparable(nlohmann::json j) {
  for (const char* k : {"host_seconds", "thread_insts_per_host_second", "schema", "command", "workload",
                        "launch_config", "seed", "preset", "clock_mhz", "clock_period_ps", "correct", "output_digest",
                        "config", "exit_status", "stdout", "stderr"})
    j.erase(k);
  return j;
}
}  // namespace

// `args` runs `workload`/`launch` on `c` with the gpuvp binary in one sc_start.
void same_in_steps(const std::string& args, Config c, const char* workload, const char* launch) {
  nlohmann::json plain = test::run_stats(args);
  REQUIRE(plain["exit_status"] == 0);
  const uint64_t end_ps = uint64_t(plain["sim_seconds"].get<double>() * 1e12);
  Platform p(c);
  const wl::Workload* w = wl::find(workload);
  wl::Result r;
  p.start([&](rt::Runtime& rt) { r = w->run(rt, wl::config_named(*w, launch), 1); });
  for (uint64_t k = 1; k <= 200; ++k) CHECK(p.advance_to(end_ps * k / 201));
  p.finish();
  CHECK(r.ok);
  CHECK(comparable(p.stats().to_json()) == comparable(plain));
}

TEST_CASE("stepping: stops at 200 instants give the run a single sc_start gives") {
  Config c = Config::preset("flexgrip");
  c.set("sm.count=2");
  same_in_steps("--preset flexgrip --set sm.count=2 --workload scalarProd --launch small", c, "scalarProd", "small");
}

TEST_CASE("stepping: the same with the concurrent dispatcher (tx2)") {
  same_in_steps("--preset tx2 --workload scalarProd --launch small", Config::preset("tx2"), "scalarProd", "small");
}

namespace {
// One warp reads %clock64 (the SM's cycle) in a loop that fits the instruction buffer, so the SM
// touches no shared resource and would run ahead of simulated time up to its quantum.
const char* kClockPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry clockloop(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [n];
  mov.u32 %r1, 0;
$L_loop:
  mov.u64 %rd3, %clock64;
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $L_loop;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u64 [%rd2], %rd3;
  ret;
}
)";

// The register slot the assembler gave %rd3: the destination of the mov from %clock64.
unsigned clock_slot() {
  ptx::Image img = ptx::assemble_text(kClockPtx, "clock.ptx", ptx::Layout{});
  const auto& code = img.code;
  for (size_t pc = 0; pc < code.size();) {
    isa::Inst in;
    REQUIRE(isa::decode(code.data() + pc, code.size() - pc, in, nullptr));
    if (in.op == isa::Opcode::Mov && in.ops[1].kind == isa::OpKind::SReg &&
        in.ops[1].reg == uint16_t(isa::SReg::Clock64))
      return in.ops[0].reg;
    pc += in.size;
  }
  FAIL("no mov from %clock64");
  return 0;
}

// Runs the %clock64 loop and stops 20 times; at each stop the last %clock64 read must be before the
// stop and at most `iteration` cycles (one loop iteration of the lone warp) before it.
void check_register_instants(Config cfg, uint64_t iteration) {
  const unsigned slot = clock_slot();
  Platform p(cfg);
  p.start([&](rt::Runtime& rt) {
    auto m = rt.load_module(kClockPtx, "clock.ptx");
    auto out = rt.malloc(8);
    rt::KernelArgs a;
    a.ptr(out).u32(100000);
    rt.launch(m, "clockloop", {1}, {32}, a);
    rt.synchronize();
  });
  const uint64_t period = p.clock_period_ps();
  uint64_t t = 0;
  while (p.stats().sms[0].warp_insts < 10) REQUIRE(p.advance_to(t += 100 * period));
  for (int k = 0; k < 20; ++k) {
    REQUIRE(p.advance_to(t += 3000 * period));
    // Warp 0, lane 0: 64-bit slot `slot` is registry words 2 * (slot * 32) (low) and + 1 (high).
    uint64_t lo = p.registry().read("gpu.sm0.regs", 2 * (uint64_t(slot) * 32));
    uint64_t hi = p.registry().read("gpu.sm0.regs", 2 * (uint64_t(slot) * 32) + 1);
    const uint64_t clock = hi << 32 | lo, now = t / period;
    INFO("stop at cycle " << now << ", last %clock64 read " << clock);
    CHECK(clock < now);
    CHECK(clock + iteration >= now);
  }
  p.finish();
}
}  // namespace

// (One platform per process: each timing model is its own test case.)
TEST_CASE("stepping: at a stop an SM's registers hold their values of that instant") {
  // 4 instructions, each at most warp_size / sps issue cycles plus a 4-cycle latency.
  Config c = Config::preset("flexgrip");
  c.set("sm.timing=issue");
  c.set("sm.ibuf_insts=64");  // the loop stays in the buffer: no fetch time in an iteration
  check_register_instants(c, 4 * (4 + 4));
}

TEST_CASE("stepping: with the flexgrip pipeline an SM's registers at a stop hold their values of that instant") {
  // 4 instructions of one warp, each through the stages in 4 lane groups: at most scheduler 2, fetch
  // 4, decode 2, then per lane group a read stage of at most 16 + 6 + 15 and execute, write and
  // checker stages of at most 30 + 11 + 2 (+1 per hand-over).
  check_register_instants(Config::preset("flexgrip"), 4 * (2 + 4 + 2 + 4 * (37 + 43 + 4)));
}
