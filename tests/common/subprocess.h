#pragma once
// Runs the gpuvp binary (or any command) and captures its exit status, stdout and stderr. Tests
// that need several platforms use it: SystemC elaborates once per process.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuvp::test {

struct RunResult {
  int status = -1;
  std::string out, err;
};

inline std::string temp_path(const std::string& stem) {
  static int n = 0;
  return fmt::format("/tmp/gpuvp_test_{}_{}_{}", getpid(), n++, stem);
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline RunResult run_cmd(const std::string& cmd) {
  std::string o = temp_path("out"), e = temp_path("err");
  int rc = std::system(fmt::format("{} >{} 2>{}", cmd, o, e).c_str());
  RunResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  std::remove(o.c_str());
  std::remove(e.c_str());
  return r;
}

inline RunResult run_gpuvp(const std::string& args) { return run_cmd(fmt::format("{} {}", GPUVP_BINARY, args)); }

// Runs a workload and returns the --stats JSON (status in "exit_status", stderr in "stderr").
inline nlohmann::json run_stats(const std::string& args) {
  std::string s = temp_path("stats.json");
  RunResult r = run_gpuvp(fmt::format("run {} --stats {}", args, s));
  nlohmann::json j = nlohmann::json::object();
  std::string text = slurp(s);
  if (!text.empty()) j = nlohmann::json::parse(text);
  std::remove(s.c_str());
  j["exit_status"] = r.status;
  j["stderr"] = r.err;
  j["stdout"] = r.out;
  return j;
}

}  // namespace gpuvp::test
