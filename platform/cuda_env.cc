#include "platform/cuda_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "platform/config/config.h"

namespace gpuvp {

std::vector<std::string> split_list(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(sep, i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<std::string> split_sets(const std::string& text) {
  if (text.find_first_of(";\n") != std::string::npos) {
    std::string lines = text;
    std::replace(lines.begin(), lines.end(), ';', '\n');
    return split_list(lines, '\n');
  }
  return split_list(text, ',');
}

std::string env_text(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

namespace {
// A number of the environment in [lo, hi], or `fallback` when the variable is unset.
double env_number(const char* name, double fallback, double lo, double hi, const char* unit) {
  const std::string v = env_text(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end || !std::isfinite(x) || x < lo || x > hi)
    throw ConfigError(fmt::format("{}={}: {} from {:g} to {:g} are expected", name, v, unit, lo, hi));
  return x;
}
}  // namespace

CudaEnvNumbers CudaEnvNumbers::read() {
  CudaEnvNumbers n;
  // Below 1 ps (SystemC's resolution here) a poll would let no time pass: a polling loop would never end.
  n.poll_ns = env_number("GPUVP_POLL_NS", n.poll_ns, 0.001, 1e9, "nanoseconds");
  n.thread_grace_ms = env_number("GPUVP_THREAD_GRACE_MS", n.thread_grace_ms, 0, 1e9, "milliseconds");
  const std::string single = env_text("GPUVP_SINGLE_THREAD");
  if (single != "" && single != "0" && single != "1")
    throw ConfigError(fmt::format("GPUVP_SINGLE_THREAD={}: 1 or 0 is expected", single));
  n.single_thread = single == "1";
  return n;
}

}  // namespace gpuvp
