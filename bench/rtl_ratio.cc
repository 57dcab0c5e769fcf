// Host-time cost of the Verilated RTL: the whole platform with the RTL block scheduler and stall
// arbiters (--set scheduler.impl=rtl --set arbiter.impl=rtl) against the SystemC models, on the
// fault-injection workloads (vectorAdd fi16/fi32, scalarProd fi16/fi32, grayFilter fi16/fi64,
// nearestNeighbour fi16/fi32) on flexgrip with 1 and 2 SMs. SystemC elaborates once per process,
// so every run is a `gpuvp run ... --stats FILE` subprocess; the host time is the statistics'
// host_seconds (sc_start to the end of the host program), the fastest of --repeat runs.
//
//   rtl_ratio [--gpuvp PATH] [--repeat N]      (default: ../gpuvp next to this binary, 3 runs)
// Prints one line per case and the ratio of the totals (target: at most 1.3 in a Release build).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

std::string self_dir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

// host_seconds of one run, or a negative value when the run failed.
double run_once(const std::string& gpuvp, const std::string& args, uint64_t& cycles) {
  std::string stats = fmt::format("/tmp/rtl_ratio_{}.json", getpid());
  std::string cmd = fmt::format("{} run {} --stats {} >/dev/null 2>&1", gpuvp, args, stats);
  if (std::system(cmd.c_str()) != 0) return -1;
  std::ifstream in(stats);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::remove(stats.c_str());
  if (text.empty()) return -1;
  auto j = nlohmann::json::parse(text);
  if (!j.value("correct", false)) return -1;
  cycles = j["kernel_cycles"].get<uint64_t>();
  return j["host_seconds"].get<double>();
}

}  // namespace

// libsystemc (linked through gpuvp_platform) refers to sc_main; without it a Debug or sanitizer build,
// which keeps the reference, fails to link. This process never elaborates (each case is a gpuvp process).
extern "C" int sc_main(int, char*[]) { return 0; }  // the C name libsystemc looks for

int main(int argc, char** argv) {
  std::string gpuvp = self_dir() + "/../gpuvp";
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--gpuvp" && i + 1 < argc) gpuvp = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else {
      fmt::print(stderr, "usage: rtl_ratio [--gpuvp PATH] [--repeat N]\n");
      return 2;
    }
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"vectorAdd", "fi16"},  {"vectorAdd", "fi32"},  {"scalarProd", "fi16"},       {"scalarProd", "fi32"},
      {"grayFilter", "fi16"}, {"grayFilter", "fi64"}, {"nearestNeighbour", "fi16"}, {"nearestNeighbour", "fi32"}};
  fmt::print("{:<18} {:<6} {:>4} {:>10} {:>12} {:>12} {:>7}\n", "workload", "launch", "SMs", "cycles", "model s",
             "rtl s", "ratio");
  double total_m = 0, total_r = 0;
  bool ok = true;
  for (int sms : {1, 2})
    for (auto& [w, l] : cases) {
      std::string base = fmt::format("--preset flexgrip --set sm.count={} --workload {} --launch {}", sms, w, l);
      double best_m = 1e30, best_r = 1e30;
      uint64_t cm = 0, cr = 0;
      for (int k = 0; k < repeat; ++k) {
        // Interleaved so that machine load affects both alike.
        double m = run_once(gpuvp, base + " --set scheduler.impl=model --set arbiter.impl=model", cm);
        double r = run_once(gpuvp, base + " --set scheduler.impl=rtl --set arbiter.impl=rtl", cr);
        if (m < 0 || r < 0) {
          fmt::print(stderr, "rtl_ratio: {} failed\n", base);
          ok = false;
          break;
        }
        best_m = std::min(best_m, m);
        best_r = std::min(best_r, r);
      }
      if (!ok) break;
      if (cm != cr) {
        fmt::print(stderr, "rtl_ratio: {}: {} cycles with the models, {} with the RTL\n", base, cm, cr);
        ok = false;
      }
      total_m += best_m;
      total_r += best_r;
      fmt::print("{:<18} {:<6} {:>4} {:>10} {:>12.4f} {:>12.4f} {:>7.3f}\n", w, l, sms, cm, best_m, best_r,
                 best_r / best_m);
    }
  if (!ok) return 1;
  fmt::print("total host seconds: models {:.4f}, RTL {:.4f}, ratio RTL/models {:.3f} (target <= 1.3)\n", total_m,
             total_r, total_r / total_m);
  return 0;
}
