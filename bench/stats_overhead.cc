// Host-time cost of the SM's statistics (sm.statistics, on by default; docs/statistics.md, "Cost"):
// one large launch run with `--stats` with the statistics on and with `--set sm.statistics=false`,
// interleaved (on, off, on, off, ...) so load changes on the host hit both alike, the fastest
// `host_seconds` of each kept.
//
//   stats_overhead [--gpuvp PATH] [--preset P] [--workload W --launch L] [--repeat N] [--limit PCT]
//
// Defaults: tx2, `gpuvp exec` of examples/sweeps/transpose.ptx on a 1024 x 1024 matrix (4096 blocks
// of 16 x 16), 5 runs of each, limit 5 %; --workload/--launch: `gpuvp run` of a built-in workload. Prints both host times and the overhead
// (on - off) / off in percent; checks that both runs simulated the same kernel cycles and that the
// statistics were off (no scheduler instructions counted) in the second. Exit 1 when a run fails, a
// check fails or the overhead exceeds the limit.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace {

struct Options {
  std::string gpuvp = GPUVP_BINARY, preset = "tx2", workload, launch;
  unsigned repeat = 5;
  double limit = 5.0;
};

struct Best {
  double host_seconds = 1e300;
  uint64_t kernel_cycles = 0, scheduler_insts = 0;
};

// What runs: the built-in workload, or the 1024 x 1024 transpose.
std::string what(const Options& o) {
  if (!o.workload.empty()) return fmt::format("run --workload {} --launch {}", o.workload, o.launch);
  return fmt::format("exec --ptx '{}/examples/sweeps/transpose.ptx' -k transpose --grid 64,64 --block 16,16 "
                     "-a buf:f32:1048576 -a buf:f32:1048576:iota -a i32:1024 -a i32:1024",
                     GPUVP_SOURCE_DIR);
}

// One run; false when it failed or wrote no statistics.
bool run_once(const Options& o, bool statistics, Best& best) {
  const std::string file = fmt::format("/tmp/gpuvp-stats-overhead-{}.json", ::getpid());
  std::remove(file.c_str());
  const std::string cmd = fmt::format("'{}' {} --preset {} --stats '{}'{} > /dev/null 2>&1", o.gpuvp, what(o), o.preset,
                                      file, statistics ? "" : " --set sm.statistics=false");
  if (std::system(cmd.c_str()) != 0) return false;
  nlohmann::json s;
  try {
    std::ifstream(file) >> s;
  } catch (const std::exception&) {
    return false;
  }
  std::remove(file.c_str());
  best.host_seconds = std::min(best.host_seconds, s.at("host_seconds").get<double>());
  best.kernel_cycles = s.at("kernel_cycles").get<uint64_t>();
  best.scheduler_insts = 0;
  for (const auto& sm : s.at("sms")) best.scheduler_insts += sm.at("issue").at("warp_insts").get<uint64_t>();
  return true;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    if (a == "--gpuvp") o.gpuvp = v;
    else if (a == "--preset") o.preset = v;
    else if (a == "--workload") o.workload = v;
    else if (a == "--launch") o.launch = v;
    else if (a == "--repeat") o.repeat = unsigned(std::max(1, std::atoi(v.c_str())));
    else if (a == "--limit") o.limit = std::atof(v.c_str());
    else return false;
  }
  return true;
}
}  // namespace

extern "C" int sc_main(int, char*[]) { return 0; }  // the C name libsystemc looks for (the library links it)

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o) || o.workload.empty() != o.launch.empty()) {
    std::fprintf(stderr,
                 "usage: stats_overhead [--gpuvp PATH] [--preset P] [--workload W --launch L] [--repeat N] "
                 "[--limit PCT]\n");
    return 2;
  }
  Best on, off;
  for (unsigned i = 0; i < o.repeat; ++i)
    if (!run_once(o, true, on) || !run_once(o, false, off)) {
      fmt::print(stderr, "stats_overhead: a run of `gpuvp {}` on {} failed\n", what(o), o.preset);
      return 1;
    }
  const double pct = (on.host_seconds - off.host_seconds) / off.host_seconds * 100.0;
  fmt::print("{} on {}, best of {} interleaved runs each\n",
             o.workload.empty() ? "transpose 1024 x 1024 (exec)" : o.workload + " " + o.launch, o.preset, o.repeat);
  fmt::print("  statistics on  (default)           : {:.4f} s host\n", on.host_seconds);
  fmt::print("  statistics off (sm.statistics=false): {:.4f} s host\n", off.host_seconds);
  fmt::print("  overhead: {:+.2f} % (limit {:.1f} %)\n", pct, o.limit);
  bool ok = pct <= o.limit;
  if (on.kernel_cycles != off.kernel_cycles) {
    fmt::print("  FAIL: kernel cycles differ ({} with statistics, {} without)\n", on.kernel_cycles, off.kernel_cycles);
    ok = false;
  }
  if (off.scheduler_insts != 0 || on.scheduler_insts == 0) {
    fmt::print("  FAIL: scheduler instructions counted {} on, {} off\n", on.scheduler_insts, off.scheduler_insts);
    ok = false;
  }
  return ok ? 0 : 1;
}
