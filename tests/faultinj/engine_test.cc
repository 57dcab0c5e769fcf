// The engine (golden run, leader forking one child per fault, watchdog, classification): every
// outcome class produced by a fault chosen to produce it; containment of a simulator that crashes
// or hangs; and a forked injection equal in outcome to the same flip in a plain, unforked run.
// The test process never elaborates SystemC: run_golden / run_faults fork their own processes, and
// the reference runs of the last test are forked here before any platform exists.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <thread>
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

// Runs `child(fd)` in a forked process and returns what it wrote to `fd`, after `meanwhile(pid)` ran
// here; `status` gets its wait status.
std::string in_child(const std::function<void(int)>& child, int& status,
                     const std::function<void(pid_t)>& meanwhile = {}) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  if (meanwhile) meanwhile(pid);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  ::close(fds[0]);
  ::waitpid(pid, &status, 0);
  return text;
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
  // ... an XOR mask with no bit inside the 3-bit state register.
  const uint64_t mask_outside = add("gpu.sched.state", 0, 0, in_kernel);
  faults.back().model = FaultModel::XorMask;
  faults.back().mask = 0xF8;

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
  check(mask_outside, Outcome::ToolError);
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

TEST_CASE("engine: a run that crashes or hangs the simulator is contained and classified, and the others go on") {
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

namespace {

// The reference for a forked injection: a fresh process builds the platform, simulates to the
// fault's instant in one step, flips the bit through the registry, runs to the end and classifies
// as the engine's children do (fault-injection.md: DUE for a device or runtime error, Timeout for a
// stall or the simulated-time bound). Returns "outcome due_kind end_ps".
std::string unforked_outcome(const JobFactory& make, const GoldenRun& g, const Fault& f, double timeout_factor) {
  int status = 0;
  const std::string text = in_child([&](int fd) {
    std::string answer;
    try {
      auto job = make();
      Platform p(job->config(), job->hooks());
      job->attach(p);
      p.start([&](rt::Runtime& rt) { job->run(rt); });
      if (!p.advance_to(f.time_ps)) {
        answer = "ended before the instant";
      } else {
        p.registry().flip(f.target, f.bit, f.index);
        try {
          p.finish(double(g.sim_end_ps) * timeout_factor / 1e9);
          auto w = p.kernel_windows();
          const uint64_t end = w.empty() ? 0 : w.back().second;
          answer = fmt::format("{} none {}", to_string(classify_completed(g, {}, job->buffers(), end).outcome), end);
        } catch (const DeviceError& e) {
          answer = fmt::format("due {} 0", to_string(due_kind_of(e.info().kind)));
        } catch (const TimeoutError&) {
          answer = "timeout none 0";
        } catch (const std::exception& e) {
          answer = std::string(e.what()).rfind("simulation stalled", 0) == 0 ? "timeout none 0" : "due other 0";
        }
      }
    } catch (const std::exception& e) {
      answer = std::string("error: ") + e.what();
    }
    (void)!::write(fd, answer.data(), answer.size());
  }, status);
  return text.empty() ? fmt::format("died (status {})", status) : text;
}

}  // namespace

TEST_CASE("engine: a register flip injected in a forked child equals the same flip in an unforked run") {
  const JobFactory make = vector_add_factory();
  const GoldenRun g = run_golden(make);
  // Instants spread over the first batch (blocks 0 and 1: warps 0 and 1 resident), registers of
  // live threads (vectorAdd's slots: %r1, %r2 the loaded values, %r3 their sum, %r5 the index, %r11
  // and %r13 the a and c parameters, %r16 and %r18 the element addresses of a and b, %r20 that of c).
  struct Pick {
    unsigned eighth, warp, slot, lane, bit;  // instant: `eighth`/8 of the way through the batch
  };
  const std::vector<Pick> picks = {
      {1, 1, 11, 3, 9}, {2, 1, 16, 3, 9}, {3, 1, 16, 3, 24}, {3, 1, 3, 3, 9}, {4, 1, 15, 3, 9}, {4, 1, 13, 3, 9},
      {5, 1, 1, 3, 9},  {6, 1, 2, 3, 9},  {6, 0, 20, 0, 28}, {4, 0, 5, 7, 3}, {7, 1, 1, 3, 9},  {2, 0, 18, 31, 30},
  };
  const auto batch = phase_spans(g, "wait").at(0);
  std::vector<Fault> faults;
  for (const Pick& p : picks) {
    const uint64_t t = (batch.first + (batch.second - batch.first) * p.eighth / 8) / g.period_ps * g.period_ps;
    faults.push_back(fault_at(faults.size(), "gpu.sm0.regs", reg_word(p.warp, p.slot, p.lane), p.bit, t));
  }
  EngineOptions opt;
  opt.workers = 2;
  auto forked = run_all(make, g, faults, opt);
  int not_masked = 0;
  for (const Fault& f : faults) {
    const RunResult& r = forked.at(f.id);
    const std::string engine = fmt::format("{} {} {}", to_string(r.outcome), to_string(r.due), r.end_ps);
    const std::string plain = unforked_outcome(make, g, f, opt.timeout_factor);
    INFO("word " << f.index << " bit " << f.bit << " at " << f.time_ps << " ps: " << r.detail);
    CHECK(engine == plain);
    if (r.outcome != Outcome::Masked) ++not_masked;
  }
  CHECK(not_masked >= 4);
}

TEST_CASE("engine: a fault whose trigger event never occurs is not applied, so it is a tool error, never masked") {
  // fault-injection.md: "treat 'the fault could not be applied' as an error of the tool, never as
  // masked". An event trigger names the n-th occurrence of an event; no run has a millionth
  // kernel launch, so this fault is never applied, whatever the engine knows of events.
  const JobFactory make = vector_add_factory();
  const GoldenRun g = run_golden(make);
  Fault never = fault_at(0, "gpu.gmem", gmem_word(kBufC) + kN - 1, 31, 0);
  never.trigger = TriggerKind::Event;
  never.event = "gpu.sched.kernel_done";
  never.count = 1000000;
  // The same flip with an event that does not exist at all.
  Fault unknown = never;
  unknown.id = 1;
  unknown.event = "gpu.no_such_event";
  unknown.count = 1;
  auto r = run_all(make, g, {never, unknown});
  INFO(show_all(r));
  CHECK(r.at(0).outcome == Outcome::ToolError);
  CHECK(r.at(1).outcome == Outcome::ToolError);
}

TEST_CASE("engine: held faults: a permanent stuck bit survives the design's writes, an intermittent one ends") {
  const JobFactory make = vector_add_factory();
  const GoldenRun g = run_golden(make);
  const auto waits = phase_spans(g, "wait");
  REQUIRE(waits.size() == 4);
  // c[255] is written by block 7, in the last batch; these faults start in the first.
  const uint64_t first_batch = mid_edge(g, waits[0].first, waits[0].second);
  const uint64_t c_last = gmem_word(kBufC) + kN - 1;
  auto held = [&](uint64_t id, const std::string& target, uint64_t index, FaultModel m, Duration d, uint64_t hold) {
    Fault f = fault_at(id, target, index, 31, first_batch);
    f.model = m;
    f.duration = d;
    f.hold_ps = hold;
    return f;
  };
  std::vector<Fault> faults = {
      // Stuck at 1 to the end: the kernel's write of 256.0 is forced back to -256.0: SDC.
      held(0, "gpu.gmem", c_last, FaultModel::StuckAt1, Duration::Permanent, 0),
      // The same held for ten cycles only, long before block 7 writes c[255]: masked.
      held(1, "gpu.gmem", c_last, FaultModel::StuckAt1, Duration::Intermittent, 10 * g.period_ps),
      // Stuck at 1 to the end in a word nobody uses: masked, same timing.
      held(2, "gpu.gmem", gmem_word(amap::kGlobalBase + (4u << 20)), FaultModel::StuckAt1, Duration::Permanent, 0),
      // A transient stuck-at-1 there before the write: overwritten: masked.
      held(3, "gpu.gmem", c_last, FaultModel::StuckAt1, Duration::Transient, 0),
  };
  EngineOptions opt;
  opt.workers = 2;
  auto r = run_all(make, g, faults, opt);
  INFO(show_all(r));
  CHECK(r.at(0).outcome == Outcome::SDC);
  CHECK(r.at(1).outcome == Outcome::Masked);
  CHECK(r.at(2).outcome == Outcome::Masked);
  CHECK(r.at(3).outcome == Outcome::Masked);
}

namespace {

// The vectorAdd job whose host program sleeps after the kernel: every faulty run is in flight for at
// least kSleep of wall time while using almost no CPU.
constexpr auto kSleep = std::chrono::milliseconds(150);
class SleepyJob : public Job {
 public:
  SleepyJob() : Job(engine_config(), "sleepy"), inner_(vector_add_factory()()) {}
  void run(rt::Runtime& rt) override {
    inner_->run(rt);
    std::this_thread::sleep_for(kSleep);
  }
  std::vector<uint8_t> output() const override { return inner_->output(); }
  void attach(Platform& p) override { inner_->attach(p); }

 private:
  std::unique_ptr<Job> inner_;
};

// Processes whose process group is `pgid` (/proc/PID/stat, field 5).
int processes_in_group(pid_t pgid) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "stat");
    std::string line;
    if (!std::getline(in, line) || line.rfind(')') == std::string::npos) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    std::string state;
    long ppid = 0, pgrp = 0;
    if (rest >> state >> ppid >> pgrp && pgrp == pgid && state != "Z") ++n;
  }
  return n;
}

std::string brief(const RunResult& r) {
  return fmt::format("{} {} {} {}", to_string(r.outcome), to_string(r.due), r.end_ps, r.kernel_cycles);
}

}  // namespace

TEST_CASE("engine: a campaign stopped with SIGSTOP for longer than its watchdog and continued gives the outcomes "
          "of an uninterrupted one") {
  const JobFactory make = [] { return std::make_unique<SleepyJob>(); };
  const GoldenRun g = run_golden(make);
  const uint64_t in_kernel = mid_edge(g, g.start_ps, g.end_ps);
  std::vector<Fault> faults;
  for (unsigned k = 0; k < 4; ++k) faults.push_back(fault_at(k, "gpu.sm0.regs", reg_word(0, k + 1, k), 3, in_kernel));
  EngineOptions opt;
  opt.workers = 2;
  opt.wall_factor = 0;  // the watchdog is wall_min_seconds: shorter than the stop, longer than a run's CPU time
  opt.wall_min_seconds = 0.3;
  opt.early_stop = false;
  std::map<uint64_t, std::string> expected;
  for (auto& [id, r] : run_all(make, g, faults, opt)) expected[id] = brief(r);

  // The same campaign in its own process group, stopped as a whole while faulty runs are in flight.
  auto campaign = [&](int fd) {
    ::setpgid(0, 0);
    run_faults(make, g, faults, opt, [&](const RunResult& r) {
      const std::string line = fmt::format("{} {}\n", r.fault_id, brief(r));
      (void)!::write(fd, line.data(), line.size());
    });
  };
  auto stop_and_continue = [](pid_t pid) {
    ::setpgid(pid, pid);
    // The campaign process, its leader and at least one faulty run.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (processes_in_group(pid) < 3 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(processes_in_group(pid) >= 3);
    REQUIRE(::kill(-pid, SIGSTOP) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // twice the watchdog
    REQUIRE(::kill(-pid, SIGCONT) == 0);
  };
  int status = 0;
  std::map<uint64_t, std::string> got;
  std::istringstream lines(in_child(campaign, status, stop_and_continue));
  for (std::string line; std::getline(lines, line);) got[std::stoull(line)] = line.substr(line.find(' ') + 1);
  CHECK(got == expected);
}

TEST_CASE("engine: kill -9 of the campaign during the checkpoint pass leaves nothing running") {
  const std::string pid_file = fmt::format("/tmp/gpuvp_checkpoint_child_{}", ::getpid());
  std::remove(pid_file.c_str());
  // The checkpoint child writes its pid and then takes long to build its job (a long golden run).
  const JobFactory make = [pid_file]() -> std::unique_ptr<Job> {
    std::ofstream(pid_file) << ::getpid() << "\n";
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return vector_add_factory()();
  };
  std::fflush(nullptr);
  const pid_t campaign = ::fork();
  REQUIRE(campaign >= 0);
  if (campaign == 0) {
    GoldenRun g;
    g.start_ps = 1000;
    g.sim_end_ps = 1000000;
    record_checkpoints(make, g, 4);
    ::_exit(0);
  }
  pid_t child = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(std::ifstream(pid_file) >> child) && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(child > 0);
  ::kill(campaign, SIGKILL);
  ::waitpid(campaign, nullptr, 0);
  auto alive = [&] {
    std::ifstream in(fmt::format("/proc/{}/stat", child));
    std::string line;
    return std::getline(in, line) && line.substr(line.rfind(')') + 2, 1) != "Z";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (alive() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool survived = alive();
  if (survived) ::kill(child, SIGKILL);
  std::remove(pid_file.c_str());
  CHECK_FALSE(survived);
}

TEST_CASE("engine: the golden run sends back every block dispatch and warp instruction issue instant") {
  const JobFactory make = vector_add_factory();
  const GoldenRun g = run_golden(make, 0);
  // One instant per dispatch: 8 blocks, 2 per core on one SM, dispatched together in 4 batches (the
  // platform keeps an instant once); every warp instruction of SM 0 issued inside the execution
  // window, in time order.
  CHECK(g.dispatch_ps.size() == kBlocks / kBpc);
  CHECK(g.issue_sm == 0);
  REQUIRE(g.issue_ps.size() >= kBlocks);
  CHECK(std::is_sorted(g.issue_ps.begin(), g.issue_ps.end()));
  CHECK(g.issue_ps.front() >= g.start_ps);
  CHECK(g.issue_ps.back() <= g.end_ps);
  // A fault at the first dispatch strikes 1 ps after it; one at an issue that never happened is not applied.
  Fault at_dispatch = fault_at(0, "gpu.sm0.regs", 0, 0, 0), never = fault_at(1, "gpu.sm0.regs", 0, 0, 0);
  at_dispatch.trigger = never.trigger = TriggerKind::Event;
  at_dispatch.event = "block_dispatch";
  at_dispatch.count = 1;
  never.event = "warp_instruction:sm0";
  never.count = g.issue_ps.size() + 1;
  auto r = run_all(make, g, {at_dispatch, never});
  INFO(show_all(r));
  CHECK(r.at(0).outcome != Outcome::ToolError);
  CHECK(r.at(1).outcome == Outcome::ToolError);
  CHECK_THAT(r.at(1).detail, Catch::Matchers::Contains("no occurrence"));
}

namespace {

// The vectorAdd job with a target whose setter has the run killed from outside (as the OOM killer
// would) while a marker file says so: `kills` times, counted in the file, then it writes nothing.
class KilledFromOutsideJob : public Job {
 public:
  KilledFromOutsideJob(std::string marker, int kills)
      : Job(engine_config(), "killed"), inner_(vector_add_factory()()), marker_(std::move(marker)), kills_(kills) {}
  void run(rt::Runtime& rt) override { inner_->run(rt); }
  std::vector<uint8_t> output() const override { return inner_->output(); }
  void attach(Platform& p) override {
    inner_->attach(p);
    Target t;
    t.name = "test.killed";
    t.width = 8;
    t.get = [](uint64_t) { return uint64_t{0}; };
    t.set = [this](uint64_t, uint64_t) {
      int done = 0;
      if (std::FILE* f = std::fopen(marker_.c_str(), "r")) {
        if (std::fscanf(f, "%d", &done) != 1) done = 0;
        std::fclose(f);
      }
      if (done >= kills_) return;
      if (std::FILE* f = std::fopen(marker_.c_str(), "w")) {
        std::fprintf(f, "%d\n", done + 1);
        std::fclose(f);
      }
      ::kill(::getpid(), SIGKILL);
    };
    p.registry().add(std::move(t));
  }

 private:
  std::unique_ptr<Job> inner_;
  std::string marker_;
  int kills_;
};

}  // namespace

TEST_CASE("engine: a run killed from outside is run again, never stored as a DUE, and killed twice it stays pending") {
  const std::string marker = fmt::format("/tmp/gpuvp_engine_killed_{}", ::getpid());
  for (int kills : {1, 2}) {
    std::remove(marker.c_str());
    const JobFactory make = [&] { return std::make_unique<KilledFromOutsideJob>(marker, kills); };
    const GoldenRun g = run_golden(make);
    const uint64_t in_kernel = mid_edge(g, g.start_ps, g.end_ps);
    const std::vector<Fault> faults = {fault_at(0, "test.killed", 0, 0, in_kernel),
                                       fault_at(1, "gpu.sm0.regs", 32767, 0, in_kernel)};
    std::map<uint64_t, RunResult> got;
    run_faults(make, g, faults, EngineOptions{}, [&](const RunResult& r) { got[r.fault_id] = r; });
    INFO(kills << " kills: " << show_all(got));
    CHECK(got.count(1) == 1);  // the other run is not disturbed
    if (kills == 1) {
      // Killed once, run again: the setter then leaves the state as it was, so the run is masked.
      REQUIRE(got.count(0) == 1);
      CHECK(got.at(0).outcome == Outcome::Masked);
    } else {
      CHECK(got.count(0) == 0);  // left pending for `campaign resume`, not a DUE of the platform
    }
  }
  std::remove(marker.c_str());
}
