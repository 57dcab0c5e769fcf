#pragma once
// Power of one SM over one sample interval from its activity (docs/power.md). One interface, one
// file per model: event_energy.cc (a per-event energy table, static power with power gating).
#include <memory>

#include "models/common/params.h"
#include "models/power/activity.h"

namespace gpuvp::power {

struct SmPower {
  double dynamic_w = 0, static_w = 0;
  double total() const { return dynamic_w + static_w; }
};

class PowerModel {
 public:
  virtual ~PowerModel() = default;
  // Energy (J) of a set of events at the operating voltage, static power excluded.
  virtual double dynamic_j(const EventCounts& c) const = 0;
  // SM power over an interval of `dt_s` seconds of which `powered_s` had the SM powered (not gated),
  // `gated_clusters` of its `clusters` lane clusters power-gated by the distribution unit throughout.
  virtual SmPower power(const IntervalActivity& a, double dt_s, double powered_s, unsigned gated_clusters,
                        unsigned clusters) const = 0;
  // Every lane cluster working.
  SmPower power(const IntervalActivity& a, double dt_s, double powered_s) const {
    return power(a, dt_s, powered_s, 0, 1);
  }
};

// Energies per event (pJ at the reference voltage), static power and voltages: the power.* parameters.
struct EnergyTable {
  double pj[size_t(Event::Count)] = {};
  double static_w = 0;        // per powered SM at v0
  double v0 = 1, vdd = 1;     // voltage the energies are given at; operating voltage
  double chip_w = 0;          // chip-level constant power (belongs to no SM)
  double l2_read_pj = 0, l2_write_pj = 0, dram_pj_per_byte = 0;
  bool gating = true;         // an SM without a resident block is power-gated (no static power)
  // Share of a powered SM's static power drawn by its lane clusters, evenly split; a cluster gated by the
  // distribution unit draws none of its part (power.cluster_static_share).
  double cluster_share = 0.5;
  double dyn_scale() const { return (vdd / v0) * (vdd / v0); }
  double static_scale() const { return vdd / v0; }
  // The part of the SM's static power left with `gated` of its `clusters` lane clusters gated: exactly 1
  // with none gated.
  double cluster_static(unsigned gated, unsigned clusters) const {
    return gated ? 1 - cluster_share * double(gated) / double(clusters) : 1.0;
  }
  static EnergyTable from(const Params& p);  // power.*
};

std::unique_ptr<PowerModel> make_power_model(const EnergyTable& t);

}  // namespace gpuvp::power
