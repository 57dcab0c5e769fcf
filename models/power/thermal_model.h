#pragma once
// Temperature of each SM (docs/power.md, "Temperature"). One interface; compact_thermal.cc is the
// compact RC model C_k dT_k/dt = P_k - (T_k - T_amb)/R_v - sum_j (T_k - T_j)/R_lat over floorplan
// neighbours j, stepped by implicit Euler (stable for any interval), or exactly over a stretch of
// constant power.
#include <memory>
#include <string>
#include <vector>

#include "models/common/params.h"

namespace gpuvp::power {

struct ThermalParams {
  double ambient_k = 318.15;
  double r_vertical = 4.0;   // K/W, SM to ambient
  double r_lateral = 10.0;   // K/W, between neighbouring SMs (0: no lateral coupling)
  double capacitance = 0.002;  // J/K per SM
  unsigned columns = 0;      // floorplan: SMs row by row on a grid of this many columns (0: ceil(sqrt(n)))
  // Every SM's temperature at the start (K, one per SM; empty: all at ambient). A wear study starts each
  // run in the periodic state of the run repeated (periodic_start; docs/power.md, "Wear study").
  std::vector<double> initial_k;
  static ThermalParams from(const Params& p);  // thermal.*
  // std::invalid_argument naming thermal.initial unless it gives every one of `sms` SMs a temperature.
  void check_sms(unsigned sms) const;
};

// The thermal.initial value that starts SM k at temps_k[k] (ThermalParams::from reads it back exactly).
std::string initial_value(const std::vector<double>& temps_k);

class ThermalModel {
 public:
  virtual ~ThermalModel() = default;
  // Advances every SM by `dt_s` seconds under the powers `p_w` (one per SM).
  virtual void step(const std::vector<double>& p_w, double dt_s) = 0;
  // The same, exactly, under powers held constant for `dt_s` (a long stretch in one step: the network is
  // linear, so T(t) = T_ss + exp(-G t / C) (T(0) - T_ss)).
  virtual void hold(const std::vector<double>& p_w, double dt_s) = 0;
  virtual const std::vector<double>& temps() const = 0;  // K, one per SM
  // Under the powers `p_w` held for `dt_s` from now: each SM's steady-state temperature (K) and the
  // integral over the stretch of its temperature above it (K s), in closed form. Returns how far the
  // temperatures are from that steady state now (K, Euclidean norm): under constant powers the distance
  // only shrinks (G is symmetric positive definite), so no SM ever gets farther from its own.
  virtual double steady_excess(const std::vector<double>& p_w, double dt_s, std::vector<double>& t_ss,
                               std::vector<double>& excess_ks) = 0;
  // hold() under the powers of the last steady_excess(), nothing having changed since: the same result,
  // without working out the powers' modes again (a wait's steady stretch asks for both, once each).
  virtual void hold_steady(double dt_s) = 0;
  // What each SM's temperature must be raised by now (K) for its mean over [from_s, to_s] from now to
  // rise by `shift_k` (K per SM), the powers unchanged: the network is linear, so the raise decays freely,
  // exp(-G t / C) x, and its mean over the stretch is inverted mode by mode.
  virtual std::vector<double> raise_for_mean(const std::vector<double>& shift_k, double from_s, double to_s) = 0;
};

std::unique_ptr<ThermalModel> make_thermal_model(const ThermalParams& t, unsigned sms);
// Each SM's steady-state temperature (K) under the powers `p_w` held (one per SM), through the whole
// network (lateral coupling included).
std::vector<double> steady_temps(const ThermalParams& t, const std::vector<double>& p_w);
// A window of power repeated without end settles to its periodic state, which is the trajectory whose
// mean temperature over the window is the steady state of the window's mean power (over one period
// C dT/dt integrates to 0 = W (P_mean - G (T_mean - T_amb))). Given a pilot run from ambient at time 0
// and each SM's mean power `p_w` and temperature `mean_k` over its window [from_s, to_s], the
// temperatures at time 0 (K per SM) that put the same run into that state over the window.
std::vector<double> periodic_start(const ThermalParams& t, const std::vector<double>& p_w,
                                   const std::vector<double>& mean_k, double from_s, double to_s);
// The floorplan neighbours of SM k (4-neighbourhood on the grid of `columns` columns).
std::vector<unsigned> floorplan_neighbours(unsigned k, unsigned sms, unsigned columns);

}  // namespace gpuvp::power
