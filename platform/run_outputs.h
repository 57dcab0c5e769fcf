#pragma once
// The three outputs every way of running work can write (gpuvp run, exec, experiment): the statistics
// JSON (--stats, docs/statistics.md), the block timeline (--timeline, Chrome trace events for Perfetto)
// and waveforms (--vcd). One piece of code, so that the same run gives the same files whichever
// command started it.
#include <string>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace gpuvp {

// The statistics' schema version (docs/statistics.md); raised on every incompatible change.
inline constexpr const char* kStatsSchema = "gpuvp-stats/2";

struct RunOutputs {
  std::string stats, timeline, vcd;  // paths (vcd: without ".vcd"); empty: not written
  std::string power_trace;           // CSV of every SM's power and temperature per interval (docs/power.md)

  // Before the platform is built: an unwritable path is exit 2 at once, not a lost run.
  void check() const;
  // Before the platform is built: waveforms show the arbiters' pins.
  void apply(PlatformHooks& hooks) const;
  // After the platform is built, before it runs.
  void attach(Platform& p) const;
  // After the run: `about` says what ran (command, workload or kernel, ...), merged into the statistics.
  void write(const Platform& p, const nlohmann::json& about) const;
};

// The statistics document (schema kStatsSchema): `about`, the configuration, whole-run totals, per-SM,
// per-launch and per-arbiter sections.
nlohmann::json stats_document(const Platform& p, const PlatformStats& st, const nlohmann::json& about);

}  // namespace gpuvp
