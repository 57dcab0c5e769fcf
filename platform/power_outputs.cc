#include "platform/power_outputs.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp {

namespace {
nlohmann::json sm_json(const power::PowerAccounting& pa, unsigned k, double final_temp) {
  const power::SmEnergy& s = pa.sms()[k];
  const double elapsed = s.em.elapsed_s;
  nlohmann::json events = nlohmann::json::object();
  for (size_t e = 0; e < size_t(power::Event::Count); ++e) events[power::event_name(power::Event(e))] = pa.events(k).n[e];
  nlohmann::json clusters = nlohmann::json::array();
  for (unsigned c = 0; c < pa.config().clusters; ++c)
    clusters.push_back({{"warp_insts", s.cluster_warp_insts[c]}, {"thread_insts", s.cluster_thread_insts[c]}});
  return {{"dynamic_j", s.dynamic_j},
          {"static_j", s.static_j},
          {"total_j", s.dynamic_j + s.static_j},
          {"avg_power_w", elapsed > 0 ? (s.dynamic_j + s.static_j) / elapsed : 0.0},
          {"peak_temp_k", s.peak_temp_k},
          {"final_temp_k", final_temp},
          {"powered_cycles", s.powered_cycles},
          {"idle_cycles", s.idle_cycles},
          {"em_cr", s.em.cr()},
          {"em_sensor_ps", pa.sensor(k)},
          {"events", events},
          {"clusters", clusters}};
}

// An output of the trace from a run that did not keep it would be silently empty.
void require_trace(const power::PowerAccounting& pa) {
  if (!pa.trace_kept())
    throw std::logic_error("power trace: not kept for this run (Platform::record_power_trace() before run())");
}
}  // namespace

nlohmann::json power_stats_json(const power::PowerAccounting& pa, const PowerChipActivity& chip) {
  const power::EnergyTable& t = pa.config().energy;
  double dyn = 0, stat = 0;
  nlohmann::json sms = nlohmann::json::array();
  for (unsigned k = 0; k < pa.sms().size(); ++k) {
    dyn += pa.sms()[k].dynamic_j;
    stat += pa.sms()[k].static_j;
    sms.push_back(sm_json(pa, k, pa.temps()[k]));
  }
  const double l2 = (double(chip.l2_reads) * t.l2_read_pj + double(chip.l2_writes) * t.l2_write_pj) * 1e-12 * t.dyn_scale();
  const double dram = double(chip.dram_bytes) * t.dram_pj_per_byte * 1e-12;
  const double constant = t.chip_w * t.static_scale() * chip.seconds;
  const double total = dyn + stat + l2 + dram + constant;
  nlohmann::json launches = nlohmann::json::object();
  for (auto& [id, j] : pa.launch_dynamic_j()) launches[std::to_string(id)] = j;
  const double cr = pa.gpu_cr();
  nlohmann::json crs = nlohmann::json::array();
  for (const power::SmEnergy& s : pa.sms()) crs.push_back(s.em.cr());
  return {{"total",
           {{"interval_cycles", pa.config().interval},
            {"sm_dynamic_j", dyn},
            {"sm_static_j", stat},
            {"l2_j", l2},
            {"dram_j", dram},
            {"dram_bytes", chip.dram_bytes},
            {"chip_constant_j", constant},
            {"total_j", total},
            {"avg_power_w", chip.seconds > 0 ? total / chip.seconds : 0.0},
            {"vdd", t.vdd}}},
          {"em",
           {{"model", pa.config().em.model},
            {"ttf_years", pa.config().em.ttf_years},
            {"cr", crs},
            {"gpu_cr", cr},
            {"lifetime_years", cr > 0 ? nlohmann::json(pa.config().em.ttf_years / cr) : nlohmann::json()}}},
          {"sms", sms},
          {"launches", launches}};
}

std::string power_trace_csv(const power::PowerAccounting& pa, uint64_t period_ps) {
  require_trace(pa);
  std::string out = "interval,start_ps,end_ps,sm,dynamic_w,static_w,power_w,temp_k,em_rate,idle_fraction\n";
  const uint64_t len = pa.config().interval * period_ps;
  for (const power::TraceRow& r : pa.trace())
    out += fmt::format("{},{},{},{},{:.6g},{:.6g},{:.6g},{:.9g},{:.6g},{:.4g}\n", r.interval, r.interval * len,
                       (r.interval + r.count) * len, r.sm, r.dynamic_w, r.static_w, r.dynamic_w + r.static_w, r.temp_k,
                       r.em_rate, r.idle_fraction);
  return out;
}

void add_power_counters(nlohmann::json& trace, const power::PowerAccounting& pa, uint64_t period_ps) {
  require_trace(pa);
  // A process of its own (pid 1) beside the blocks' (pid 0): one counter track per SM and quantity.
  nlohmann::json& ev = trace["traceEvents"];
  ev.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "power and temperature"}}}});
  const double len_us = double(pa.config().interval * period_ps) / 1e6;
  for (const power::TraceRow& r : pa.trace()) {
    const double ts = double(r.interval) * len_us;
    ev.push_back({{"name", fmt::format("SM {} power (W)", r.sm)}, {"ph", "C"}, {"pid", 1}, {"ts", ts},
                  {"args", {{"W", r.dynamic_w + r.static_w}}}});
    ev.push_back({{"name", fmt::format("SM {} temperature (K)", r.sm)}, {"ph", "C"}, {"pid", 1}, {"ts", ts},
                  {"args", {{"K", r.temp_k}}}});
  }
}

}  // namespace gpuvp
