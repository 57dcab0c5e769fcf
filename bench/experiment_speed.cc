// Host seconds per simulated second of an experiment on the tx2 preset: by default the 4-benchmark
// experiments/tx2_four_kernels_long.json (blocks spinning for seconds, two priorities, a multikernel
// stream), run in process as `gpuvp experiment` runs it.
//
//   experiment_speed [FILE] [--preset P] [--repeat N]
//
// Target (issue 9): an experiment whose kernels spin for tens of simulated seconds completes in a few
// host seconds.
#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <systemc>

#include "platform/experiment_run.h"

using namespace gpuvp;

namespace {
// SystemC elaborates once per process: each repetition runs in a child.
bool measure(const std::string& file, const std::string& preset, double& sim, double& host) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const Config cfg = Config::preset(preset);
    const ExperimentRun r = run_experiment(load_experiment(file, cfg), cfg, file);
    const double v[2] = {r.simulated_s, r.host_s};
    _exit(write(fd[1], v, sizeof v) == sizeof v ? 0 : 1);
  }
  close(fd[1]);
  double v[2] = {0, 0};
  const bool ok = read(fd[0], v, sizeof v) == sizeof v;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  sim = v[0], host = v[1];
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
}  // namespace

int sc_main(int argc, char** argv) {
  std::string file = GPUVP_SOURCE_DIR "/experiments/tx2_four_kernels_long.json", preset = "tx2";
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--preset" && i + 1 < argc) preset = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else file = a;
  }
  double best_host = 1e300, sim = 0;
  for (int r = 0; r < repeat; ++r) {
    double s = 0, h = 0;
    if (!measure(file, preset, s, h)) {
      fmt::print(stderr, "experiment_speed: the run of {} failed\n", file);
      return 1;
    }
    sim = s;
    best_host = std::min(best_host, h);
  }
  fmt::print("{} on {}: {:.3f} s simulated, {:.3f} host s (best of {}): {:.4f} host s per simulated s\n", file, preset,
             sim, best_host, repeat, best_host / sim);
  return 0;
}
