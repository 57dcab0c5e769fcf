// Host cost of an idle platform: builds a Platform from a preset and runs a host program that only
// waits `seconds` of simulated time (no launch, no bus traffic). Nothing in the platform should run
// while it waits (clock.h, ARCHITECTURE.md "Speed is designed in"), so a simulated second must cost
// milliseconds of host time.
//
//   idle [--preset NAME] [--set key=value ...] [--seconds S] [--stats FILE]
//
// Prints one line, and with --stats writes {preset, sim_seconds, host_seconds, host_ms_per_sim_second}.
// SystemC elaborates once per process: bench/bench.cc runs this binary once per preset.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <systemc>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

using namespace gpuvp;

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
  std::string preset = "tx2", stats;
  std::vector<std::string> sets;
  double seconds = 1.0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "idle: {} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--preset" || a == "-p") preset = val();
    else if (a == "--set" || a == "-s") sets.push_back(val());
    else if (a == "--seconds") seconds = std::stod(val());
    else if (a == "--stats") stats = val();
    else {
      fmt::print(stderr, "usage: idle [--preset NAME] [--set key=value ...] [--seconds S] [--stats FILE]\n");
      return 2;
    }
  }
  try {
    Config c = Config::preset(preset);
    for (auto& s : sets) c.set(s);
    c.validate();
    Platform p(c);
    p.run([&](rt::Runtime&) { sc_core::wait(sc_core::sc_time(seconds, sc_core::SC_SEC)); });
    PlatformStats st = p.stats();
    double ms_per_s = st.sim_seconds > 0 ? st.host_seconds * 1e3 / st.sim_seconds : 0.0;
    std::string label = preset;
    for (auto& s : sets) label += " " + s;
    fmt::print("idle {}: {:.3f} simulated s in {:.3f} host ms ({:.3f} host ms per simulated second)\n", label,
               st.sim_seconds, st.host_seconds * 1e3, ms_per_s);
    if (!stats.empty()) {
      nlohmann::json j{{"preset", preset},
                       {"sets", sets},
                       {"sim_seconds", st.sim_seconds},
                       {"host_seconds", st.host_seconds},
                       {"host_ms_per_sim_second", ms_per_s}};
      std::ofstream(stats) << j.dump(2) << "\n";
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "idle: {}\n", e.what());
    return 1;
  }
  return 0;
}
