// Simulation speed of large launches on tx2 (the target of the Kepler/Pascal micro-architecture:
// at least 50 M simulated thread-instructions per host second), beside a baseline build (the same
// cases run by another gpuvp binary, interleaved, best of N each) or, without one, beside the
// figures recorded before the micro-architecture changed (docs/validation.md, "Speed").
//
//   uarch_speed [--gpuvp PATH] [--baseline PATH] [--repeat N] [--json FILE]
//
// Every case is one `gpuvp` process writing its statistics JSON; the figure is its
// thread_insts_per_host_second (simulated thread-instructions over host seconds from sc_start to
// the end of the host program). Exit 1 when a case fails or misses the target.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

constexpr double kTargetMips = 50.0;

struct Case {
  std::string name;
  std::string args;   // after the binary, before --stats
  double before_mips;  // recorded before the change (0: none)
};

// The micro-benchmark kernels sit next to this file's source (bench/microbench). The one figure
// recorded before the micro-architecture changed: scalarProd fi32 on tx2 with the concurrent
// dispatcher, 182.3 M (docs/validation.md, "Speed", measured on 2026-11-23); the others had none.
std::vector<Case> cases(const std::string& src) {
  const std::string ptx = src + "/microbench/microbench.ptx";
  return {
      {"scalarProd fi32", "run --preset tx2 --workload scalarProd --launch fi32", 182.3},
      {"transpose 1024 x 1024",
       fmt::format("exec --preset tx2 --ptx {} --kernel transpose --grid 32,32 --block 32,8 "
                   "--arg buf:f32:1048576:iota --arg buf:f32:1048576 --arg i32:1024",
                   ptx),
       0},
      // The workload's own launches are a block or a few (mandelbrot deep: 214 k thread-instructions,
      // about 10 host ms, mostly the process's page faults): this one fills both SMs for 1.1 M cycles.
      {"mandelbrot 512 x 512",
       fmt::format("exec --preset tx2 --ptx {}/../sw/kernels/mandelbrot.ptx --kernel mandelbrot "
                   "--grid 32,32 --block 16,16 --arg buf:i32:262144 --arg i32:512 --arg i32:512 "
                   "--arg f32:-2.0 --arg f32:-1.25 --arg f32:0.0048828125 --arg f32:0.0048828125 "
                   "--arg i32:256",
                   src),
       0},
  };
}

bool executable(const std::string& p) { return access(p.c_str(), X_OK) == 0; }

// Best (largest) thread_insts_per_host_second of one run; -1 when the run failed.
double run_once(const std::string& bin, const Case& c, const std::string& stats) {
  std::remove(stats.c_str());
  const std::string cmd = fmt::format("'{}' {} --stats '{}' > /dev/null 2>&1", bin, c.args, stats);
  if (std::system(cmd.c_str()) != 0) return -1;
  json j;
  try {
    std::ifstream(stats) >> j;
  } catch (const std::exception&) {
    return -1;
  }
  return j.value("thread_insts_per_host_second", 0.0) / 1e6;
}

int usage() {
  fmt::print(stderr, "usage: uarch_speed [--gpuvp PATH] [--baseline PATH] [--repeat N] [--json FILE]\n");
  return 2;
}

}  // namespace

// libsystemc refers to sc_main; this process never elaborates (each case is its own gpuvp process).
extern "C" int sc_main(int, char*[]) { return 0; }

int main(int argc, char* argv[]) {
  std::string gpuvp = GPUVP_BINARY, baseline, json_file;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    if (a == "--gpuvp") gpuvp = argv[++i];
    else if (a == "--baseline") baseline = argv[++i];
    else if (a == "--repeat") repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--json") json_file = argv[++i];
    else return usage();
  }
  for (const std::string& b : {gpuvp, baseline})
    if (!b.empty() && !executable(b)) {
      fmt::print(stderr, "uarch_speed: {} is not an executable gpuvp binary\n", b);
      return 2;
    }
  char tmpl[] = "/tmp/gpuvp_uarch_XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) return 3;
  close(fd);
  const std::string stats = tmpl;
  fmt::print("tx2, M simulated thread-instructions per host second, best of {} interleaved runs (target >= {:.0f})\n",
             repeat, kTargetMips);
  fmt::print("{:<24} {:>10} {:>12}  {}\n", "case", "this build", baseline.empty() ? "before" : "baseline", "target");
  json out = json::array();
  bool ok = true;
  for (const Case& c : cases(GPUVP_BENCH_SOURCE)) {
    double now = -1, base = baseline.empty() ? c.before_mips : -1;
    for (int r = 0; r < repeat; ++r) {
      now = std::max(now, run_once(gpuvp, c, stats));
      if (!baseline.empty()) base = std::max(base, run_once(baseline, c, stats));
    }
    const bool pass = now >= kTargetMips;
    ok = ok && pass;
    fmt::print("{:<24} {:>10.1f} {:>12}  {}\n", c.name, now,
               base > 0 ? fmt::format("{:.1f}", base) : std::string(base < 0 ? "failed" : "-"), pass ? "PASS" : "FAIL");
    std::fflush(stdout);
    out.push_back({{"case", c.name}, {"mips", now}, {"baseline_mips", base}, {"pass", pass}});
  }
  std::remove(stats.c_str());
  if (!json_file.empty()) std::ofstream(json_file) << out.dump(1) << "\n";
  return ok ? 0 : 1;
}
