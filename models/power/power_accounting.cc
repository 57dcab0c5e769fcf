#include "models/power/power_accounting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace gpuvp::power {

PowerConfig PowerConfig::from(const Params& power, const Params& thermal, const Params& em, unsigned sps,
                              unsigned warp_size, double period_s) {
  PowerConfig c;
  c.energy = EnergyTable::from(power);
  c.enabled = power.b("enabled");
  c.interval = uint64_t(power.i("interval"));
  // An SM has sps / warp_size clusters of warp-size lanes (at least one): more would count activity on
  // lanes the SM does not have.
  const unsigned clusters = unsigned(power.i("clusters")), lanes = std::max(sps / std::max(warp_size, 1u), 1u);
  if (clusters > lanes)
    throw std::invalid_argument(fmt::format("power.clusters = {} exceeds the SM's {} lane clusters (sm.sps / "
                                            "sm.warp_size = {} / {})",
                                            clusters, lanes, sps, warp_size));
  c.clusters = clusters ? clusters : std::min(lanes, kMaxClusters);
  c.period_s = period_s;
  c.thermal = ThermalParams::from(thermal);
  c.em = EmParams::from(em);
  c.em.vdd = c.energy.vdd;
  return c;
}

PowerAccounting::PowerAccounting(const PowerConfig& cfg, unsigned sms, std::function<uint64_t()> now_cycle)
    : cfg_(cfg),
      now_(std::move(now_cycle)),
      power_(make_power_model(cfg.energy)),
      thermal_(make_thermal_model(cfg.thermal, sms)),
      em_(make_em_model(cfg.em)),
      sm_(sms),
      p_w_(sms),
      gated_(sms, 0),
      interval_rate_(sms),
      steady_rate_(sms) {
  // A log holding this many intervals asks for the ones simulated time has passed to be closed.
  constexpr size_t kLogLimit = 64;
  for (unsigned k = 0; k < sms; ++k) {
    logs_.push_back(std::make_unique<ActivityLog>(cfg.interval, cfg.clusters));
    logs_.back()->on_overflow(kLogLimit, [this] { close(); });
  }
  for (unsigned k = 0; k < sms; ++k) sm_[k].peak_temp_k = thermal_->temps()[k];
}

void PowerAccounting::register_sensors(Registry& reg, const std::string& prefix) {
  for (unsigned k = 0; k < sm_.size(); ++k) {
    Target t;
    t.name = prefix + std::to_string(k) + ".em_sensor";
    t.kind = TargetKind::Register;
    t.width = 64;
    t.count = 1;
    // Read and written as of now: the intervals simulated time has passed are closed first.
    t.get = [this, k](uint64_t) {
      close();
      return sensor(k);
    };
    t.set = [this, k](uint64_t, uint64_t v) {
      close();
      sm_[k].em.consumed_s = double(v) * 1e-12;
    };
    // Out of the state hash (fault injection's early stop): the sensor observes the run, no model of
    // the GPU reads it, and two runs whose GPU state is equal must compare equal even if their timing
    // (and so their wear) differed on the way.
    t.digest = [] { return uint64_t{0}; };
    reg.add(std::move(t));
    // Access recording: the sensor accumulates wear as every interval closes (read and written at every
    // instant of the run) and the power outputs read it at the end.
    read_always(reg.at_mut(prefix + std::to_string(k) + ".em_sensor"));
  }
}

void PowerAccounting::set_gated_clusters(unsigned sm, unsigned n) {
  if (n >= cfg_.clusters)
    throw std::invalid_argument(fmt::format("SM {}: {} of its {} lane clusters gated: at least one must work", sm, n,
                                            cfg_.clusters));
  gated_[sm] = n;
}

void PowerAccounting::close() { close_to(now_() / cfg_.interval); }

void PowerAccounting::finish() {
  uint64_t end = (now_() + cfg_.interval - 1) / cfg_.interval;  // the interval in progress too
  for (auto& l : logs_) end = std::max(end, l->end_open());
  close_to(end);
}

void PowerAccounting::close_to(uint64_t end_interval) {
  // Draining a log can grow another past its limit (powered time filed interval by interval), whose
  // overflow asks to close again: the outer call is already doing it.
  if (closing_) return;
  closing_ = true;
  while (next_ < end_interval) {
    const uint64_t steady = std::min(steady_end(), end_interval);
    if (steady > next_ + 1) {  // hours of constant power (idle, or blocks resident and asleep): one step
      close_steady(next_, steady);
      next_ = steady;
    } else {
      close_interval(next_++);
    }
  }
  closing_ = false;
}

void PowerAccounting::close_interval(uint64_t index) {
  const double dt = double(cfg_.interval) * cfg_.period_s;
  for (unsigned k = 0; k < sm_.size(); ++k) {
    // A log already past `index` skipped it: nothing counted and no block resident (gated).
    bool drained = false;
    logs_[k]->drain(index + 1, [&](uint64_t, const IntervalActivity& a) {
      add_interval(k, index, a, dt);
      drained = true;
    });
    if (!drained) add_interval(k, index, kNoActivity, dt);
  }
  thermal_->step(p_w_, dt);
  const size_t first_row = trace_.size() - (keep_trace_ ? sm_.size() : 0);
  const std::vector<double>& temps = thermal_->temps();
  for (unsigned k = 0; k < sm_.size(); ++k) {
    const double t = temps[k];
    const double rate = em_->rate(cfg_.em.current_density(p_w_[k]), t, interval_rate_[k]);
    sm_[k].em.add(dt, rate);
    sm_[k].temp_ks += t * dt;  // (the temperature the interval's wear is reckoned at)
    sm_[k].peak_temp_k = std::max(sm_[k].peak_temp_k, t);
    if (!keep_trace_) continue;
    trace_[first_row + k].temp_k = t;
    trace_[first_row + k].em_rate = rate;
  }
}

// SM k's activity `a` over interval `index` (dt seconds): its power (p_w_), energies and counts, and its
// trace row (temperature and wear rate filled in once the interval's thermal step is done).
void PowerAccounting::add_interval(unsigned k, uint64_t index, const IntervalActivity& a, double dt) {
  const SmPower p = power_->power(a, dt, double(a.powered_cycles) * cfg_.period_s, gated_[k], cfg_.clusters);
  p_w_[k] = p.total();
  SmEnergy& s = sm_[k];
  s.dynamic_j += p.dynamic_w * dt;
  s.static_j += p.static_w * dt;
  s.powered_cycles += a.powered_cycles;
  s.idle_cycles += a.idle_cycles();
  for (unsigned c = 0; c < cfg_.clusters; ++c) {
    s.cluster_warp_insts[c] += a.cluster_warp_insts[c];
    s.cluster_thread_insts[c] += a.cluster_thread_insts[c];
  }
  ++s.intervals;
  if (keep_trace_)
    trace_.push_back({index, 1, k, p.dynamic_w, p.static_w, 0, 0, double(a.idle_cycles()) / double(cfg_.interval)});
}

uint64_t PowerAccounting::steady_end() const {
  uint64_t e = ~uint64_t{0};
  // A log ahead of next_ jumped over intervals with nothing counted and no block resident: they are
  // steady up to its first activity.
  for (const auto& l : logs_) e = std::min(e, l->first_open() > next_ ? l->first_active() : l->steady_end());
  return e;
}

// No SM counts anything, and each is powered throughout or gated throughout: every SM's power is
// constant (static or nothing), so the stretch is one exact thermal step, its wear integrated over the
// thermal transient (hold_wear), and one trace row per SM.
void PowerAccounting::close_steady(uint64_t from, uint64_t to) {
  const double len_s = double(cfg_.interval) * cfg_.period_s;
  const double dt = double(to - from) * len_s;
  // The two powers an SM can have over the stretch: powered throughout (static) or gated (none); the
  // waits of a periodic wake-up are mostly of one length.
  if (dt != steady_dt_) {
    steady_on_ = power_->power(kNoActivity, dt, dt);
    steady_off_ = power_->power(kNoActivity, dt, 0.0);
    steady_dt_ = dt;
  }
  const SmPower &on = steady_on_, &off = steady_off_;
  std::vector<char>& powered = powered_;  // kept: a long wait is a steady stretch per wake-up
  powered.resize(sm_.size());
  for (unsigned k = 0; k < sm_.size(); ++k) {
    powered[k] = logs_[k]->first_open() <= from && logs_[k]->powered_at(from * cfg_.interval);
    logs_[k]->skip_steady(to);
    // (An SM with gated clusters has its own static power: worked out here, only in such runs.)
    const SmPower p = !powered[k] ? off : gated_[k] ? power_->power(kNoActivity, dt, dt, gated_[k], cfg_.clusters) : on;
    p_w_[k] = p.total();
    SmEnergy& s = sm_[k];
    s.static_j += p.static_w * dt;
    s.intervals += to - from;
    if (powered[k]) {
      s.powered_cycles += (to - from) * cfg_.interval;
      s.idle_cycles += (to - from) * cfg_.interval;
    }
  }
  const std::vector<double>& worn = hold_wear(dt);
  for (unsigned k = 0; k < sm_.size(); ++k) {
    sm_[k].em.add(dt, worn[k] / dt);
    sm_[k].temp_ks += t_ss_[k] * dt + excess_[k];  // exact: hold_wear worked out the stretch's steady state first
    if (keep_trace_)
      trace_.push_back({from, to - from, k, 0.0, p_w_[k], thermal_->temps()[k],
                        worn[k] / dt, powered[k] ? 1.0 : 0.0});
  }
}

void PowerAccounting::em_rates(std::vector<double>& r) const {
  r.resize(sm_.size());
  const std::vector<double>& t = thermal_->temps();  // (one virtual call, not one per SM)
  for (unsigned k = 0; k < sm_.size(); ++k) r[k] = em_->fresh_rate(cfg_.em.current_density(p_w_[k]), t[k]);
}

// The temperatures under the constant powers p_w_ follow exact exponentials; the wear rate, a function
// of temperature, is integrated by Simpson's rule over pieces of an eighth of the fastest thermal mode's
// time constant (C / (1/R_v + 8/R_lat) or less, Gershgorin's bound on G's largest eigenvalue: Simpson's
// error on such an exponential is below 1e-7 wherever the piece starts) until the slowest mode (C R_v)
// has settled (30 time constants, e^-30), then over the rest as one piece (constant temperature). A
// stretch that starts near its steady state is integrated in closed form instead (linear_wear).
const std::vector<double>& PowerAccounting::hold_wear(double dt) {
  std::vector<double>& worn = worn_;  // kept: a long wait is a steady stretch per wake-up
  worn.assign(sm_.size(), 0.0);
  if (linear_wear(dt, worn)) return worn;
  const ThermalParams& th = cfg_.thermal;
  const double tau = th.capacitance * th.r_vertical;
  const double g_max = 1 / th.r_vertical + (th.r_lateral > 0 ? 8 / th.r_lateral : 0.0);
  // (At most 2000 pieces before settling: strong lateral coupling only shortens the transient.)
  const double piece = std::max(th.capacitance / g_max / 8, 30 * tau / 2000);
  em_rates(r0_);
  for (double done = 0, h = 0; done < dt; done += h) {
    h = done >= 30 * tau || done + piece >= dt ? dt - done : piece;
    thermal_->hold(p_w_, h / 2);
    em_rates(mid_);
    note_peaks();
    thermal_->hold(p_w_, h / 2);
    em_rates(r1_);
    note_peaks();
    for (unsigned k = 0; k < sm_.size(); ++k) worn[k] += h / 6 * (r0_[k] + 4 * mid_[k] + r1_[k]);
    r0_.swap(r1_);
    if (h == dt - done) break;  // the last piece (done + h may round short of dt)
  }
  return worn;
}

// Within d kelvin of the steady state T_ss (Euclidean distance: under constant power it only shrinks,
// so no SM is ever farther than d from its T_ss) the wear rate is linear in the temperature,
// r(T) = r(T_ss) + s (T - T_ss), s its slope over [T_ss, T_ss + d], and the stretch's wear is
// r(T_ss) dt + s times the closed-form integral of T - T_ss (ThermalModel::steady_excess): one step
// whatever the stretch's length, as after the short bursts of a long wait (a timer spin's wake-ups).
// Used when s d / r <= 4e-4: the rate's curvature (about (s / r)^2 r for Arrhenius) then errs by less
// than (s d / r)^2 / 2 = 8e-8 of the wear, below Simpson's error. False (nothing done) otherwise.
bool PowerAccounting::linear_wear(double dt, std::vector<double>& worn) {
  constexpr double kLinear = 4e-4;
  const double d = thermal_->steady_excess(p_w_, dt, t_ss_, excess_);
  for (unsigned k = 0; k < sm_.size(); ++k) {
    const double j = cfg_.em.current_density(p_w_[k]);
    const double r = em_->rate(j, t_ss_[k], steady_rate_[k]);
    const double s = d > 0 ? (em_->rate(j, t_ss_[k] + d) - r) / d : 0.0;
    if (std::fabs(s) * d > kLinear * r) return false;  // (r 0 with s not: a rate that never settles)
    worn[k] = r * dt + s * excess_[k];
  }
  // The temperatures move monotonically toward T_ss in each mode: the peaks are at the stretch's ends
  // (its start is noted already: every change of the temperatures is).
  thermal_->hold_steady(dt);
  note_peaks();
  return true;
}

void PowerAccounting::note_peaks() {
  const std::vector<double>& t = thermal_->temps();
  for (unsigned k = 0; k < sm_.size(); ++k) sm_[k].peak_temp_k = std::max(sm_[k].peak_temp_k, t[k]);
}

std::vector<std::pair<uint64_t, double>> PowerAccounting::launch_dynamic_j() const {
  std::map<uint64_t, double> by;
  for (auto& l : logs_)
    for (auto& [id, c] : l->by_launch())
      if (id != 0) by[id] += power_->dynamic_j(c);
  return {by.begin(), by.end()};
}

double PowerAccounting::gpu_cr() const {
  double m = 0;
  for (const SmEnergy& s : sm_) m = std::max(m, s.em.cr());
  return m;
}

}  // namespace gpuvp::power
