#include "platform/run_outputs.h"

#include <filesystem>
#include <map>
#include <stdexcept>
#include <utility>

#include "platform/config/json_text.h"
#include "platform/output_file.h"
#include "platform/power_outputs.h"
#include "platform/stats_schema.h"

namespace gpuvp {

void RunOutputs::check() const {
  // "dir/" as --vcd would write dir/.vcd, a hidden file nobody looks for.
  if (!vcd.empty() && (vcd.back() == '/' || std::filesystem::is_directory(vcd)))
    throw ConfigError(fmt::format("--vcd {}: a path without \".vcd\" is expected (PREFIX.vcd is written), not a folder",
                                  vcd));
  const std::pair<std::string, const char*> files[] = {
      {stats, "--stats"}, {timeline, "--timeline"}, {vcd.empty() ? vcd : vcd + ".vcd", "--vcd"},
      {power_trace, "--power-trace"}};
  std::map<std::filesystem::path, const char*> seen;
  for (const auto& [path, what] : files) {
    if (path.empty()) continue;
    check_output(path, what);
    // Two outputs in one file: the one written last would silently replace the other.
    const auto [it, fresh] = seen.emplace(std::filesystem::weakly_canonical(std::filesystem::absolute(path)), what);
    if (!fresh) throw ConfigError(fmt::format("{} and {} name the same file {}", it->second, what, path));
  }
}

void RunOutputs::apply(PlatformHooks& hooks) const {
  if (!vcd.empty()) hooks.arbiter_pins = true;
}

void RunOutputs::attach(Platform& p) const {
  if (!vcd.empty()) p.trace_vcd(vcd);
  if (!timeline.empty()) p.record_timeline();
  if (!timeline.empty() || !power_trace.empty()) p.record_power_trace();  // its counter tracks, the CSV
}

nlohmann::json stats_document(const Platform& p, const PlatformStats& st, const nlohmann::json& about) {
  nlohmann::json j = {{"schema", kStatsSchema}};
  j.update(about);
  j["preset"] = p.config().name();
  j["clock_mhz"] = p.props().clock_mhz;
  j["clock_period_ps"] = p.clock_period_ps();
  j.update(st.to_json());
  j["config"] = p.config().to_json();
  return j;
}

nlohmann::json stats_skeleton() {
  PlatformStats st;
  SmStats sm;
  sm.schedulers.resize(1);
  sm.launches.resize(1);
  sm.launches[0].launch_id = 1;
  sm.launches[0].schedulers.resize(1);
  st.sms = {sm};
  st.sm_residency_fraction = {0.0};
  st.sm_caches = {{{"l1d", {}}, {"ccache", {}}, {"icache", {}}}};
  st.l2 = {{"l2", {}}};
  st.arbiters = {{"arbiter", {0}, {0}, {0}}};
  st.launches.resize(1);
  st.launches[0].launch_id = 1;
  st.launch_dram.resize(1);
  nlohmann::json j = {{"schema", kStatsSchema}, {"command", ""},       {"workload", ""},      {"launch_config", ""},
                      {"seed", 0},              {"correct", true},     {"output_digest", ""}, {"kernel", ""},        {"launch", nullptr},
                      {"experiment", ""},       {"name", ""},          {"program", ""},       {"args", {""}},
                      {"preset", ""},           {"clock_mhz", 0.0},    {"clock_period_ps", 0}};
  j.update(st.to_json());
  j["config"] = nullptr;
  j["sms"][0]["energy"] = nullptr;
  j["launches"][0]["dynamic_energy_j"] = nullptr;
  return j;
}

void RunOutputs::write(const Platform& p, const nlohmann::json& about) const {
  if (stats.empty() && timeline.empty() && power_trace.empty()) return;  // the VCD is written as the simulation goes
  const PlatformStats st = p.stats();
  const power::PowerAccounting* pa = p.power();
  if (!power_trace.empty()) {
    if (!pa) throw std::invalid_argument("--power-trace: power accounting is off (power.enabled = false)");
    write_output(power_trace, power_trace_csv(*pa, p.clock_period_ps()));
  }
  if (!stats.empty()) write_output(stats, json_dump(stats_document(p, st, about), 2) + "\n");
  if (!timeline.empty()) {
    nlohmann::json trace = timeline_trace_events(p.timeline(), st.launches);
    if (pa) add_power_counters(trace, *pa, p.clock_period_ps());
    write_output(timeline, json_dump(trace, 1) + "\n");
  }
}

}  // namespace gpuvp
