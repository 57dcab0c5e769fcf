// Injections per hour of instruction-output campaigns beside register-file campaigns of the same
// kernel (docs/campaigns.md, "Instruction-output faults"): the same workload, platform, fault count,
// seed, workers and early stop; one `gpuvp campaign run` process each, its wall time measured here.
//
//   campaign_speed [--gpuvp PATH] [--faults N] [--preset P] [--workload W] [--launch L] [--workers K]
//
// Prints one line per campaign (faults, wall seconds, injections per hour) and the ratio
// instruction-output / register. Exit 1 when a campaign fails.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

struct Options {
  std::string gpuvp = GPUVP_BINARY, preset = "tx2", workload = "vectorAdd", launch = "fi32";
  unsigned faults = 400, workers = 2;
};

std::string campaign(const Options& o, const std::string& where) {
  return fmt::format(R"({{"name": "speed", "platform": {{"preset": "{}", "set": {{"sm.count": 1}}}},
  "workload": {{"name": "{}", "launch": "{}"}}, {}, "size": {{"count": {}}}, "seed": 1, "workers": {}}})",
                     o.preset, o.workload, o.launch, where, o.faults, o.workers);
}

// Wall seconds of `gpuvp campaign run` of `text` (golden run and checkpoints included); < 0 on failure.
double run(const Options& o, const std::string& name, const std::string& text) {
  const std::string dir = fmt::format("/tmp/gpuvp-campaign-speed-{}", ::getpid());
  std::system(fmt::format("rm -rf '{}' && mkdir -p '{}'", dir, dir).c_str());
  const std::string file = dir + "/" + name + ".json";
  std::ofstream(file) << text;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(fmt::format("'{}' campaign run '{}' -q --db '{}/{}.db'", o.gpuvp, file, dir, name).c_str());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::system(fmt::format("rm -rf '{}'", dir).c_str());
  return rc == 0 ? s : -1;
}

}  // namespace

extern "C" int sc_main(int, char*[]) { return 0; }  // the C name libsystemc looks for

int main(int argc, char* argv[]) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--gpuvp") o.gpuvp = v;
    else if (k == "--faults") o.faults = unsigned(std::stoul(v));
    else if (k == "--preset") o.preset = v;
    else if (k == "--workload") o.workload = v;
    else if (k == "--launch") o.launch = v;
    else if (k == "--workers") o.workers = unsigned(std::stoul(v));
    else {
      std::fprintf(stderr, "campaign_speed: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const double regs = run(o, "registers", campaign(o, R"("targets": ["gpu.sm0.regs"])"));
  const double io = run(o, "inst_output", campaign(o, R"("instruction_output": {"sm": 0, "group": "G_GPPR"})"));
  if (regs < 0 || io < 0) {
    std::fprintf(stderr, "campaign_speed: a campaign failed\n");
    return 1;
  }
  fmt::print("{} {} on {} (1 SM), {} faults, {} workers\n", o.workload, o.launch, o.preset, o.faults, o.workers);
  fmt::print("  register file (gpu.sm0.regs)      {:8.2f} s  {:10.0f} injections/hour\n", regs, o.faults * 3600 / regs);
  fmt::print("  instruction output (G_GPPR, sm0)  {:8.2f} s  {:10.0f} injections/hour\n", io, o.faults * 3600 / io);
  fmt::print("  ratio instruction output / register file: {:.2f}\n", regs / io);
  return 0;
}
