// The engine (golden run, leader forking one child per fault, watchdog, classification): every
// outcome class produced by a fault chosen to produce it; containment of a simulator that crashes
// or hangs; and a forked injection equal in outcome to the same flip in a plain, unforked run.
// The test process never elaborates SystemC: run_golden / run_faults fork their own processes, and
// the reference runs of the last test are forked here before any platform exists.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "faultinj/engine.h"
#include "faultinj/engine_job.h"
#include "faultinj/job.h"
#include "platform/platform.h"
#include "sw/isa/device_error.h"

using namespace gpuvp;
using namespace gpuvp::fi;
using namespace gpuvp::fi::test;

namespace {

std::map<uint64_t, RunResult> run_all(const JobFactory& make, const GoldenRun& g, const std::vector<Fault>& faults,
                                      const EngineOptions& opt = {}) {
  std::map<uint64_t, RunResult> out;
  run_faults(make, g, faults, opt, [&](const RunResult& r) {
    CHECK(out.count(r.fault_id) == 0);  // one result per fault
    out[r.fault_id] = r;
  });
  REQUIRE(out.size() == faults.size());
  return out;
}

std::string show(const RunResult& r) {
  std::ostringstream s;
  s << "fault " << r.fault_id << ": " << to_string(r.outcome) << " (" << to_string(r.due) << ") end " << r.end_ps
    << " ps: " << r.detail;
  return s.str();
}

std::string show_all(const std::map<uint64_t, RunResult>& r) {
  std::string s;
  for (auto& [id, x] : r) s += show(x) + "\n";
  return s;
}

}  // namespace

TEST_CASE("engine: the golden run of the vectorAdd job has its four batches and the buffers it was given") {
  GoldenRun g = run_golden(vector_add_factory());
  CHECK(g.output_bytes == 3 * kN * 4);
  CHECK(g.start_ps > 0);
  CHECK(g.start_ps < g.end_ps);
  CHECK(g.end_ps < g.sim_end_ps);  // the host copies the buffers back after the kernel
  CHECK(g.period_ps == 10000);     // flexgrip: 100 MHz
  // 8 blocks, 2 per batch on one SM: four dispatch/wait rounds.
  CHECK(phase_spans(g, "wait").size() == kBlocks / kBpc);
  CHECK(phase_spans(g, "dispatch").size() == kBlocks / kBpc);
}

TEST_CASE("engine: each outcome class comes from a fault chosen to produce it") {
  const JobFactory make = vector_add_factory();
  const GoldenRun g = run_golden(make);
  const auto waits = phase_spans(g, "wait");
  REQUIRE(waits.size() == 4);
  const uint64_t in_kernel = mid_edge(g, g.start_ps, g.end_ps);
  const uint64_t after_kernel = g.end_ps + g.period_ps;  // c written, not yet copied back (c is copied last)
  REQUIRE(after_kernel < g.sim_end_ps);
  const uint64_t first_wait = mid_edge(g, waits[0].first, waits[0].second);
  const uint64_t third_wait = mid_edge(g, waits[2].first, waits[2].second);

  std::vector<Fault> faults;
  auto add = [&](const std::string& target, uint64_t index, unsigned bit, uint64_t t) {
    faults.push_back(fault_at(faults.size(), target, index, bit, t));
    return faults.back().id;
  };
  // SDC: the sign of c[255] (256.0 -> -256.0) after the kernel wrote it, before the host reads it.
  const uint64_t sdc_gmem = add("gpu.gmem", gmem_word(kBufC) + kN - 1, 31, after_kernel);
  // DUE: the magic nibble (0xB -> 0xF) of the kernel's first instruction word, before any fetch.
  const uint64_t due_decode = add("gpu.sysmem", sysmem_word(amap::kSystemBase), 2, g.start_ps);
  // Scheduler counter, first batch (cnt = 2): bit 2 makes it 6, so blocks 2..5 never run and their
  // c stays 0 (expected i + 1): SDC, and the kernel ends early (two batches instead of four).
  const uint64_t skip = add("gpu.sched.blocks_scheduled_cnt", 0, 2, first_wait);
  // ... bit 31: cnt >= grid size after the first batch: the kernel ends after two blocks: SDC.
  const uint64_t skip_high = add("gpu.sched.blocks_scheduled_cnt", 0, 31, first_wait);
  // Third batch (cnt = 6): bit 2 makes it 2, so blocks 2..5 run again; vectorAdd writes the same
  // values again: identical output, longer execution: masked with a timing change.
  const uint64_t repeat = add("gpu.sched.blocks_scheduled_cnt", 0, 2, third_wait);
  // Masked: a register-file word no resident thread has (2 warps x 21 slots x 32 lanes = 2688 words
  // in use of 32768), and a global-memory word 4 MiB away from every allocation.
  const uint64_t masked_reg = add("gpu.sm0.regs", 32767, 5, in_kernel);
  const uint64_t masked_gmem = add("gpu.gmem", gmem_word(amap::kGlobalBase + (4u << 20)), 7, in_kernel);
  // Timeout: SCHEDULE_WAIT (4) -> 5, which behaves as IDLE; en has already dropped (the config block
  // holds it only until rdy falls), so the scheduler stays idle and kernel_done never comes.
  const uint64_t hang_state = add("gpu.sched.state", 0, 0, first_wait);
  // ... SCHEDULE_WAIT (4) -> IDLE (0): the same.
  const uint64_t hang_idle = add("gpu.sched.state", 0, 2, first_wait);
  // Tool errors: no such target; a bit beyond the width (state has 3 bits); a word beyond the memory.
  const uint64_t no_target = add("gpu.sched.no_such_register", 0, 0, in_kernel);
  const uint64_t wide_bit = add("gpu.sched.state", 0, 3, in_kernel);
  const uint64_t far_word = add("gpu.sm0.regs", 32768, 0, in_kernel);

  EngineOptions opt;
  opt.workers = 2;
  auto r = run_all(make, g, faults, opt);
  INFO(show_all(r));

  auto check = [&](uint64_t id, Outcome o, DueKind k = DueKind::None) {
    INFO(show(r.at(id)));
    CHECK(r.at(id).outcome == o);
    CHECK(r.at(id).due == k);
  };
  check(sdc_gmem, Outcome::SDC);
  CHECK(r.at(sdc_gmem).end_ps == g.end_ps);  // the kernel itself was untouched
  check(due_decode, Outcome::DUE, DueKind::IllegalInstruction);
  check(skip, Outcome::SDC);
  CHECK(r.at(skip).end_ps < g.end_ps);
  check(skip_high, Outcome::SDC);
  CHECK(r.at(skip_high).end_ps < r.at(skip).end_ps);
  check(repeat, Outcome::MaskedTiming);
  CHECK(r.at(repeat).end_ps > g.end_ps);
  check(masked_reg, Outcome::Masked);
  check(masked_gmem, Outcome::Masked);
  CHECK(r.at(masked_reg).end_ps == g.end_ps);
  CHECK(r.at(masked_gmem).end_ps == g.end_ps);
  check(hang_state, Outcome::Timeout);
  check(hang_idle, Outcome::Timeout);
  check(no_target, Outcome::ToolError);
  CHECK_THAT(r.at(no_target).detail, Catch::Matchers::Contains("gpu.sched.no_such_register"));
  check(wide_bit, Outcome::ToolError);
  CHECK_THAT(r.at(wide_bit).detail, Catch::Matchers::Contains("width 3"));
  check(far_word, Outcome::ToolError);
}

namespace {

// The vectorAdd job with two more targets: a setter that crashes the simulator and one that never
// returns (test only).
class ContainmentJob : public Job {
 public:
  ContainmentJob() : Job(engine_config(), "containment"), inner_(vector_add_factory()()) {}
  void run(rt::Runtime& rt) override { inner_->run(rt); }
  std::vector<uint8_t> output() const override { return inner_->output(); }
  void attach(Platform& p) override {
    inner_->attach(p);
    Target segv;
    segv.name = "test.segv";
    segv.width = 8;
    segv.get = [](uint64_t) { return uint64_t{0}; };
    segv.set = [](uint64_t, uint64_t) { std::raise(SIGSEGV); };
    p.registry().add(std::move(segv));
    Target hang;
    hang.name = "test.hang";
    hang.width = 8;
    hang.get = [](uint64_t) { return uint64_t{0}; };
    hang.set = [](uint64_t, uint64_t) {
      volatile uint64_t spin = 0;
      for (;;) spin = spin + 1;
    };
    p.registry().add(std::move(hang));
  }

 private:
  std::unique_ptr<Job> inner_;
};

}  // namespace

TEST_CASE("engine: a run that crashes or hangs the simulator is contained and classified; the others go on") {
  const JobFactory make = [] { return std::make_unique<ContainmentJob>(); };
  const GoldenRun g = run_golden(make);
  const uint64_t in_kernel = mid_edge(g, g.start_ps, g.end_ps);
  std::vector<Fault> faults = {
      fault_at(0, "gpu.gmem", gmem_word(kBufC) + kN - 1, 31, g.end_ps + g.period_ps),  // SDC
      fault_at(1, "test.segv", 0, 0, in_kernel),                                        // DUE, died
      fault_at(2, "gpu.sm0.regs", 32767, 0, in_kernel),                                 // masked
      fault_at(3, "test.hang", 0, 0, in_kernel),                                        // timeout (watchdog)
      fault_at(4, "gpu.sched.state", 0, 0, mid_edge(g, phase_spans(g, "wait")[0].first,
                                                    phase_spans(g, "wait")[0].second)),  // timeout (simulated)
      fault_at(5, "gpu.sysmem", 0, 2, g.start_ps),                                      // DUE, illegal instruction
  };
  EngineOptions opt;
  opt.workers = 1;  // the hang holds the only worker: the others must still run after the watchdog
  opt.wall_min_seconds = 1;
  opt.wall_factor = 1;
  auto r = run_all(make, g, faults, opt);
  INFO(show_all(r));
  auto check = [&](uint64_t id, Outcome o, DueKind k = DueKind::None) {
    INFO(show(r.at(id)));
    CHECK(r.at(id).outcome == o);
    CHECK(r.at(id).due == k);
  };
  check(0, Outcome::SDC);
  check(1, Outcome::DUE, DueKind::Died);
  CHECK_THAT(r.at(1).detail, Catch::Matchers::Contains("signal 11"));
  check(2, Outcome::Masked);
  check(3, Outcome::Timeout);
  CHECK_THAT(r.at(3).detail, Catch::Matchers::Contains("host watchdog"));
  check(4, Outcome::Timeout);
  CHECK_THAT(r.at(4).detail, !Catch::Matchers::Contains("host watchdog"));
  check(5, Outcome::DUE, DueKind::IllegalInstruction);
}
