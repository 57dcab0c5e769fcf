#include "platform/run_outputs.h"

#include "platform/config/json_text.h"
#include "platform/output_file.h"

namespace gpuvp {

void RunOutputs::check() const {
  if (!stats.empty()) check_output(stats, "--stats");
  if (!timeline.empty()) check_output(timeline, "--timeline");
  if (!vcd.empty()) check_output(vcd + ".vcd", "--vcd");
}

void RunOutputs::apply(PlatformHooks& hooks) const {
  if (!vcd.empty()) hooks.arbiter_pins = true;
}

void RunOutputs::attach(Platform& p) const {
  if (!vcd.empty()) p.trace_vcd(vcd);
  if (!timeline.empty()) p.record_timeline();
}

nlohmann::json stats_document(const Platform& p, const PlatformStats& st, const nlohmann::json& about) {
  nlohmann::json j = {{"schema", kStatsSchema}};
  j.update(about);
  j["preset"] = p.config().name();
  j["clock_mhz"] = p.props().clock_mhz;
  j.update(st.to_json());
  j["config"] = p.config().to_json();
  return j;
}

void RunOutputs::write(const Platform& p, const nlohmann::json& about) const {
  if (stats.empty() && timeline.empty()) return;  // the VCD is written as the simulation goes
  const PlatformStats st = p.stats();
  if (!stats.empty()) write_output(stats, json_dump(stats_document(p, st, about), 2) + "\n");
  if (!timeline.empty()) write_output(timeline, json_dump(timeline_trace_events(p.timeline(), st.launches), 1) + "\n");
}

}  // namespace gpuvp
