// The power, thermal and electromigration models against values worked by hand from their equations
// (docs/power.md).
#include <catch2/catch.hpp>

#include <cmath>

#include "models/power/em_model.h"
#include "models/power/power_model.h"
#include "models/power/thermal_model.h"

using namespace gpuvp::power;
using Catch::Matchers::WithinRel;

namespace {
EnergyTable gtx480_table() {
  EnergyTable t;
  t.pj[size_t(Event::WarpInst)] = 13.81;
  t.pj[size_t(Event::Fp32)] = 46.2;
  t.pj[size_t(Event::RegRead)] = 26.0;
  t.pj[size_t(Event::RegWrite)] = 14.3;
  t.static_w = 0.28;
  t.v0 = t.vdd = 0.96;
  return t;
}
}  // namespace

TEST_CASE("event energy: one fp32 add of 32 lanes summed by hand") {
  // add.f32 d, a, b over 32 lanes: 1 warp instruction, 32 fp32 lane operations, 64 register reads,
  // 32 register writes: 13.81 + 32 * 46.2 + 64 * 26.0 + 32 * 14.3 = 3613.81 pJ.
  IntervalActivity a;
  a.events[Event::WarpInst] = 1;
  a.events[Event::Fp32] = 32;
  a.events[Event::RegRead] = 64;
  a.events[Event::RegWrite] = 32;
  auto m = make_power_model(gtx480_table());
  CHECK_THAT(m->dynamic_j(a.events), WithinRel(3613.81e-12, 1e-12));
  // Over 1 us, powered half of it: 3.61381 mW dynamic, 0.14 W static.
  const SmPower p = m->power(a, 1e-6, 0.5e-6);
  CHECK_THAT(p.dynamic_w, WithinRel(3.61381e-3, 1e-9));
  CHECK_THAT(p.static_w, WithinRel(0.14, 1e-12));
}

TEST_CASE("event energy: voltage scaling and power gating") {
  EnergyTable t = gtx480_table();
  t.vdd = 1.2 * t.v0;  // dynamic x 1.44, static x 1.2
  IntervalActivity a;
  a.events[Event::Fp32] = 1;
  auto m = make_power_model(t);
  CHECK_THAT(m->dynamic_j(a.events), WithinRel(46.2e-12 * 1.44, 1e-12));
  CHECK_THAT(m->power(a, 1.0, 1.0).static_w, WithinRel(0.28 * 1.2, 1e-12));
  CHECK(m->power(a, 1.0, 0.0).static_w == 0.0);  // gated the whole interval
  t.gating = false;
  CHECK_THAT(make_power_model(t)->power(a, 1.0, 0.0).static_w, WithinRel(0.28 * 1.2, 1e-12));
}

TEST_CASE("event energy: a lane cluster gated by the distribution unit draws none of its static share") {
  // 0.28 W per SM, half of it the clusters' (0.035 W each of 4): one of four gated leaves
  // 0.28 * (1 - 0.5 / 4) = 0.245 W, two 0.21 W; over 1 us powered half of it, half that.
  EnergyTable t = gtx480_table();
  t.cluster_share = 0.5;
  auto m = make_power_model(t);
  IntervalActivity a;
  CHECK_THAT(m->power(a, 1e-6, 1e-6, 1, 4).static_w, WithinRel(0.245, 1e-12));
  CHECK_THAT(m->power(a, 1e-6, 1e-6, 2, 4).static_w, WithinRel(0.21, 1e-12));
  CHECK_THAT(m->power(a, 1e-6, 0.5e-6, 1, 4).static_w, WithinRel(0.1225, 1e-12));
  CHECK(m->power(a, 1e-6, 0.0, 1, 4).static_w == 0.0);  // the SM gated: nothing at all
  // None gated: the SM's whole figure, to the bit, whatever the share.
  CHECK(m->power(a, 1e-6, 0.5e-6, 0, 4).static_w == m->power(a, 1e-6, 0.5e-6).static_w);
  CHECK(m->power(a, 1e-6, 0.5e-6, 0, 4).static_w == 0.14);
  t.cluster_share = 0.2;  // 6 clusters, 2 gated: 0.28 * (1 - 0.2 * 2 / 6)
  CHECK_THAT(make_power_model(t)->power(a, 1.0, 1.0, 2, 6).static_w, WithinRel(0.28 * (1 - 0.4 / 6), 1e-12));
}

TEST_CASE("thermal: steady state is T_amb + R_v P without lateral coupling") {
  ThermalParams tp;
  tp.r_vertical = 4;
  tp.r_lateral = 0;
  tp.capacitance = 0.002;
  auto th = make_thermal_model(tp, 1);
  // One implicit step of 1 ms from ambient: dT = P / (C/dt + 1/R_v) = 10 / 2.25.
  th->step({10.0}, 1e-3);
  CHECK_THAT(th->temps()[0] - 318.15, WithinRel(10.0 / 2.25, 1e-12));
  for (int i = 0; i < 2000; ++i) th->step({10.0}, 1e-3);
  CHECK_THAT(th->temps()[0], WithinRel(318.15 + 40.0, 1e-9));
  // Stable for any interval: one huge step lands on the steady state.
  auto big = make_thermal_model(tp, 1);
  big->step({10.0}, 1e6);
  CHECK_THAT(big->temps()[0], WithinRel(358.15, 1e-6));
}

TEST_CASE("thermal: two neighbours share heat through R_lat") {
  // (x1)/4 + (x1 - x2)/10 = 10, (x2)/4 + (x2 - x1)/10 = 0  =>  x2 = x1 / 3.5, x1 = 10 / (0.35 - 0.1/3.5).
  ThermalParams tp;
  tp.r_vertical = 4;
  tp.r_lateral = 10;
  tp.columns = 2;
  auto th = make_thermal_model(tp, 2);
  th->step({10.0, 0.0}, 1e9);
  const double x1 = 10 / (0.35 - 0.1 / 3.5);
  CHECK_THAT(th->temps()[0], WithinRel(318.15 + x1, 1e-9));
  CHECK_THAT(th->temps()[1], WithinRel(318.15 + x1 / 3.5, 1e-9));
}

// The window of a wear study starts at the steady state of its power: held there, it stays there
// (implicit steps and the exact step alike), where from ambient it would rise by only
// R_v P (1 - exp(-t / (R_v C))).
TEST_CASE("thermal: started at the steady state, constant power keeps T_amb + R_v P throughout") {
  ThermalParams tp;
  tp.r_vertical = 4;
  tp.r_lateral = 0;
  tp.capacitance = 0.002;  // C R_v = 8 ms
  tp.initial_k = {318.15 + 4 * 10.0, 318.15 + 4 * 2.5};
  auto th = make_thermal_model(tp, 2);
  for (int i = 0; i < 700; ++i) {  // a 0.7 ms window of 1 us intervals
    th->step({10.0, 2.5}, 1e-6);
    REQUIRE_THAT(th->temps()[0], WithinRel(358.15, 1e-12));
    REQUIRE_THAT(th->temps()[1], WithinRel(328.15, 1e-12));
  }
  th->hold({10.0, 2.5}, 0.7e-3);
  CHECK_THAT(th->temps()[0], WithinRel(358.15, 1e-12));
  CHECK_THAT(th->temps()[1], WithinRel(328.15, 1e-12));
  const std::vector<double> ss = steady_temps(tp, {10.0, 2.5});
  CHECK_THAT(ss[0], WithinRel(358.15, 1e-12));
  CHECK_THAT(ss[1], WithinRel(328.15, 1e-12));
}

TEST_CASE("thermal: steady_temps goes through the lateral resistances") {
  ThermalParams tp;  // the two neighbours worked above
  tp.r_vertical = 4;
  tp.r_lateral = 10;
  tp.columns = 2;
  tp.initial_k = {400, 300};  // (no bearing on the steady state)
  const std::vector<double> t = steady_temps(tp, {10.0, 0.0});
  const double x1 = 10 / (0.35 - 0.1 / 3.5);
  CHECK_THAT(t[0], WithinRel(318.15 + x1, 1e-12));
  CHECK_THAT(t[1], WithinRel(318.15 + x1 / 3.5, 1e-12));
  CHECK_THROWS_WITH(make_thermal_model(tp, 3), "thermal.initial gives 2 temperatures, the GPU has 3 SMs (sm.count)");
}

// One SM, no lateral coupling, a window of P1 for W/2 then P2 for W/2 repeated: with a = exp(-W / (2 tau)),
// the periodic state starts at x = (x2 + a x1) / (1 + a) above ambient (x_i = R_v P_i: after the first
// half x1 + (x - x1) a, after the second x2 + (that - x2) a = x). The pilot from ambient, in closed form:
// mean over the first half x1 (1 - (2 tau / W) (1 - a)), reaching y = x1 (1 - a); over the second
// x2 + (y - x2) (2 tau / W) (1 - a).
TEST_CASE("thermal: periodic_start of a square wave, window short and long against R_v C") {
  ThermalParams tp;
  tp.r_vertical = 4;
  tp.r_lateral = 0;
  tp.capacitance = 0.002;
  const double tau = 8e-3, x1 = 4 * 10.0, x2 = 4 * 2.0;
  for (double w : {0.7e-3, 20e-3}) {
    INFO("window " << w);
    const double a = std::exp(-w / (2 * tau)), y = x1 * (1 - a);
    const double mean = (x1 * (1 - 2 * tau / w * (1 - a)) + x2 + (y - x2) * 2 * tau / w * (1 - a)) / 2;
    const std::vector<double> t0 = periodic_start(tp, {6.0}, {318.15 + mean}, 0.0, w);
    CHECK_THAT(t0[0], WithinRel(318.15 + (x2 + a * x1) / (1 + a), 1e-12));
  }
}

// With lateral coupling and a pilot window that starts after a setup stretch: the run from
// periodic_start comes back to where the window started (simulated here with the exact steps).
TEST_CASE("thermal: periodic_start with lateral coupling repeats the window") {
  ThermalParams tp;
  tp.r_vertical = 4;
  tp.r_lateral = 10;
  tp.columns = 2;
  tp.capacitance = 0.002;
  const std::vector<double> setup = {0.5, 0.5, 0.0}, p1 = {10.0, 0.0, 3.0}, p2 = {1.0, 6.0, 0.0};
  auto window_means = [&](ThermalModel& th, std::vector<double>& at_start, std::vector<double>& at_end) {
    th.hold(setup, 50e-6);
    at_start = th.temps();
    std::vector<double> t_ss, first, second, mean(3);
    th.steady_excess(p1, 0.3e-3, t_ss, first);
    for (size_t k = 0; k < 3; ++k) mean[k] = t_ss[k] * 0.3e-3 + first[k];
    th.hold(p1, 0.3e-3);
    th.steady_excess(p2, 0.4e-3, t_ss, second);
    for (size_t k = 0; k < 3; ++k) mean[k] = (mean[k] + t_ss[k] * 0.4e-3 + second[k]) / 0.7e-3;
    th.hold(p2, 0.4e-3);
    at_end = th.temps();
    return mean;
  };
  std::vector<double> a, b;
  auto pilot = make_thermal_model(tp, 3);
  const std::vector<double> mean = window_means(*pilot, a, b);
  std::vector<double> p_mean(3);
  for (size_t k = 0; k < 3; ++k) p_mean[k] = (p1[k] * 0.3 + p2[k] * 0.4) / 0.7;
  tp.initial_k = periodic_start(tp, p_mean, mean, 50e-6, 750e-6);
  auto warm = make_thermal_model(tp, 3);
  window_means(*warm, a, b);
  CHECK(b[0] - 318.15 > 10);  // (from ambient it would end under 3 K up)
  for (size_t k = 0; k < 3; ++k) CHECK_THAT(b[k], WithinRel(a[k], 1e-10));
}

TEST_CASE("thermal: floorplan neighbours on a grid") {
  // 15 SMs on 4 columns: SM 5 (row 1, column 1) touches 4, 6, 1, 9; SM 11 (row 2, last column) 10, 7;
  // SM 14 (row 3, column 2) 13, 10.
  CHECK(floorplan_neighbours(5, 15, 4) == std::vector<unsigned>{4, 6, 1, 9});
  CHECK(floorplan_neighbours(11, 15, 4) == std::vector<unsigned>{10, 7});
  CHECK(floorplan_neighbours(14, 15, 4) == std::vector<unsigned>{13, 10});
}

TEST_CASE("black: worked ratios") {
  EmParams p;
  p.nominal_k = 353;
  p.ea_ev = 0.9;
  auto m = make_black_model(p);
  const double j = p.current_density(p.nominal_w);
  CHECK_THAT(m->rate(j, 353), WithinRel(1.0, 1e-12));  // the nominal point wears at the nominal rate
  CHECK_THAT(m->rate(j, 363), WithinRel(2.26, 0.005));
  p.ea_ev = 0.8;
  CHECK_THAT(make_black_model(p)->rate(j, 363), WithinRel(2.06, 0.005));
  CHECK_THAT(m->rate(2 * j, 353), WithinRel(4.0, 1e-12));  // n = 2
  CHECK(m->rate(0, 353) == 0.0);  // no current, no wear
}

TEST_CASE("nucleation: Korhonen worked values at 373 K") {
  EmParams p;  // copper defaults
  CHECK_THAT(nucleation_kappa(p, 373), WithinRel(5.85e-14, 0.005));
  CHECK_THAT(nucleation_time(p, 8e9, 373), WithinRel(4006, 0.005));
  CHECK_THAT(nucleation_time(p, 1.6e10, 373), WithinRel(1001, 0.005));
}

TEST_CASE("nucleation: below the Blech limit a segment never fails") {
  EmParams p;
  // Steady stress sigma_T + G L / 2 < 400 MPa: j < 2 * 4e8 * Omega / (e Z rho L) = 2.76e9 A/m^2.
  const double j_blech = 2 * p.sigma_crit * p.omega / (1.602176634e-19 * p.z * p.rho * p.length);
  CHECK_THAT(j_blech, WithinRel(2.763e9, 0.001));
  CHECK(std::isinf(nucleation_time(p, 0.99 * j_blech, 373)));
  CHECK(std::isfinite(nucleation_time(p, 1.01 * j_blech, 373)));
  p.model = "nucleation";
  p.nominal_k = 373;
  p.nominal_w = 8e9 * p.area_m2() * p.vdd;  // nominal j = 8e9 A/m^2
  auto m = make_em_model(p);
  CHECK(m->rate(0.5e9, 373) == 0.0);
  CHECK_THAT(m->rate(1.6e10, 373), WithinRel(4006.0 / 1001.0, 0.001));
  // A nominal point below the Blech limit cannot be calibrated to a lifetime.
  p.nominal_w = 1e9 * p.area_m2() * p.vdd;
  CHECK_THROWS_AS(make_em_model(p), std::invalid_argument);
}

TEST_CASE("consumption rate over two intervals") {
  // 1 s at the nominal point (rate 1), then 1 s at twice its current density (rate 4, n = 2):
  // cr = (1 * 1 + 1 * 4) / 2 = 2.5; lifetime = 10 years / 2.5 = 4 years.
  EmParams p;
  auto m = make_black_model(p);
  const double j = p.current_density(p.nominal_w);
  EmAccumulator acc;
  acc.add(1.0, m->rate(j, p.nominal_k));
  acc.add(1.0, m->rate(2 * j, p.nominal_k));
  CHECK_THAT(acc.cr(), WithinRel(2.5, 1e-12));
  CHECK_THAT(p.ttf_years / acc.cr(), WithinRel(4.0, 1e-12));
  CHECK_THAT(acc.consumed_s, WithinRel(5.0, 1e-12));
}
