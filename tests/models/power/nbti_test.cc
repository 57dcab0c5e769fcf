// NBTI aging, the alpha-power delay, the variation map and the aging-aware distribution ratio against
// values worked by hand from their equations (docs/power.md, "NBTI aging").
#include <catch2/catch.hpp>

#include <cmath>

#include "models/power/cluster_plan.h"
#include "models/power/nbti.h"
#include "models/power/thermal_model.h"

using namespace gpuvp::power;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
constexpr double kYear = 365.25 * 24 * 3600;
}

TEST_CASE("nbti: threshold shift after one and ten years at duty 0.5") {
  // Vdd 1.1 V, Vth0 0.5 V, 350 K: D(0.5) = (0.5 / 1.5)^(1/6) = 0.8327, V^4.5 = 0.6^4.5 = 0.1004,
  // kT = 0.030160 eV, exp(-0.08/kT) = 0.07045, exp(-0.03/kT) = 0.36985, (1 year)^(1/6) = 17.77 s^(1/6):
  // 0.8327 * 0.027e-12 * 0.1004 * (5.5e12 * 0.07045 * 17.77 + 8e11 * 0.36985) = 16.2 mV; ten years 23.5 mV.
  const auto m = make_power_law_nbti(NbtiParams{});
  CHECK_THAT(m->shift(0.5, 0.5, kYear), WithinAbs(0.0162, 0.00005));
  CHECK_THAT(m->shift(0.5, 0.5, 10 * kYear), WithinAbs(0.0235, 0.00005));
}

TEST_CASE("nbti: a gated cluster (duty 0) does not age, more stress ages more") {
  const auto m = make_power_law_nbti(NbtiParams{});
  CHECK(m->shift(0.5, 0.0, 10 * kYear) == 0.0);
  CHECK(m->shift(0.5, 0.25, kYear) < m->shift(0.5, 0.5, kYear));
  CHECK(m->shift(0.5, 0.5, kYear) < m->shift(0.5, 1.0, kYear));
  // D(1) = 1: full stress is the duty-0.5 shift over D(0.5) = 0.8327.
  CHECK_THAT(m->shift(0.5, 1.0, kYear), WithinRel(m->shift(0.5, 0.5, kYear) / std::pow(1.0 / 3, 1.0 / 6), 1e-12));
}

TEST_CASE("nbti: alpha-power delay reaches 5 % at a 22.1 mV shift, after about 6.9 years at duty 0.5") {
  // (1 - dV / 0.6)^-1.3 = 1.05  =>  dV = 0.6 * (1 - 1.05^(-1/1.3)) = 22.10 mV.
  const NbtiParams p;
  const auto d = make_alpha_power_delay(p);
  CHECK_THAT(d->degradation(0.022101), WithinAbs(0.05, 1e-5));
  CHECK(d->degradation(0.0) == 0.0);
  CHECK(d->degradation(-0.01) < 0.0);  // a cluster of lower Vth0 is faster than nominal
  CHECK(std::isinf(d->degradation(0.7)));  // the threshold above Vdd: the gate never switches
  const auto m = make_power_law_nbti(p);
  CHECK(d->degradation(m->shift(0.5, 0.5, 6.8 * kYear)) < 0.05);
  CHECK(d->degradation(m->shift(0.5, 0.5, 7.0 * kYear)) > 0.05);
}

TEST_CASE("nbti: every threshold a variation map can draw stays between 0 and Vdd") {
  // Box-Muller's largest radius, at the smallest uniform 2^-54: sqrt(-2 ln 2^-54) = sqrt(108 ln 2) = 8.65216.
  CHECK_THAT(max_variation_sigmas(), WithinRel(8.65216, 1e-6));
  NbtiParams p;  // Vdd 1.1 V, Vth0 0.5 V: the room is min(0.5, 0.6) = 0.5 V, sigma_v below 0.5 / 8.65216 = 0.05779
  p.sigma_v = 0.0577;
  CHECK_NOTHROW(p.check());
  p.sigma_v = 0.0579;
  CHECK_THROWS_WITH(p.check(), Catch::Contains("nbti.sigma_v = 0.0579 V") && Catch::Contains("below 0.0578 V here"));
  p = NbtiParams{};
  p.vdd = 1.0;
  p.vth0 = 0.95;  // room Vdd - Vth0 = 0.05 V: sigma_v below 0.05 / 8.65216 = 5.78 mV
  p.sigma_v = 0.0057;
  CHECK_NOTHROW(p.check());
  p.sigma_v = 0.0058;
  CHECK_THROWS_WITH(p.check(), Catch::Contains("below 0.00578 V here"));
  p.vth0 = 1.0;
  CHECK_THROWS_WITH(p.check(), Catch::Contains("nbti.vth0 = 1 V is not below nbti.vdd = 1 V"));
}

TEST_CASE("nbti: variation maps are seeded, normal and differ between maps") {
  NbtiParams p;
  p.sigma_v = 0.02;
  const auto v = make_normal_variation(p);
  CHECK(v->offsets(7, 3, 6) == v->offsets(7, 3, 6));
  CHECK(v->offsets(7, 3, 6) != v->offsets(7, 4, 6));
  CHECK(v->offsets(7, 3, 6) != v->offsets(8, 3, 6));
  double sum = 0, sq = 0;
  const unsigned n = 20000;
  for (double x : v->offsets(1, 0, n)) {
    sum += x;
    sq += x * x;
  }
  // Mean 0 and standard deviation sigma within a few standard errors (sigma / sqrt(n) = 0.14 mV).
  CHECK_THAT(sum / n, WithinAbs(0.0, 0.0006));
  CHECK_THAT(std::sqrt(sq / n), WithinRel(0.02, 0.03));
}

TEST_CASE("cluster plan: formation keeps the fastest clusters and gates the most aged surplus") {
  const std::vector<bool> w = form_clusters({0.004, -0.002, 0.010, 0.0}, 3);
  CHECK(w == std::vector<bool>{true, true, false, true});
  const auto subset = make_cluster_planner("even-subset", NbtiParams{});
  CHECK(subset->limits({{0.004, -0.002, 0.010, 0.0}, 3}) == std::vector<unsigned>{1, 1, 1, 0});
  CHECK(make_cluster_planner("even", NbtiParams{})->limits({{0.004, -0.002, 0.010, 0.0}, 3}) ==
        std::vector<unsigned>{1, 1, 1, 1});
  CHECK_THROWS_WITH(make_cluster_planner("fastest", NbtiParams{}), Catch::Contains("'fastest' is not"));
}

TEST_CASE("cluster plan: the ratio gives clusters with more variation less work (hand-worked 4 clusters)") {
  // Offsets 0, +2, -1, +4 mV, three years at 350 K, duty 0.25 each at equal shares: work 4 x 0.25 = 1.
  // Worked separately with the equations (bisections of its own): equal shares leave delays 3.814,
  // 4.219, 3.612, 4.628 %; the common final delay whose duties carry that work is 3.993 %, at duties
  // 0.3203, 0.1777, 0.4138, 0.0882 (sum 1: the shares); a round of 40: one each, the other 36 in
  // proportion 11.53, 6.40, 14.90, 3.17 -> 11, 6, 14, 3 and the two largest remainders (clusters 2, 0)
  // one more: 13, 7, 16, 4.
  PlanInput in{{0.0, 0.002, -0.001, 0.004}, 4, 0.25, 3 * kYear, 40};
  const NbtiParams p;
  const std::vector<double> r = distribution_ratio(p, in, {true, true, true, true});
  CHECK_THAT(r[0], WithinAbs(0.3203, 0.0005));
  CHECK_THAT(r[1], WithinAbs(0.1777, 0.0005));
  CHECK_THAT(r[2], WithinAbs(0.4138, 0.0005));
  CHECK_THAT(r[3], WithinAbs(0.0882, 0.0005));
  CHECK(make_cluster_planner("aging-aware", p)->limits(in) == std::vector<unsigned>{13, 7, 16, 4});
}

TEST_CASE("cluster plan: round limits give each working cluster one, then the largest remainders") {
  CHECK(round_limits({0.4, 0.3, 0.3, 0.0}, 10) == std::vector<unsigned>{4, 3, 3, 0});
  CHECK(round_limits({0.5, 0.25, 0.25}, 4) == std::vector<unsigned>{2, 1, 1});
  CHECK(round_limits({0.98, 0.01, 0.01}, 10) == std::vector<unsigned>{8, 1, 1});
}

TEST_CASE("cluster plan: made again after aging, the aged cluster gets less work (hand-worked 2 clusters)") {
  // Two clusters of equal Vth0 after one year: cluster 0 worked at duty 0.5 (0.5 year of stress),
  // cluster 1 was gated. Two more years carrying the work of equal shares (duty 0.5 each: 1 in all).
  // With equal offsets equal delay means equal average duty, (0.5 + 2 d0) / 3 = 2 d1 / 3, so
  // d1 - d0 = 0.25, and d0 + d1 = 1: d0 = 0.375, d1 = 0.625, the shares; a round of 20: one each, the
  // other 18 in proportion 6.75 and 11.25 -> 6 + 1, 11 + 1 and the larger remainder (cluster 0) one
  // more: 8 and 12.
  const NbtiParams p;
  PlanInput in{{0.0, 0.0}, 2, 0.5, 2 * kYear, 20, {0.5 * kYear, 0.0}, kYear};
  const std::vector<double> r = distribution_ratio(p, in, {true, true});
  CHECK_THAT(r[0], WithinAbs(0.3750, 0.0005));
  CHECK_THAT(r[1], WithinAbs(0.6250, 0.0005));
  CHECK(make_cluster_planner("aging-aware", p)->limits(in) == std::vector<unsigned>{8, 12});
  // Formation sees the aging: with one cluster needed the aged one is gated, not the first.
  in.needed = 1;
  CHECK(make_cluster_planner("aging-aware", p)->limits(in) == std::vector<unsigned>{0, 20});
  // The aging so far is the power law at the average duty: 1 year at 0.5 then 1 at 0.25 is 2 years at
  // 0.375: D(0.375) = (0.375 / (1 + sqrt(0.3125)))^(1/6) = 0.7886, (2 years)^(1/6) = 19.95 s^(1/6):
  // 0.7886 * 0.027e-12 * 0.1004 * (5.5e12 * 0.07045 * 19.95 + 8e11 * 0.36985) = 17.16 mV.
  const auto m = make_power_law_nbti(p);
  CHECK_THAT(history_shift(*m, p, 0.0, 0.5 * kYear, kYear, 0.25, kYear), WithinAbs(0.01716, 0.00005));
  CHECK(history_shift(*m, p, 0.0, 0.0, 0.0, 0.5, kYear) == m->shift(0.5, 0.5, kYear));  // no history
}

TEST_CASE("nbti: under nbti.temperature = thermal a cluster ages at its SM's steady temperature") {
  // One SM drawing 1.5 W through R_v = 20 K/W from 318.15 K: 348.15 K. The power law by hand there, duty 0.5,
  // one year: kT = 8.617e-5 * 348.15 eV, D(0.5) = (1/3)^(1/6), V = 0.6 V.
  ThermalParams tp;
  tp.r_vertical = 20;
  tp.r_lateral = 0;
  const std::vector<double> steady = steady_temps(tp, {1.5});
  NbtiParams p;
  CHECK(aging_temp_k(p, steady, 0) == 350.0);  // fixed (the default): nbti.temp_k whatever the power
  p.thermal = true;
  const double t = aging_temp_k(p, steady, 0);
  CHECK_THAT(t, WithinRel(348.15, 1e-12));
  const double kt = 8.617e-5 * 348.15;
  const double hand = std::pow(1.0 / 3, 1.0 / 6) * 0.027e-12 * std::pow(0.6, 4.5) *
                      (5.5e12 * std::exp(-0.08 / kt) * std::pow(kYear, 1.0 / 6) + 8e11 * std::exp(-0.03 / kt));
  p.temp_k = t;
  CHECK_THAT(make_power_law_nbti(p)->shift(0.5, 0.5, kYear), WithinRel(hand, 1e-9));
  // The fixed path at the same temperature gives the same shift; 1.85 K cooler than 350 K ages less.
  NbtiParams fixed;
  fixed.temp_k = 348.15;
  CHECK(make_power_law_nbti(fixed)->shift(0.5, 0.5, kYear) == make_power_law_nbti(p)->shift(0.5, 0.5, kYear));
  CHECK(hand < make_power_law_nbti(NbtiParams{})->shift(0.5, 0.5, kYear));
  // With lateral coupling the SM's own entry of the network's steady state.
  tp.r_vertical = 4;
  tp.r_lateral = 10;
  tp.columns = 2;
  const double x1 = 10 / (0.35 - 0.1 / 3.5);  // 10 W on SM 0 of two neighbours (power_models_test)
  CHECK_THAT(aging_temp_k(p, steady_temps(tp, {10.0, 0.0}), 1), WithinRel(318.15 + x1 / 3.5, 1e-12));
}
