#include "models/common/log.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

namespace gpuvp::log {

namespace {
struct State {
  Level def = Level::Warn;
  std::map<std::string, Level> prefixes;
  bool handler_installed = false;
  Level max = Level::Warn;  // max of def and every prefix's level
  std::set<std::string> error_types;  // message types whose SC_ERROR reports must not throw
};
State& state() {
  static State s;
  return s;
}

const char* severity_name(sc_core::sc_severity s) {
  switch (s) {
    case sc_core::SC_INFO: return "info";
    case sc_core::SC_WARNING: return "warn";
    case sc_core::SC_ERROR: return "error";
    case sc_core::SC_FATAL: return "fatal";
    default: return "?";
  }
}

// Every report, SystemC's own included, is displayed as "[level time] type: message". Everything
// else the actions ask for (log file, stop, abort, throw) is left to SystemC's default handler.
void handler(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (actions & sc_core::SC_DISPLAY) {
    std::string t = sc_core::sc_time_stamp().to_string();
    std::fprintf(stderr, "[%s %s] %s: %s\n", severity_name(r.get_severity()), t.c_str(), r.get_msg_type(),
                 r.get_msg());
  }
  sc_core::sc_report_handler::default_handler(r, actions & ~sc_core::SC_DISPLAY);
}
}  // namespace

Level level_for(const std::string& module) {
  // The longest matching path wins, so gpu=debug with gpu.sm3=trace works as expected. A path
  // matches itself and what is below it: gpu.sm1 matches gpu.sm1.core, not gpu.sm10.
  const State& s = state();
  Level l = s.def;
  size_t best = 0;
  for (auto& [p, lv] : s.prefixes)
    if (p.size() >= best && module.compare(0, p.size(), p) == 0 &&
        (module.size() == p.size() || module[p.size()] == '.')) {
      best = p.size();
      l = lv;
    }
  return l;
}

Level max_level() { return state().max; }

namespace {
void update_max() {
  State& s = state();
  s.max = s.def;
  for (auto& [p, lv] : s.prefixes) s.max = std::max(s.max, lv);
}
}  // namespace

void set_level(const std::string& prefix, Level level) {
  state().prefixes[prefix] = level;
  update_max();
}
void set_default_level(Level level) {
  state().def = level;
  update_max();
}

Level parse_level(const std::string& n) {
  if (n == "error") return Level::Error;
  if (n == "warn") return Level::Warn;
  if (n == "info") return Level::Info;
  if (n == "debug") return Level::Debug;
  if (n == "trace") return Level::Trace;
  throw std::invalid_argument("log level '" + n + "' is not one of error, warn, info, debug, trace");
}

void install_report_handler() {
  State& s = state();
  if (s.handler_installed) return;
  s.handler_installed = true;
  sc_core::sc_report_handler::set_handler(handler);
}

void emit(Level level, const std::string& module, const std::string& message) {
  // Our lines are sc_reports with the module path as message type, so sc_report_handler settings
  // (actions per type or severity, a log file) apply to them. Level filtering happened before the
  // message was formatted; every info-severity line goes out at the default verbosity.
  install_report_handler();
  sc_core::sc_severity sev = sc_core::SC_INFO;
  if (level == Level::Error) {
    // A model's error line reports something the platform handles (a device error): it is shown,
    // logged, never thrown.
    State& s = state();
    if (s.error_types.insert(module).second)
      sc_core::sc_report_handler::set_actions(module.c_str(), sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_LOG);
    sev = sc_core::SC_ERROR;
  } else if (level == Level::Warn) {
    sev = sc_core::SC_WARNING;
  }
  sc_core::sc_report_handler::report(sev, module.c_str(), message.c_str(), sc_core::SC_MEDIUM, __FILE__, __LINE__);
}

}  // namespace gpuvp::log
