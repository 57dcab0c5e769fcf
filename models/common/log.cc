#include "models/common/log.h"

#include <cstdio>
#include <map>
#include <stdexcept>

namespace gpuvp::log {

namespace {
struct State {
  Level def = Level::Warn;
  std::map<std::string, Level> prefixes;
};
State& state() {
  static State s;
  return s;
}
const char* name_of(Level l) {
  switch (l) {
    case Level::Error: return "error";
    case Level::Warn: return "warn";
    case Level::Info: return "info";
    case Level::Debug: return "debug";
    case Level::Trace: return "trace";
  }
  return "?";
}
}  // namespace

Level level_for(const std::string& module) {
  // Longest matching prefix wins, so gpu.sm=debug with gpu.sm3=trace works as expected.
  const State& s = state();
  Level l = s.def;
  size_t best = 0;
  for (auto& [p, lv] : s.prefixes)
    if (p.size() >= best && module.compare(0, p.size(), p) == 0) {
      best = p.size();
      l = lv;
    }
  return l;
}

void set_level(const std::string& prefix, Level level) { state().prefixes[prefix] = level; }
void set_default_level(Level level) { state().def = level; }

Level parse_level(const std::string& n) {
  if (n == "error") return Level::Error;
  if (n == "warn") return Level::Warn;
  if (n == "info") return Level::Info;
  if (n == "debug") return Level::Debug;
  if (n == "trace") return Level::Trace;
  throw std::invalid_argument("log level '" + n + "' is not one of error, warn, info, debug, trace");
}

void emit(Level level, const std::string& module, const std::string& message) {
  std::string t = sc_core::sc_time_stamp().to_string();
  std::fprintf(stderr, "[%s %s] %s: %s\n", name_of(level), t.c_str(), module.c_str(), message.c_str());
}

}  // namespace gpuvp::log
