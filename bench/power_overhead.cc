// Host-time cost of power, thermal and wear accounting (docs/power.md, "Cost"): each case runs with
// power.enabled = true and = false, interleaved, best (smallest host_seconds) of N each, and prints
// both, the overhead and whether the case meets the target of at most 10 %.
//
//   power_overhead [--gpuvp PATH] [--repeat N]
//
// Exit 1 when a run fails or a case exceeds the target.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

constexpr double kTargetPercent = 10.0;

// host_seconds of one run (the simulation only, not the process start); < 0 when it failed.
double host_seconds(const std::string& bin, const std::string& args, bool power) {
  const std::string stats = "power_overhead_stats.json";
  std::remove(stats.c_str());
  const std::string cmd = fmt::format("'{}' {} --set power.enabled={} --stats {} > /dev/null 2>&1", bin, args,
                                      power ? "true" : "false", stats);
  if (std::system(cmd.c_str()) != 0) return -1;
  try {
    nlohmann::json j;
    std::ifstream(stats) >> j;
    return j.at("host_seconds").get<double>();
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

// libsystemc refers to sc_main; this process never elaborates (each case is its own gpuvp process).
extern "C" int sc_main(int, char*[]) { return 0; }

int main(int argc, char** argv) {
  std::string bin = GPUVP_BINARY;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--gpuvp") bin = argv[i + 1];
    else if (a == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"scalarProd fi32 (tx2)", "run --preset tx2 --workload scalarProd --launch fi32"},
      {"transpose 1024 x 1024 (tx2)",
       fmt::format("exec --preset tx2 --ptx {}/microbench/microbench.ptx --kernel transpose --grid 32,32 "
                   "--block 32,8 --arg buf:f32:1048576:iota --arg buf:f32:1048576 --arg i32:1024",
                   GPUVP_BENCH_SOURCE)},
      {"scalarProd fi32 (gtx480)", "run --preset gtx480 --workload scalarProd --launch fi32"},
      {"scalarProd fi32 (flexgrip)", "run --preset flexgrip --workload scalarProd --launch fi32"},
      {"nearestNeighbour fi32 (flexgrip)", "run --preset flexgrip --workload nearestNeighbour --launch fi32"},
      // A block resident for 1 s of simulated time, asleep between wake-ups every 1 ms: 2.6 million
      // sample intervals, nearly all steady (docs/power.md, "Steady stretches").
      {"timer spin 1 s (tx2)",
       fmt::format("exec --preset tx2 --ptx {}/../sw/kernels/timerSpin.ptx --kernel timerSpin --grid 2 --block 32 "
                   "--arg buf:u64:2 --arg buf:u64:2 --arg buf:u32:2 --arg buf:u64:2:const=1000000000 "
                   "--arg u32:1000000",
                   GPUVP_BENCH_SOURCE)},
  };
  bool ok = true;
  fmt::print("{:<34} {:>10} {:>10} {:>9}  {}\n", "case", "off (s)", "on (s)", "overhead",
             fmt::format("<= {:.0f} %", kTargetPercent));
  for (auto& [name, args] : cases) {
    double on = 1e30, off = 1e30;
    for (int r = 0; r < repeat; ++r) {
      const double a = host_seconds(bin, args, false), b = host_seconds(bin, args, true);
      if (a < 0 || b < 0) {
        fmt::print("{}: a run failed\n", name);
        return 1;
      }
      off = std::min(off, a);
      on = std::min(on, b);
    }
    const double pct = (on - off) / off * 100;
    ok = ok && pct <= kTargetPercent;
    fmt::print("{:<34} {:>10.4f} {:>10.4f} {:>8.1f}%  {}\n", name, off, on, pct,
               pct <= kTargetPercent ? "met" : "MISSED");
  }
  fmt::print("target: at most {:.0f} % -> {}\n", kTargetPercent, ok ? "met" : "MISSED");
  return ok ? 0 : 1;
}
