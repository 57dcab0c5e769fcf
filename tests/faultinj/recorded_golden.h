#pragma once
// An in-process golden run with access recording (the lifetimes tests): the accesses and the targets
// as the engine records them (GoldenRun::accesses, GoldenRun::targets), and SM 0's issue instants.
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "faultinj/engine.h"
#include "platform/platform.h"

namespace gpuvp::fi::test {

inline std::string file_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Recorded {
  GoldenRun g;
  std::vector<uint64_t> t;  // SM 0's issue instants
};

// One target's events in log order: "W10" a write at 10, "R20" a read, "S70-90" a read span ("S0-end":
// to the end of the run). `log`: a vector of events or an AccessLog.
template <class Log>
std::string access_events(const Registry& reg, const Log& log, const std::string& name) {
  const uint32_t serial = reg.at(name).serial;
  std::string s;
  for (const AccessEvent& e : log) {
    if (e.target != serial) continue;
    if (!s.empty()) s += ' ';
    if (e.kind == Access::ReadSpan)
      s += e.until_ps == kToTheEnd ? fmt::format("S{}-end", e.time_ps) : fmt::format("S{}-{}", e.time_ps, e.until_ps);
    else
      s += fmt::format("{}{}", e.kind == Access::Write ? 'W' : 'R', e.time_ps);
  }
  return s;
}

// The registry's targets as the engine describes them (GoldenRun::targets).
inline std::vector<TargetDesc> target_descs(const Registry& reg) {
  std::vector<TargetDesc> v;
  for (const Target* t : reg.all()) v.push_back({t->name, t->width, t->count, t->serial, t->reads_observed});
  return v;
}

inline Recorded record_golden(Platform& p, const std::function<void(rt::Runtime&)>& body) {
  Recorded r;
  p.record_issues(0);
  p.registry().record_accesses(&r.g.accesses);
  p.run(body);
  p.registry().record_accesses(nullptr);
  r.g.targets = target_descs(p.registry());
  r.t = p.issue_times(0);
  return r;
}

// A test bench elaborated on `reg`, simulated for `duration` with access recording: its accesses and
// the registry's targets.
inline GoldenRun record_bench(Registry& reg, const sc_core::sc_time& duration) {
  GoldenRun g;
  reg.record_accesses(&g.accesses);
  sc_core::sc_start(duration);
  reg.record_accesses(nullptr);
  g.targets = target_descs(reg);
  return g;
}

// One launch of `kernel` of the PTX file `path` (one block of 32 threads, no arguments).
inline Recorded record_kernel(const std::string& preset, const std::string& path, const std::string& kernel) {
  Platform p(Config::preset(preset));
  return record_golden(p, [&](rt::Runtime& rt) {
    auto m = rt.load_module(file_text(path), path);
    rt.launch(m, kernel, {1}, {32}, rt::KernelArgs{});
    rt.synchronize();
  });
}

}  // namespace gpuvp::fi::test
