#pragma once
// The power, temperature and wear outputs of a run (docs/power.md, docs/statistics.md): the statistics'
// energy sections, the power trace CSV and the Perfetto counter tracks.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "models/power/power_accounting.h"

namespace gpuvp {

// What the chip-level energy is computed from: the run's length, L2 accesses, DRAM bytes.
struct PowerChipActivity {
  double seconds = 0;
  uint64_t l2_reads = 0, l2_writes = 0, dram_bytes = 0;
};

// {"total": ..., "em": ..., "sms": [...], "launches": {"<id>": dynamic J}} (PlatformStats::power).
nlohmann::json power_stats_json(const power::PowerAccounting& pa, const PowerChipActivity& chip);
// One line per SM per interval: interval,start_ps,end_ps,sm,dynamic_w,static_w,power_w,temp_k,em_rate,idle_fraction.
std::string power_trace_csv(const power::PowerAccounting& pa, uint64_t period_ps);
// Appends counter tracks (power and temperature of each SM) to a Chrome trace-event document.
void add_power_counters(nlohmann::json& trace, const power::PowerAccounting& pa, uint64_t period_ps);

}  // namespace gpuvp
