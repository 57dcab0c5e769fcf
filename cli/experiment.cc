#include "cli/experiment.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "platform/config/json_text.h"
#include "platform/experiment_file.h"
#include "platform/experiment_run.h"
#include "platform/text.h"

namespace gpuvp {

namespace {

// Names and labels are the user's: quoted, escaped and cut short.
std::string quoted(const std::string& s) { return json_shown(nlohmann::json(s)); }

std::string launches(const Benchmark& b) {
  if (b.kind == BenchmarkKind::TimerSpin)
    return fmt::format("grid {} x block {}, spin {} ns", dims_text(b.grid), dims_text(b.block), b.spin_ns);
  std::string out = "kernels";
  for (size_t k = 0; k < b.kernels.size(); ++k) {
    const SpinKernel& s = b.kernels[k];
    out += fmt::format("{} {} (grid {} x block {}, {} ns)", k ? "," : "", quoted(s.name), s.blocks, s.threads, s.spin_ns);
  }
  return out;
}

// The limits a benchmark sets for itself, when not the experiment's.
std::string own_limits(const Benchmark& b, const Experiment& e) {
  std::string out;
  if (b.max_iterations != e.max_iterations) out += fmt::format(", max_iterations {}", b.max_iterations);
  if (b.max_time != e.max_time) out += fmt::format(", max_time {} s", b.max_time);
  return out;
}

}  // namespace

int cmd_experiment_check(const Config& cfg, const std::string& file) {
  const Experiment e = load_experiment(file, cfg);
  refuse_unbounded_logs(e, cfg.f("host.launch_latency_ns"), file);
  print_out("{}: experiment {} on {}: {} benchmark{}, max_iterations {}, max_time {} s (0: unlimited), results in {}\n",
             file, quoted(e.name), cfg.name(), e.benchmarks.size(), e.benchmarks.size() == 1 ? "" : "s",
             e.max_iterations, e.max_time, quoted(e.base_result_directory));
  for (size_t i = 0; i < e.benchmarks.size(); ++i) {
    const Benchmark& b = e.benchmarks[i];
    print_out("  [{}] {} {}: release {} s, priority {} ({}), {}{}{}\n", i, to_string(b.kind), quoted(b.label),
               b.release_time, b.stream_priority, b.stream_priority < 0 ? "high" : "low", launches(b), own_limits(b, e),
               b.sm_mask ? ", on " + sm_list(b.sm_mask) : "");
  }
  return 0;
}

namespace {

// The result directory and each log's path in it, created and checked before anything is simulated:
// a run of minutes must not end in "cannot write" (nor write some logs and lose the others).
struct LogFiles {
  std::filesystem::path dir;
  std::vector<std::filesystem::path> paths;
};

// An empty file of this process in `dir` (mode as the umask says), or "" with errno set.
std::string temp_file(const std::filesystem::path& dir) {
  std::string name = (dir / ".gpuvp-experiment-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return "";
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  return name;
}

LogFiles prepare_logs(const Experiment& e, const std::string& file, const std::string& out_dir) {
  LogFiles lf{out_dir.empty() ? std::filesystem::path(e.base_result_directory) : std::filesystem::path(out_dir), {}};
  const std::string where = fmt::format("{}: {} {}", file, out_dir.empty() ? "base_result_directory" : "--out",
                                        lf.dir.string());
  std::error_code ec;
  std::filesystem::create_directories(lf.dir, ec);
  if (ec || !std::filesystem::is_directory(lf.dir, ec))
    throw ConfigError(fmt::format("{}: {}", where, ec ? ec.message() : "not a directory"));
  const std::string probe = temp_file(lf.dir);
  if (probe.empty()) throw ConfigError(fmt::format("{}: cannot write in it: {}", where, std::strerror(errno)));
  std::remove(probe.c_str());
  for (size_t i = 0; i < e.benchmarks.size(); ++i) {
    lf.paths.push_back(lf.dir / e.benchmarks[i].log_name);
    const std::filesystem::path& p = lf.paths.back();
    const auto st = std::filesystem::status(p, ec);
    const char* why = !std::filesystem::exists(st)            ? nullptr
                      : std::filesystem::is_directory(st)     ? "is a directory"
                      : !std::filesystem::is_regular_file(st) ? "is not a regular file"
                      : ::access(p.c_str(), W_OK) != 0        ? "is not writable"
                                                              : nullptr;
    if (why) throw ConfigError(fmt::format("{}: benchmarks[{}].log_name: {} {}", file, i, p.string(), why));
  }
  return lf;
}

// Every log into a file of its own in the directory first, then each renamed to its name: a failed
// write leaves no log half-written (and the others as they were).
void write_logs(const LogFiles& lf, const ExperimentRun& r, const std::string& file) {
  std::vector<std::string> temps;
  auto fail = [&](const std::filesystem::path& p, int err) {
    for (const std::string& t : temps) std::remove(t.c_str());
    throw ConfigError(fmt::format("{}: cannot write {}: {}", file, p.string(), std::strerror(err)));
  };
  for (size_t i = 0; i < lf.paths.size(); ++i) {
    const std::string t = temp_file(lf.dir);
    if (t.empty()) fail(lf.paths[i], errno);
    temps.push_back(t);
    std::ofstream f(t, std::ios::trunc);
    f << json_dump(r.logs[i], 2) << "\n";
    f.flush();
    if (!f) fail(lf.paths[i], errno ? errno : EIO);
  }
  for (size_t i = 0; i < lf.paths.size(); ++i) {
    if (std::rename(temps[i].c_str(), lf.paths[i].c_str()) != 0) {
      const int err = errno;
      temps.erase(temps.begin(), temps.begin() + long(i));  // those before are in place
      fail(lf.paths[i], err);
    }
  }
}

}  // namespace

int cmd_experiment_run(const Config& cfg, const std::string& file, const std::string& out_dir,
                       const RunOutputs& outputs) {
  const Experiment e = load_experiment(file, cfg);
  const LogFiles lf = prepare_logs(e, file, out_dir);
  outputs.check();
  const ExperimentRun r = run_experiment(e, cfg, file, outputs);
  write_logs(lf, r, file);
  print_out("{}: experiment '{}' on {}: {:.6f} s simulated in {:.2f} s\n", file, e.name, cfg.name(), r.simulated_s,
             r.host_s);
  for (size_t i = 0; i < e.benchmarks.size(); ++i)
    print_out("  [{}] {} '{}': {} kernel runs -> {}\n", i, to_string(e.benchmarks[i].kind), e.benchmarks[i].label,
               r.logs[i]["times"].size() - 1, lf.paths[i].string());
  return 0;
}

}  // namespace gpuvp
