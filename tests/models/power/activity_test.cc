// Activity counting by the SM's local cycle, and the accounting that turns it into power, temperature
// and wear, against values worked by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "models/power/power_accounting.h"

using namespace gpuvp::power;
using Catch::Matchers::WithinRel;

TEST_CASE("activity: events go to the interval of the SM's local cycle") {
  ActivityLog log(500, 2);
  log.issue(10, 0, 32, 1);
  log.issue(10, 1, 16, 1);  // dual issue: the same cycle, one issue cycle
  log.issue(499, 0, 8, 2);
  log.issue(500, 1, 32, 2);
  log.add(1200, Event::Fp32, 5);  // an SM running ahead: interval 2 before 1 is drained
  log.set_powered(100, true);
  log.set_powered(1100, false);
  std::vector<IntervalActivity> seen;
  log.drain(3, [&](uint64_t i, IntervalActivity& a) {
    CHECK(i == seen.size());
    seen.push_back(a);
  });
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].events[Event::WarpInst] == 3);
  CHECK(seen[0].issue_cycles == 2);
  CHECK(seen[0].cluster_thread_insts[0] == 40);
  CHECK(seen[0].cluster_thread_insts[1] == 16);
  CHECK(seen[1].events[Event::WarpInst] == 1);
  CHECK(seen[2].events[Event::Fp32] == 5);
  CHECK(seen[0].powered_cycles == 400);
  CHECK(seen[1].powered_cycles == 500);
  CHECK(seen[2].powered_cycles == 100);
  CHECK(seen[0].idle_cycles() == 398);
  // Per launch: the events follow the launch of the last instruction issued.
  CHECK(log.by_launch().at(1)[Event::WarpInst] == 2);
  CHECK(log.by_launch().at(2)[Event::WarpInst] == 2);
  CHECK(log.by_launch().at(2)[Event::Fp32] == 5);
}

TEST_CASE("activity: powered time of a block still resident is counted up to the drain") {
  ActivityLog log(100, 1);
  log.set_powered(50, true);
  uint64_t powered = 0;
  log.drain(2, [&](uint64_t, IntervalActivity& a) { powered += a.powered_cycles; });
  CHECK(powered == 150);
  log.set_powered(230, false);
  log.drain(3, [&](uint64_t, IntervalActivity& a) { powered = a.powered_cycles; });
  CHECK(powered == 30);
}

TEST_CASE("accounting: power, temperature and sensor of one SM over two intervals") {
  PowerConfig c;
  c.interval = 1000;
  c.period_s = 1e-9;  // 1 GHz: an interval is 1 us
  c.energy.pj[size_t(Event::Fp32)] = 100;
  c.energy.static_w = 0.5;
  c.thermal.r_vertical = 4;
  c.thermal.r_lateral = 0;
  c.thermal.capacitance = 1e-6;  // C/dt = 1 W/K
  c.em.nominal_w = 2;
  c.em.nominal_k = 318.15;
  uint64_t now = 0;
  PowerAccounting pa(c, 1, [&] { return now; });
  // Interval 0: 10000 fp32 lane operations (1 uJ: 1 W) with the SM powered throughout (0.5 W static).
  pa.log(0).set_powered(0, true);
  pa.log(0).add(10, Event::Fp32, 10000);
  now = 1500;  // simulated time inside interval 1: only interval 0 is closed
  pa.close();
  REQUIRE(pa.trace().size() == 1);
  CHECK_THAT(pa.trace()[0].dynamic_w, WithinRel(1.0, 1e-12));
  CHECK_THAT(pa.trace()[0].static_w, WithinRel(0.5, 1e-12));
  // Implicit step: dT = P / (C/dt + 1/R_v) = 1.5 / 1.25.
  CHECK_THAT(pa.trace()[0].temp_k, WithinRel(318.15 + 1.2, 1e-12));
  // Black, n = 2: j / j_N = 1.5 / 2, temperature 319.35 K against 318.15 K.
  const double r0 = 0.75 * 0.75 * std::exp(0.86 / 8.617e-5 * (1 / 318.15 - 1 / 319.35));
  CHECK_THAT(pa.trace()[0].em_rate, WithinRel(r0, 1e-9));
  // Interval 1: idle but powered (static only); the run ends.
  pa.log(0).set_powered(2000, false);
  now = 2000;
  pa.finish();
  REQUIRE(pa.trace().size() == 2);
  const double t1 = (1.0 * (318.15 + 1.2) + 0.5 + 318.15 / 4) / 1.25;
  CHECK_THAT(pa.trace()[1].temp_k, WithinRel(t1, 1e-12));
  const double r1 = 0.25 * 0.25 * std::exp(0.86 / 8.617e-5 * (1 / 318.15 - 1 / t1));
  CHECK_THAT(pa.sms()[0].em.cr(), WithinRel((r0 + r1) / 2, 1e-9));
  CHECK(std::llabs(int64_t(pa.sensor(0)) - int64_t((r0 + r1) * 1e6)) <= 1);  // picoseconds of nominal lifetime
  CHECK_THAT(pa.sms()[0].dynamic_j, WithinRel(1e-6, 1e-12));
  CHECK_THAT(pa.sms()[0].static_j, WithinRel(1e-6, 1e-12));
}

TEST_CASE("accounting: a block resident over many intervals closes without recursion") {
  // 1000 intervals of powered time in one stretch: filing it grows the log past its limit while
  // it is being drained (the overflow must not close again from inside the close).
  PowerConfig c;
  c.interval = 10;
  c.period_s = 1e-9;
  c.energy.static_w = 1.0;
  uint64_t now = 0;
  PowerAccounting pa(c, 2, [&] { return now; });
  pa.log(0).set_powered(0, true);
  pa.log(1).add(5, Event::Fp32, 1);
  now = 10000;
  pa.log(1).add(9999, Event::Fp32, 1);  // far ahead: the log holds 1000 intervals and overflows
  pa.log(0).set_powered(10000, false);
  pa.finish();
  CHECK(pa.sms()[0].powered_cycles == 10000);
  CHECK_THAT(pa.sms()[0].static_j, WithinRel(10000e-9, 1e-12));
  CHECK(pa.events(1)[Event::Fp32] == 2);
}

TEST_CASE("accounting: hours of idle time are one step and one trace row") {
  PowerConfig c;
  c.interval = 500;
  c.period_s = 1e-9;
  c.energy.static_w = 1.0;  // gated: no static power while idle
  c.thermal.r_vertical = 4;
  c.thermal.r_lateral = 0;
  uint64_t now = 0;
  PowerAccounting pa(c, 1, [&] { return now; });
  // 1 us powered, issuing nothing (1 W static), then an hour with nothing resident.
  pa.log(0).set_powered(0, true);
  pa.log(0).set_powered(1000, false);
  now = 3600ull * 1000000000ull;
  pa.finish();
  REQUIRE(pa.trace().size() == 2);  // one row for the block's two intervals, one for the rest of the hour
  CHECK(pa.trace()[0].count == 2);
  CHECK(pa.trace()[0].static_w == 1.0);
  CHECK(pa.trace()[0].idle_fraction == 1.0);
  // Exact: 318.15 + R_v P (1 - exp(-t / (R_v C))) after 1 us.
  CHECK_THAT(pa.trace()[0].temp_k, WithinRel(318.15 + 4 * (1 - std::exp(-1e-6 / (4 * 0.002))), 1e-12));
  CHECK(pa.trace()[1].interval == 2);
  CHECK(pa.trace()[1].count == now / 500 - 2);
  CHECK(pa.trace()[1].static_w == 0.0);
  CHECK_THAT(pa.trace()[1].temp_k, WithinRel(318.15, 1e-12));  // cooled to ambient
  CHECK_THAT(pa.sms()[0].em.elapsed_s, WithinRel(3600.0, 1e-12));
  CHECK(pa.sms()[0].powered_cycles == 1000);
  CHECK_THAT(pa.sms()[0].static_j, WithinRel(1e-6, 1e-12));
}

TEST_CASE("accounting: an hour with a block resident and asleep is one step at the steady state") {
  PowerConfig c;
  c.interval = 500;
  c.period_s = 1e-9;
  c.energy.static_w = 1.0;
  c.thermal.r_vertical = 4;
  c.thermal.r_lateral = 0;  // C 2 mJ/K: time constant R_v C = 8 ms
  uint64_t now = 3600ull * 1000000000ull;
  PowerAccounting pa(c, 1, [&] { return now; });
  pa.log(0).set_powered(0, true);
  pa.finish();
  REQUIRE(pa.trace().size() == 1);
  CHECK(pa.trace()[0].count == now / 500);
  CHECK_THAT(pa.trace()[0].temp_k, WithinRel(318.15 + 4.0, 1e-12));  // T_amb + R_v P
  CHECK(pa.sms()[0].powered_cycles == now);
  CHECK(pa.sms()[0].idle_cycles == now);
  CHECK_THAT(pa.sms()[0].static_j, WithinRel(3600.0, 1e-12));
  // Black, n = 2, against the nominal 4 W at 353.15 K: at the steady state (the 8 ms warm-up is 2e-6
  // of the hour) cr = (1/4)^2 exp(Ea/k (1/353.15 - 1/322.15)).
  const double r_ss = 0.0625 * std::exp(0.86 / 8.617e-5 * (1 / 353.15 - 1 / 322.15));
  CHECK_THAT(pa.sms()[0].em.cr(), WithinRel(r_ss, 1e-5));
  CHECK(pa.sms()[0].em.cr() < r_ss);  // the warm-up wears less
}

// Wear rate of a 1 W SM (Black, nominal 4 W at 353.15 K) at temperature t.
static double rate_1w(double t) { return 0.0625 * std::exp(0.86 / 8.617e-5 * (1 / 353.15 - 1 / t)); }

// One SM at 1 GHz of `static_w` static power, R_v 4 K/W and no lateral coupling.
static PowerConfig rc_config(uint64_t interval, double static_w) {
  PowerConfig c;
  c.interval = interval;
  c.period_s = 1e-9;
  c.energy.static_w = static_w;
  c.thermal.r_vertical = 4;
  c.thermal.r_lateral = 0;
  return c;
}

TEST_CASE("accounting: a stretch of constant power follows the exact exponential, wear integrated over it") {
  PowerConfig c = rc_config(500, 1.0);
  uint64_t now = 4000000;  // 4 ms: half the time constant
  PowerAccounting pa(c, 1, [&] { return now; });
  pa.log(0).set_powered(0, true);
  pa.finish();
  REQUIRE(pa.trace().size() == 1);
  auto temp = [](double t) { return 318.15 + 4 * (1 - std::exp(-t / 8e-3)); };
  CHECK_THAT(pa.trace()[0].temp_k, WithinRel(temp(4e-3), 1e-12));
  // Wear: the rate integrated along T(t) by a 100000-step midpoint rule.
  double worn = 0;
  for (int i = 0; i < 100000; ++i) worn += rate_1w(temp((i + 0.5) * 4e-8)) * 4e-8;
  CHECK_THAT(pa.sms()[0].em.consumed_s, WithinRel(worn, 1e-6));
}

TEST_CASE("accounting: a stretch that starts near its steady state, wear in closed form, matches the integral") {
  PowerConfig c;
  c.interval = 500;
  c.period_s = 1e-9;
  c.energy.static_w = 1.0;
  c.energy.pj[size_t(Event::Fp32)] = 1.0;  // the event only splits the run: 1 pJ moves T by 5e-10 K
  c.thermal.r_vertical = 4;
  c.thermal.r_lateral = 0;
  uint64_t now = 57600000;  // 57.6 ms = 7.2 time constants: 4 K e^-7.2 = 3.0 mK from T_ss = 322.15 K
  PowerAccounting pa(c, 1, [&] { return now; });
  pa.log(0).set_powered(0, true);
  pa.close();
  pa.log(0).add(now, Event::Fp32, 1);
  now = 65600000;  // then one more time constant: the wear rate moves by 1.8e-4 of itself over it
  pa.finish();
  REQUIRE(pa.trace().size() == 3);  // the warm-up, the event's interval, the rest
  const TraceRow& r = pa.trace()[2];
  REQUIRE(r.interval == 115201);
  REQUIRE(r.count == 15999);
  // The wear of the rest: the rate integrated along T(t) = 318.15 + 4 (1 - exp(-t / 8 ms)) by a
  // 100000-step midpoint rule; the closed form errs by (s d / r)^2 / 2 = 4e-8 of it.
  auto temp = [](double t) { return 318.15 + 4 * (1 - std::exp(-t / 8e-3)); };
  const double t0 = 115201 * 500e-9, dt = 15999 * 500e-9;
  double worn = 0;
  for (int i = 0; i < 100000; ++i) worn += rate_1w(temp(t0 + (i + 0.5) * dt / 100000)) * dt / 100000;
  CHECK_THAT(r.em_rate * dt, WithinRel(worn, 1e-7));
  CHECK(std::fabs(rate_1w(322.15) * dt / worn - 1) > 1e-4);  // the steady rate alone would be off
}

TEST_CASE("accounting: two coupled SMs over a constant stretch, one powered, match the modal solution") {
  PowerConfig c;
  c.interval = 500;
  c.period_s = 1e-9;
  c.energy.static_w = 1.0;
  c.thermal.r_vertical = 4;
  c.thermal.r_lateral = 10;
  uint64_t now = 10000000;  // 10 ms
  PowerAccounting pa(c, 2, [&] { return now; });
  pa.log(0).set_powered(0, true);  // SM 1 gated throughout
  pa.finish();
  REQUIRE(pa.trace().size() == 2);
  // Modes of G: (1, 1) with 1/R_v = 0.25 W/K, (1, -1) with 1/R_v + 2/R_lat = 0.45 W/K; 1 W into SM 0
  // is half in each: T_0,1 - T_amb = 0.5 [(1 - e^(-0.25 t/C)) / 0.25 +- (1 - e^(-0.45 t/C)) / 0.45].
  const double t = 10e-3, cap = 0.002;
  const double sym = (1 - std::exp(-0.25 * t / cap)) / 0.25, anti = (1 - std::exp(-0.45 * t / cap)) / 0.45;
  CHECK_THAT(pa.trace()[0].temp_k, WithinRel(318.15 + 0.5 * (sym + anti), 1e-12));
  CHECK_THAT(pa.trace()[1].temp_k, WithinRel(318.15 + 0.5 * (sym - anti), 1e-12));
  CHECK(pa.trace()[1].static_w == 0.0);
  CHECK(pa.sms()[1].em.consumed_s == 0.0);  // no current, no wear
}

// A wear study's window starts at the steady state of its power (thermal.initial): under that power the
// temperature is T_amb + R_v P throughout, interval by interval and over a steady stretch alike, and so
// is the mean the study reports (temp_ks over the time).
TEST_CASE("accounting: started at the steady state, constant power keeps T_amb + R_v P throughout") {
  PowerConfig c = rc_config(1000, 0.5);  // 1 us intervals
  c.energy.pj[size_t(Event::Fp32)] = 100;
  c.thermal.capacitance = 1e-6;
  c.thermal.initial_k = {318.15 + 4 * 1.5};  // 1 W dynamic and 0.5 W static
  uint64_t now = 0;
  PowerAccounting pa(c, 1, [&] { return now; });
  pa.log(0).set_powered(0, true);
  for (uint64_t i = 0; i < 20; ++i) pa.log(0).add(i * 1000 + 10, Event::Fp32, 10000);
  pa.log(0).set_powered(20000, false);
  now = 20000;
  pa.finish();
  REQUIRE(pa.trace().size() == 20);
  for (const TraceRow& r : pa.trace()) CHECK_THAT(r.temp_k, WithinRel(324.15, 1e-12));
  CHECK_THAT(pa.sms()[0].temp_ks / pa.sms()[0].em.elapsed_s, WithinRel(324.15, 1e-12));
  CHECK_THAT(pa.sms()[0].peak_temp_k, WithinRel(324.15, 1e-12));

  // Powered and idle (0.5 W static) for 0.7 ms: one steady stretch, at 318.15 + 4 x 0.5 throughout.
  c.thermal.initial_k = {320.15};
  now = 0;
  PowerAccounting idle(c, 1, [&] { return now; });
  idle.log(0).set_powered(0, true);
  idle.log(0).set_powered(700000, false);
  now = 700000;
  idle.finish();
  REQUIRE(idle.trace().size() == 1);
  CHECK_THAT(idle.trace()[0].temp_k, WithinRel(320.15, 1e-12));
  CHECK_THAT(idle.sms()[0].temp_ks / idle.sms()[0].em.elapsed_s, WithinRel(320.15, 1e-12));
}

// The mean temperature over a steady stretch from ambient, against the closed form of the exponential
// rise: T_amb + R_v P (1 - tau / t (1 - exp(-t / tau))), tau = R_v C.
TEST_CASE("accounting: the mean temperature of a steady stretch is the exponential's mean") {
  PowerConfig c = rc_config(1000, 0.5);
  c.thermal.capacitance = 1e-4;  // tau = 0.4 ms
  uint64_t now = 0;
  PowerAccounting pa(c, 1, [&] { return now; });
  pa.log(0).set_powered(0, true);
  pa.log(0).set_powered(700000, false);
  now = 700000;  // 0.7 ms
  pa.finish();
  const double tau = 4e-4, t = 7e-4;
  CHECK_THAT(pa.sms()[0].temp_ks / t, WithinRel(318.15 + 2 * (1 - tau / t * (1 - std::exp(-t / tau))), 1e-12));
}
