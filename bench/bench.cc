// Simulation-speed harness. SystemC elaborates once per process, so every case runs the `gpuvp`
// binary (`gpuvp run ... --stats FILE`) and reads its statistics JSON (kernel_cycles,
// thread_insts, host_seconds, thread_insts_per_host_second).
//
//   bench [options]
//     --gpuvp PATH        gpuvp binary (default: next to this binary, or ../gpuvp, or ./gpuvp)
//     --idle-bin PATH     the idle bench binary (default: next to this binary)
//     --workload W        only these workloads (repeatable; default: all)
//     --preset P          only these platforms (repeatable): flexgrip1 flexgrip2 tk1 tx2 (default: all)
//     --configs MODE      all (default) | first | largest  (launch configurations per workload)
//     --launch C          only this launch configuration (repeatable)
//     --repeat N          run every case N times, keep the fastest (default 1)
//     --json FILE         also write every measurement as JSON
//     --no-idle           skip the idle measurements;  --idle-only: only them
//     --targets           only the cases of the speed targets (scalarProd fi32 on tx2/flexgrip1/flexgrip2 + idle)
//
// Table: host seconds (sc_start to the end of the host program), simulated GPU cycles in kernels,
// simulated thread-instructions, millions of thread-instructions per host second.
// Idle: timerSpin "second" (every block spins one simulated second, sleeping 1 ms per iteration)
// and the idle binary (a host program that only waits one simulated second), in host ms per
// simulated second.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "sw/workloads/workload.h"

using nlohmann::json;

namespace {

struct Platform {
  std::string label, args;
};
const std::vector<Platform> kPlatforms = {
    {"flexgrip1", "--preset flexgrip --set sm.count=1"},
    {"flexgrip2", "--preset flexgrip --set sm.count=2"},
    {"tk1", "--preset tk1"},
    {"tx2", "--preset tx2"},
};

// Targets from the issues.
constexpr double kTargetMips = 20.0;          // M thread-insts per host second, scalarProd fi32
constexpr double kTargetIdleMsPerSec = 50.0;  // "milliseconds" of host time per simulated second

bool exists(const std::string& p) { return access(p.c_str(), X_OK) == 0; }

std::string dir_of(const std::string& p) {
  auto s = p.rfind('/');
  return s == std::string::npos ? "." : p.substr(0, s);
}

std::string self_dir(const char* argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    return dir_of(buf);
  }
  return dir_of(argv0);
}

std::string quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

struct Outcome {
  bool ran = false;  // a stats file was produced
  int status = -1;
  json stats;
};

// Runs `cmd` (stdout/stderr discarded), which writes its statistics JSON to `file`.
Outcome run_with_stats(const std::string& cmd, const std::string& file) {
  Outcome o;
  std::remove(file.c_str());
  int rc = std::system((cmd + " > /dev/null 2>&1").c_str());
  o.status = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  std::ifstream in(file);
  if (in) {
    try {
      in >> o.stats;
      o.ran = true;
    } catch (const std::exception&) {
    }
  }
  return o;
}

// Best of `repeat` runs (smallest host_seconds).
Outcome best_of(int repeat, const std::string& cmd, const std::string& file) {
  Outcome best;
  for (int r = 0; r < repeat; ++r) {
    Outcome o = run_with_stats(cmd, file);
    if (!o.ran) return o;
    if (!best.ran || o.stats.value("host_seconds", 1e30) < best.stats.value("host_seconds", 1e30)) best = o;
  }
  return best;
}

double size_of(const gpuvp::wl::LaunchConfig& c) {
  static const char* kNotSize[] = {"spin_ns", "sleep_ns", "jitter_ns", "hot_percent", "level", "levels"};
  double s = 1;
  for (auto& [k, v] : c.params)
    if (v > 0 && std::find(std::begin(kNotSize), std::end(kNotSize), k) == std::end(kNotSize)) s *= double(v);
  return s;
}

bool wanted(const std::vector<std::string>& only, const std::string& x) {
  return only.empty() || std::find(only.begin(), only.end(), x) != only.end();
}

int usage() {
  fmt::print(stderr,
             "usage: bench [--gpuvp PATH] [--idle-bin PATH] [--workload W]... [--preset P]... [--launch C]...\n"
             "             [--configs all|first|largest] [--repeat N] [--json FILE] [--no-idle|--idle-only] [--targets]\n");
  return 2;
}

}  // namespace

// libsystemc refers to sc_main; this process never elaborates (each case is its own gpuvp process).
extern "C" int sc_main(int, char*[]) { return 0; }  // the C name libsystemc looks for

int main(int argc, char* argv[]) {
  std::string gpuvp, idle_bin, json_file, mode = "all";
  std::vector<std::string> only_wl, only_pf, only_cfg;
  int repeat = 1;
  bool do_table = true, do_idle = true, targets = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "bench: {} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--gpuvp") gpuvp = val();
    else if (a == "--idle-bin") idle_bin = val();
    else if (a == "--workload" || a == "-w") only_wl.push_back(val());
    else if (a == "--preset" || a == "-p") only_pf.push_back(val());
    else if (a == "--launch" || a == "-l") only_cfg.push_back(val());
    else if (a == "--configs") mode = val();
    else if (a == "--repeat") repeat = std::max(1, std::atoi(val().c_str()));
    else if (a == "--json") json_file = val();
    else if (a == "--no-idle") do_idle = false;
    else if (a == "--idle-only") do_table = false;
    else if (a == "--targets") targets = true;
    else return usage();
  }
  if (mode != "all" && mode != "first" && mode != "largest") return usage();
  const std::string here = self_dir(argv[0]);
  if (gpuvp.empty())
    for (const std::string& c : {here + "/gpuvp", here + "/../gpuvp", std::string("./gpuvp"), std::string("build-perf/gpuvp")})
      if (exists(c)) {
        gpuvp = c;
        break;
      }
  if (gpuvp.empty() || !exists(gpuvp)) {
    fmt::print(stderr, "bench: no gpuvp binary found (pass --gpuvp PATH)\n");
    return 2;
  }
  if (idle_bin.empty() && exists(here + "/idle")) idle_bin = here + "/idle";
  for (auto& p : only_pf)
    if (std::none_of(kPlatforms.begin(), kPlatforms.end(), [&](const Platform& x) { return x.label == p; })) {
      fmt::print(stderr, "bench: unknown platform {} (flexgrip1 flexgrip2 tk1 tx2)\n", p);
      return 2;
    }
  if (targets) {
    only_wl = {"scalarProd"};
    only_cfg = {"fi32"};
    if (only_pf.empty()) only_pf = {"flexgrip1", "flexgrip2", "tx2"};
  }

  char tmpl[] = "/tmp/gpuvp_bench_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) {
    fmt::print(stderr, "bench: cannot create a temporary file\n");
    return 3;
  }
  close(fd);
  const std::string stats_file = tmpl;
  json all = {{"gpuvp", gpuvp}, {"repeat", repeat}, {"cases", json::array()}, {"idle", json::array()}};
  bool all_ok = true;
  std::vector<std::string> target_lines;

  if (do_table) {
    fmt::print("gpuvp: {}   (best of {} run{})\n\n", gpuvp, repeat, repeat > 1 ? "s" : "");
    fmt::print("{:<17} {:<9} {:<10} {:>7} {:>9} {:>13} {:>12} {:>10}\n", "workload", "launch", "platform", "result",
               "host s", "kernel cyc", "thread-insts", "M ti/s");
    fmt::print("{}\n", std::string(94, '-'));
    for (auto& w : gpuvp::wl::all()) {
      if (!wanted(only_wl, w->name())) continue;
      std::vector<gpuvp::wl::LaunchConfig> cfgs;
      for (auto& c : w->configs())
        if (c.name != "second" && wanted(only_cfg, c.name)) cfgs.push_back(c);  // "second" is the idle case
      if (cfgs.empty()) continue;
      if (mode == "first" && only_cfg.empty()) cfgs.resize(1);
      if (mode == "largest" && only_cfg.empty()) {
        auto it = std::max_element(cfgs.begin(), cfgs.end(),
                                   [](const auto& a, const auto& b) { return size_of(a) <= size_of(b); });
        cfgs = {*it};
      }
      for (auto& c : cfgs)
        for (auto& pf : kPlatforms) {
          if (!wanted(only_pf, pf.label)) continue;
          std::string cmd = fmt::format("{} run {} --workload {} --launch {} --stats {}", quote(gpuvp), pf.args,
                                        quote(w->name()), quote(c.name), quote(stats_file));
          Outcome o = best_of(repeat, cmd, stats_file);
          json row = {{"workload", w->name()}, {"launch", c.name}, {"platform", pf.label}, {"exit_status", o.status}};
          if (!o.ran) {
            all_ok = false;
            fmt::print("{:<17} {:<9} {:<10} {:>7}\n", w->name(), c.name, pf.label, fmt::format("exit {}", o.status));
            all["cases"].push_back(row);
            continue;
          }
          const json& s = o.stats;
          bool correct = s.value("correct", false) && o.status == 0;
          all_ok = all_ok && correct;
          double hs = s.value("host_seconds", 0.0);
          uint64_t cyc = s.value("kernel_cycles", uint64_t{0}), ti = s.value("thread_insts", uint64_t{0});
          double mips = s.value("thread_insts_per_host_second", 0.0) / 1e6;
          fmt::print("{:<17} {:<9} {:<10} {:>7} {:>9.4f} {:>13} {:>12} {:>10.2f}\n", w->name(), c.name, pf.label,
                     correct ? "ok" : "WRONG", hs, cyc, ti, mips);
          std::fflush(stdout);
          row.update({{"correct", correct},
                      {"host_seconds", hs},
                      {"sim_seconds", s.value("sim_seconds", 0.0)},
                      {"kernel_cycles", cyc},
                      {"thread_insts", ti},
                      {"thread_insts_per_host_second", s.value("thread_insts_per_host_second", 0.0)}});
          all["cases"].push_back(row);
          if (w->name() == "scalarProd" && c.name == "fi32" && pf.label != "tk1")
            target_lines.push_back(fmt::format("  scalarProd fi32 on {:<10} {:8.2f} M thread-insts/s  (target >= {:.0f})  {}",
                                               pf.label, mips, kTargetMips, mips >= kTargetMips ? "PASS" : "FAIL"));
        }
    }
  }

  if (do_idle) {
    fmt::print("\nidle cost (host ms per simulated second)\n");
    fmt::print("{:<34} {:<10} {:>10} {:>10} {:>14}\n", "case", "platform", "sim s", "host ms", "ms / sim s");
    fmt::print("{}\n", std::string(82, '-'));
    for (auto& pf : kPlatforms) {
      if (!wanted(only_pf, pf.label)) continue;
      struct Case {
        std::string name, cmd;
      };
      std::vector<Case> cases;
      cases.push_back({"timerSpin second (nanosleep spin)",
                       fmt::format("{} run {} --workload timerSpin --launch second --stats {}", quote(gpuvp), pf.args,
                                   quote(stats_file))});
      if (!idle_bin.empty())
        cases.push_back({"idle platform (host waits 1 s)",
                         fmt::format("{} {} --seconds 1 --stats {}", quote(idle_bin), pf.args, quote(stats_file))});
      for (auto& c : cases) {
        Outcome o = best_of(repeat, c.cmd, stats_file);
        json row = {{"case", c.name}, {"platform", pf.label}, {"exit_status", o.status}};
        if (!o.ran || o.status != 0) {
          all_ok = false;
          fmt::print("{:<34} {:<10} {:>10}\n", c.name, pf.label, fmt::format("exit {}", o.status));
          all["idle"].push_back(row);
          continue;
        }
        double sim = o.stats.value("sim_seconds", 0.0), host = o.stats.value("host_seconds", 0.0);
        double per = sim > 0 ? host * 1e3 / sim : 0.0;
        fmt::print("{:<34} {:<10} {:>10.4f} {:>10.3f} {:>14.3f}\n", c.name, pf.label, sim, host * 1e3, per);
        std::fflush(stdout);
        row.update({{"sim_seconds", sim}, {"host_seconds", host}, {"host_ms_per_sim_second", per}});
        all["idle"].push_back(row);
        target_lines.push_back(fmt::format("  {} on {:<10} {:8.3f} host ms per simulated s  (target < {:.0f})  {}",
                                           c.name, pf.label, per, kTargetIdleMsPerSec,
                                           per < kTargetIdleMsPerSec ? "PASS" : "FAIL"));
      }
    }
  }

  if (!target_lines.empty()) {
    fmt::print("\ntargets\n");
    for (auto& l : target_lines) fmt::print("{}\n", l);
  }
  std::remove(stats_file.c_str());
  if (!json_file.empty()) std::ofstream(json_file) << all.dump(2) << "\n";
  return all_ok ? 0 : 1;
}
