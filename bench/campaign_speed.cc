// Speed of a register-file campaign (issue 24's targets, docs/campaigns.md "Campaign speed"): a tx2
// register-file campaign of a small kernel reaches 3 million injections per hour counting pruned runs,
// and the golden run with its recording costs at most 2x the plain golden run.
//
//   campaign_speed [--gpuvp PATH] [--faults N] [--preset P] [--workload W] [--launch L] [--workers K]
//                  [--repeat R] [--inst-output] [--golden-only] [--golden-table]
//
// Runs `gpuvp campaign run` of the register file (gpu.sm0.regs, 1 SM, seed 1) with N faults and with
// 1 fault (the fixed part: golden run, checkpoints, store), R times each, interleaved, and keeps the
// best wall time of each; also the CPU time (user + system of the campaign and every process it
// forked), which a machine loaded by other work changes far less than the wall time. Prints the
// injections per hour counting pruned runs (whole campaign), the runs simulated per second (beyond the
// fixed part), and the golden run's recording factor: CPU time of the golden run as a campaign makes it
// (access log, markers, register allocations, sent back and decoded) over a plain run of the same job,
// both forked, best of 3R, interleaved. Each figure says met or MISSED. Also the kernel's share of the
// forked runs' CPU time, their page faults per simulated run and what one copy-on-write fault costs on
// this machine (a virtual machine's can cost tens of times a bare machine's).
// --inst-output also runs the instruction-output campaign (G_GPPR) of the same kernel and prints the
// ratio of the two campaigns' injections per hour (docs/campaigns.md, "Instruction-output faults").
// --golden-only measures the recording factor alone (under callgrind: one process per golden run).
// --golden-table measures it on the golden runs of the reference campaigns (block scheduler model and
// RTL of the reference study, tx2 register file, memories), 3R interleaved rounds, with the log's size.
// Exit 1 when a campaign fails.
#include <fmt/format.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "faultinj/engine.h"
#include "faultinj/job.h"
#include "faultinj/store.h"
#include "platform/config/config.h"
#include "platform/platform.h"
#include "platform/text.h"

using namespace gpuvp;

namespace {

constexpr double kTargetPerHour = 3e6;  // issue 24: injections per hour counting pruned runs
constexpr double kTargetFactor = 2;     // issue 24: golden run with recording / plain golden run

struct Options {
  std::string gpuvp = GPUVP_BINARY, preset = "tx2", workload = "vectorAdd", launch = "fi32";
  unsigned faults = 5000, workers = 2, repeat = 3;
  bool inst_output = false, golden_only = false, golden_table = false;
};

// CPU seconds (user + system), system seconds and page faults of this process and of every child it
// waited for (and theirs).
struct Usage {
  double cpu = 0, sys = 0, faults = 0;
  Usage operator-(const Usage& b) const { return {cpu - b.cpu, sys - b.sys, faults - b.faults}; }
};
Usage usage_now() {
  Usage s;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    const double sys = double(u.ru_stime.tv_sec) + 1e-6 * double(u.ru_stime.tv_usec);
    s.cpu += double(u.ru_utime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec) + sys;
    s.sys += sys;
    s.faults += double(u.ru_minflt + u.ru_majflt);
  }
  return s;
}
double cpu_now() { return usage_now().cpu; }

struct Timing {
  double wall = std::numeric_limits<double>::infinity();
  Usage best{std::numeric_limits<double>::infinity()};  // the run with the least CPU time
  void keep_best(double w, const Usage& u) {
    wall = std::min(wall, w);
    if (u.cpu < best.cpu) best = u;
  }
};

// Microseconds of CPU time per copy-on-write page fault on this machine: a forked child writes one byte
// of each of 4096 pages its parent wrote before the fork (best of 3). Forked runs pay such faults for
// every page they write, so where a fault is dear (a virtual machine's shadow page tables) it is much
// of a campaign's time.
double cow_fault_us() {
  constexpr size_t kPages = 4096, kPage = 4096;
  std::vector<char> mem(kPages * kPage, 1);
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const Usage u0 = usage_now();
    const pid_t pid = fork();
    if (pid == 0) {
      for (size_t p = 0; p < kPages; ++p) mem[p * kPage] = 2;
      _exit(0);
    }
    if (pid < 0) return std::numeric_limits<double>::quiet_NaN();
    int status = 0;
    waitpid(pid, &status, 0);
    const Usage d = usage_now() - u0;
    if (d.faults >= kPages) best = std::min(best, 1e6 * d.cpu / d.faults);
  }
  return best;
}

std::string campaign(const Options& o, const std::string& where, unsigned faults) {
  return fmt::format(R"({{"name": "speed", "platform": {{"preset": "{}", "set": {{"sm.count": 1}}}},
  "workload": {{"name": "{}", "launch": "{}"}}, {}, "size": {{"count": {}}}, "seed": 1, "workers": {}}})",
                     o.preset, o.workload, o.launch, where, faults, o.workers);
}

// What the store of the last campaign holds.
struct Counts {
  uint64_t runs = 0, dead = 0, shared = 0, early = 0;
  uint64_t simulated() const { return runs - dead - shared; }
};

// One `gpuvp campaign run` of `text` in `dir` (golden run and checkpoints included); false on failure.
bool run(const Options& o, const std::string& dir, const std::string& text, Timing& t, Counts* counts) {
  std::system(fmt::format("rm -rf '{}' && mkdir -p '{}'", dir, dir).c_str());
  const std::string file = dir + "/c.json", db = dir + "/c.db";
  std::ofstream(file) << text;
  const Usage u0 = usage_now();
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(fmt::format("'{}' campaign run '{}' -q --db '{}'", o.gpuvp, file, db).c_str());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.keep_best(wall, usage_now() - u0);
  if (rc != 0) return false;
  if (counts) {
    *counts = {};
    for (const fi::RunRecord& r : fi::Store::open_read_only(db).runs()) {
      ++counts->runs;
      counts->dead += r.detail.rfind("pruned: dead", 0) == 0;
      counts->shared += r.detail.rfind("pruned: same live", 0) == 0;
      counts->early += r.early_stop;
    }
  }
  std::system(fmt::format("rm -rf '{}'", dir).c_str());
  return true;
}

// CPU seconds of `body` run in a forked child (SystemC elaborates once per process), with what this
// process spent meanwhile; < 0 when the child failed.
template <class F>
double forked_cpu(F body) {
  const double c0 = cpu_now();
  const pid_t pid = fork();
  if (pid == 0) {
    int rc = 0;
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "campaign_speed: %s\n", e.what());
      rc = 1;
    }
    std::fflush(nullptr);
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? cpu_now() - c0 : -1;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

// The golden run as a campaign makes it (run_golden: recording on, its own fork, the answer decoded
// here) and a plain run of the same job (forked, nothing recorded): CPU seconds, the best kept in `c`,
// and the access log's size.
struct GoldenCost {
  double plain = std::numeric_limits<double>::infinity(), recorded = std::numeric_limits<double>::infinity();
  uint64_t entries = 0, bytes = 0;
  double factor() const { return recorded / plain; }
};

bool golden_cost(const Config& cfg, const std::string& workload, const std::string& launch, GoldenCost& c) {
  const fi::JobFactory make = [&] { return fi::workload_job(cfg, workload, launch, 1); };
  const double p = forked_cpu([&] {
    auto job = make();
    Platform pf(job->config(), job->hooks());
    job->attach(pf);
    pf.run([&](rt::Runtime& rt) { job->run(rt); });
  });
  const double c0 = cpu_now();
  try {
    const fi::GoldenRun g = fi::run_golden(make);
    c.entries = g.accesses.size();
    c.bytes = g.accesses.bytes();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "campaign_speed: %s\n", e.what());
    return false;
  }
  if (p < 0) return false;
  c.plain = std::min(c.plain, p);
  c.recorded = std::min(c.recorded, cpu_now() - c0);
  return true;
}

Config platform_config(const std::string& preset, const nlohmann::json& set) {
  Config cfg = Config::preset(preset);
  for (auto& [key, value] : set.items()) cfg.set(key, value, "campaign_speed");
  cfg.validate();
  return cfg;
}

std::string describe(const GoldenCost& c) {
  return fmt::format("plain {:.2f} ms, with recording {:.2f} ms: factor {:.2f}  log {} entries, {:.1f} MB ({:.1f} B/entry)",
                     c.plain * 1e3, c.recorded * 1e3, c.factor(), c.entries, double(c.bytes) / 1e6,
                     double(c.bytes) / double(std::max<uint64_t>(c.entries, 1)));
}

// The golden runs of the reference campaigns (the access log is the same whatever the campaign's
// targets: the golden run records every observed target).
struct ReferenceGolden {
  const char* what;
  const char* preset;
  const char* set;
  const char* workload;
  const char* launch;
};
const ReferenceGolden kReferenceGoldens[] = {
    {"block scheduler model (reference study)", "flexgrip", R"({"sm.count": 1, "sm.sps": 32})", "scalarProd", "fi32"},
    {"block scheduler model (reference study)", "flexgrip", R"({"sm.count": 2, "sm.sps": 32})", "grayFilter", "fi64"},
    {"block scheduler RTL (reference study)", "flexgrip",
     R"({"sm.count": 1, "sm.sps": 32, "scheduler.impl": "rtl", "arbiter.impl": "rtl"})", "scalarProd", "fi32"},
    {"tx2 register file", "tx2", R"({"sm.count": 1})", "vectorAdd", "fi32"},
    {"tx2 register file", "tx2", R"({"sm.count": 1})", "scalarProd", "fi32"},
    {"memories (instruction fetches too)", "flexgrip", R"({"sm.count": 1})", "scalarProd", "fi32"},
};

// Every reference golden run, `rounds` interleaved rounds (one plain and one recorded run of each case
// per round), best of each.
int golden_table(unsigned rounds) {
  const size_t n = std::size(kReferenceGoldens);
  std::vector<GoldenCost> best(n);
  for (unsigned r = 0; r < rounds; ++r)
    for (size_t i = 0; i < n; ++i) {
      const ReferenceGolden& w = kReferenceGoldens[i];
      if (!golden_cost(platform_config(w.preset, nlohmann::json::parse(w.set)), w.workload, w.launch, best[i])) {
        std::fprintf(stderr, "campaign_speed: a golden run failed\n");
        return 1;
      }
    }
  fmt::print("golden run CPU time, best of {} interleaved rounds (target: recording <= {}x plain)\n", rounds, kTargetFactor);
  for (size_t i = 0; i < n; ++i) {
    const ReferenceGolden& w = kReferenceGoldens[i];
    fmt::print("  {}: {} {} on {} {}\n    {}: {}\n", w.what, w.workload, w.launch, w.preset, w.set, describe(best[i]),
               verdict(best[i].factor() <= kTargetFactor));
  }
  return 0;
}

// The value of a numeric option: decimal digits only, within `unsigned` (std::stoul would throw on
// "ten" and take "-1" or "5x" for numbers). Empty when it is not one.
std::optional<unsigned> count_value(const std::string& v) {
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return unsigned(std::stoul(v));
}

}  // namespace

extern "C" int sc_main(int, char*[]) { return 0; }  // the C name libsystemc looks for

int main(int argc, char* argv[]) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--inst-output" || k == "--golden-only" || k == "--golden-table") {
      (k == "--inst-output" ? o.inst_output : k == "--golden-only" ? o.golden_only : o.golden_table) = true;
      continue;
    }
    if (i + 1 == argc) {
      std::fprintf(stderr, "campaign_speed: %s needs a value\n", k.c_str());
      return 2;
    }
    const std::string v = argv[++i];
    if (k == "--gpuvp") o.gpuvp = v;
    else if (k == "--preset") o.preset = v;
    else if (k == "--workload") o.workload = v;
    else if (k == "--launch") o.launch = v;
    else if (k == "--faults" || k == "--workers" || k == "--repeat") {
      const std::optional<unsigned> n = count_value(v);
      if (!n) {
        gpuvp::print_err("campaign_speed: {} needs a whole number, got '{}'\n", k, v);
        return 2;
      }
      (k == "--faults" ? o.faults : k == "--workers" ? o.workers : o.repeat) = k == "--repeat" ? std::max(1u, *n) : *n;
    } else {
      std::fprintf(stderr, "campaign_speed: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (o.golden_table) return golden_table(3 * o.repeat);
  const std::string dir = fmt::format("/tmp/gpuvp-campaign-speed-{}", ::getpid());
  const std::string regs = R"("targets": ["gpu.sm0.regs"])";
  Timing full, fixed, io;
  Counts counts;
  for (unsigned r = 0; r < o.repeat && !o.golden_only; ++r) {
    bool ok = run(o, dir, campaign(o, regs, o.faults), full, &counts) && run(o, dir, campaign(o, regs, 1), fixed, nullptr);
    if (ok && o.inst_output)
      ok = run(o, dir, campaign(o, R"("instruction_output": {"sm": 0, "group": "G_GPPR"})", o.faults), io, nullptr);
    if (!ok) {
      std::fprintf(stderr, "campaign_speed: a campaign failed\n");
      return 1;
    }
  }
  GoldenCost gc;
  const Config cfg = platform_config(o.preset, {{"sm.count", 1}});
  for (unsigned i = 0; i < 3 * o.repeat; ++i)
    if (!golden_cost(cfg, o.workload, o.launch, gc)) {
      std::fprintf(stderr, "campaign_speed: a golden run failed\n");
      return 1;
    }
  const std::string golden = fmt::format("golden run CPU: {}  target 2x: {}", describe(gc), verdict(gc.factor() <= kTargetFactor));
  if (o.golden_only) {
    fmt::print("{} {} on {} (1 SM): {}\n", o.workload, o.launch, o.preset, golden);
    return 0;
  }
  const double cores = std::min<double>(o.workers, double(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
  const double per_hour = o.faults * 3600 / full.wall, per_hour_cpu = o.faults * 3600 / (full.best.cpu / cores);
  const double runs_s = double(counts.simulated()) / std::max(full.wall - fixed.wall, 1e-9);
  const double runs_s_cpu = double(counts.simulated()) / std::max((full.best.cpu - fixed.best.cpu) / cores, 1e-9);
  fmt::print("{} {} on {} (1 SM), register file gpu.sm0.regs, {} faults, {} workers, best of {}\n", o.workload, o.launch,
             o.preset, o.faults, o.workers, o.repeat);
  fmt::print("  runs: {} in dead intervals, {} sharing a live interval's run, {} simulated ({} stopped early)\n",
             counts.dead, counts.shared, counts.simulated(), counts.early);
  fmt::print("  campaign: {:.3f} s wall, {:.3f} s CPU; 1-fault campaign (fixed part): {:.3f} s wall, {:.3f} s CPU\n",
             full.wall, full.best.cpu, fixed.wall, fixed.best.cpu);
  fmt::print("  injections/hour counting pruned runs: {:10.0f} (wall): {}  {:10.0f} (CPU over {:.0f} cores): {}  (target 3000000)\n",
             per_hour, verdict(per_hour >= kTargetPerHour), per_hour_cpu, cores, verdict(per_hour_cpu >= kTargetPerHour));
  fmt::print("  simulated runs/s beyond the fixed part: {:.0f} (wall)  {:.0f} (CPU over {:.0f} cores)\n", runs_s,
             runs_s_cpu, cores);
  const Usage forked = full.best - fixed.best;
  fmt::print("  beyond the fixed part: {:.1f} s CPU, {:.1f} s of it in the kernel; {:.0f} page faults per simulated run; "
             "a copy-on-write page fault costs {:.1f} us of CPU here\n",
             forked.cpu, forked.sys, forked.faults / double(std::max<uint64_t>(counts.simulated(), 1)), cow_fault_us());
  fmt::print("  {}\n", golden);
  if (o.inst_output)
    fmt::print("  instruction output (G_GPPR, sm0): {:.3f} s wall, {:.0f} injections/hour; ratio to the register file {:.2f}\n",
               io.wall, o.faults * 3600 / io.wall, full.wall / io.wall);
  return 0;
}
