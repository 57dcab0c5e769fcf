#pragma once
// Power, temperature and electromigration of every SM, interval by interval (docs/power.md): each SM
// fills its ActivityLog at its own local cycles; once simulated time has passed an interval's end,
// close() turns it into power (PowerModel), steps the temperatures (ThermalModel) and adds each SM's
// wear (EmModel) to its consumption rate and to its aging sensor, registered state `gpu.smN.em_sensor`
// (nominal lifetime consumed, in picoseconds).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/common/registry.h"
#include "models/power/activity.h"
#include "models/power/em_model.h"
#include "models/power/power_model.h"
#include "models/power/thermal_model.h"

namespace gpuvp::power {

struct PowerConfig {
  bool enabled = true;
  uint64_t interval = 500;  // cycles
  unsigned clusters = 1;
  double period_s = 1e-9;   // one GPU cycle
  EnergyTable energy;
  ThermalParams thermal;
  EmParams em;
  // power.*, thermal.*, em.* (clusters from sm.sps / sm.warp_size when power.clusters is 0).
  static PowerConfig from(const Params& power, const Params& thermal, const Params& em, unsigned sps,
                          unsigned warp_size, double period_s);
};

// One row of the power trace: SM `sm` over interval `interval`.
struct TraceRow {
  uint64_t interval = 0;
  uint64_t count = 1;  // intervals the row covers (an idle stretch of the whole GPU is one row)
  unsigned sm = 0;
  double dynamic_w = 0, static_w = 0, temp_k = 0, em_rate = 0;
  double idle_fraction = 0;  // powered but not issuing, over the interval
};

struct SmEnergy {
  double dynamic_j = 0, static_j = 0, peak_temp_k = 0;
  double temp_ks = 0;  // temperature integrated over the intervals closed (K s): over em.elapsed_s, the mean
  uint64_t powered_cycles = 0, idle_cycles = 0, intervals = 0;
  std::array<uint64_t, kMaxClusters> cluster_warp_insts{}, cluster_thread_insts{};
  EmAccumulator em;
};

class PowerAccounting {
 public:
  // `now_cycle` says how far simulated time has come (GPU cycles): intervals before it are complete.
  PowerAccounting(const PowerConfig& cfg, unsigned sms, std::function<uint64_t()> now_cycle);

  const PowerConfig& config() const { return cfg_; }
  ActivityLog& log(unsigned sm) { return *logs_[sm]; }
  // SM `sm`'s distribution unit gates `n` of its lane clusters for the whole run (set with the unit, before
  // it runs): none of their share of its static power (EnergyTable::cluster_static).
  void set_gated_clusters(unsigned sm, unsigned n);
  unsigned gated_clusters(unsigned sm) const { return gated_[sm]; }
  // Registers each SM's aging sensor under `<prefix><k>.em_sensor` (prefix "gpu.sm").
  void register_sensors(Registry& reg, const std::string& prefix);
  // Closes every interval simulated time has passed.
  void close();
  // At the end of a run: closes every interval any SM has activity in.
  void finish();

  const std::vector<SmEnergy>& sms() const { return sm_; }
  // Events of SM k over the intervals closed (its log sums them as it hands them over).
  const EventCounts& events(unsigned k) const { return logs_[k]->drained(); }
  // The power trace, one row per SM per interval or steady stretch, is kept only while keep_trace is
  // on (the default): a run whose outputs do not ask for it turns it off so that the rows of a long run
  // take no memory. The statistics do not read it.
  void keep_trace(bool on) { keep_trace_ = on; }
  bool trace_kept() const { return keep_trace_; }
  const std::vector<TraceRow>& trace() const { return trace_; }
  const std::vector<double>& temps() const { return thermal_->temps(); }  // K, now
  double nominal_lifetime_s() const { return cfg_.em.ttf_years * kSecondsPerYear; }
  uint64_t sensor(unsigned sm) const { return uint64_t(sm_[sm].em.consumed_s * 1e12); }
  // Dynamic energy of each kernel launch (J), by launch id, summed over the SMs.
  std::vector<std::pair<uint64_t, double>> launch_dynamic_j() const;
  double gpu_cr() const;  // max_k cr_k
  const PowerModel& model() const { return *power_; }

  static constexpr double kSecondsPerYear = 365.25 * 24 * 3600;

 private:
  void close_to(uint64_t end_interval);
  void close_interval(uint64_t index);
  void add_interval(unsigned sm, uint64_t index, const IntervalActivity& a, double dt_s);
  // [from, to): every SM counts nothing and is powered throughout or gated throughout (constant power).
  void close_steady(uint64_t from, uint64_t to);
  uint64_t steady_end() const;  // one past the last interval of the steady stretch from next_ (or next_)
  // Wear (s of TTF_N) per SM (valid until the next call); leaves t_ss_ and excess_ as steady_excess gave
  // them for the whole stretch from its start.
  const std::vector<double>& hold_wear(double dt_s);
  bool linear_wear(double dt_s, std::vector<double>& worn);  // hold_wear near the steady state
  // Per SM, at the current powers and temperatures (a transient's: they never come back, none is remembered).
  void em_rates(std::vector<double>& r) const;
  void note_peaks();

  PowerConfig cfg_;
  std::function<uint64_t()> now_;
  std::vector<std::unique_ptr<ActivityLog>> logs_;
  std::unique_ptr<PowerModel> power_;
  std::unique_ptr<ThermalModel> thermal_;
  std::unique_ptr<EmModel> em_;
  std::vector<SmEnergy> sm_;
  std::vector<TraceRow> trace_;
  std::vector<double> p_w_;
  std::vector<unsigned> gated_;  // lane clusters the distribution unit gates, per SM
  std::vector<char> powered_;  // close_steady's scratch
  double steady_dt_ = -1;      // close_steady: the powers of a stretch of steady_dt_ seconds, powered or gated
  SmPower steady_on_, steady_off_;
  std::vector<double> r0_, mid_, r1_, t_ss_, excess_, worn_;  // hold_wear's scratch (it runs for every steady stretch)
  // Per SM, its last wear rate at the end of an interval and at its steady state (linear_wear): a wait's
  // wake-ups ask for the same steady state each time, and the temperatures in between never come back.
  std::vector<EmModel::RateMemo> interval_rate_, steady_rate_;
  uint64_t next_ = 0;  // first interval not closed
  bool closing_ = false;
  bool keep_trace_ = true;
  static inline const IntervalActivity kNoActivity{};  // an interval with nothing counted and no block
};

}  // namespace gpuvp::power
