#pragma once
// A clock that costs nothing while nobody listens. There is no sc_clock in the platform: an
// sc_clock toggles every half period whether or not anything can change, which makes an idle
// simulated second cost hundreds of millions of events. Clocked processes instead compute the
// time of the edge they need and sleep until then (or until an input changes).
#include <systemc>

#include <cstdint>

namespace gpuvp {

class Clock {
 public:
  Clock() = default;
  explicit Clock(sc_core::sc_time period) : period_(period) {}
  explicit Clock(double mhz) : period_(sc_core::sc_time(1e6 / mhz, sc_core::SC_PS)) {}

  const sc_core::sc_time& period() const { return period_; }
  double mhz() const { return 1e6 / period_.to_seconds() / 1e12; }

  // Cycle number of time t (edges at 0, T, 2T, ...).
  uint64_t cycle(const sc_core::sc_time& t) const { return t.value() / period_.value(); }
  // In integer ticks: a double loses whole picoseconds past 2^53 ps (2.5 simulated hours).
  sc_core::sc_time at_cycle(uint64_t c) const { return sc_core::sc_time::from_value(c * period_.value()); }
  sc_core::sc_time from_ticks(uint64_t ticks) const { return sc_core::sc_time::from_value(ticks * period_.value()); }
  // The first rising edge strictly after `t`: an input that changes at or after edge k is sampled
  // at edge k+1, exactly as a flip-flop in the RTL samples it.
  sc_core::sc_time next_edge(const sc_core::sc_time& t) const {
    return sc_core::sc_time::from_value((t.value() / period_.value() + 1) * period_.value());
  }
  // The first edge at or after t.
  sc_core::sc_time edge_at_or_after(const sc_core::sc_time& t) const {
    uint64_t p = period_.value();
    return sc_core::sc_time::from_value((t.value() + p - 1) / p * p);
  }
  // Delay from now to the next edge strictly after now.
  sc_core::sc_time to_next_edge() const { return next_edge(sc_core::sc_time_stamp()) - sc_core::sc_time_stamp(); }
  sc_core::sc_time cycles(uint64_t n) const { return from_ticks(n); }

 private:
  sc_core::sc_time period_{10, sc_core::SC_NS};
};

// The one pending rising edge of a gated clocked process: the process asks for the next edge when
// something can change and is woken by event() when it comes; asking again keeps the earliest.
class EdgeTimer {
 public:
  explicit EdgeTimer(const Clock& clock) : clock_(clock) {}
  const sc_core::sc_event& event() const { return ev_; }
  // Asks for an evaluation at the first edge strictly after now.
  void request() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    request_at(clock_.next_edge(sc_core::sc_time::from_value(now)).value(), now);
  }
  // Asks for an evaluation at edge `e` (a rising edge after now).
  void request_at(const sc_core::sc_time& e) { request_at(e.value(), sc_core::sc_time_stamp().value()); }
  // The same in sc_time ticks, with now given (what a per-transaction caller has at hand).
  void request_at(uint64_t e, uint64_t now) {
    if (!pending_ || e < at_) {
      pending_ = true;
      at_ = e;
      ev_.cancel();
      ev_.notify(sc_core::sc_time::from_value(e - now));
    }
  }
  // An evaluation is already asked for at or before `e` (ticks).
  bool pending_by(uint64_t e) const { return pending_ && at_ <= e; }
  // True, once, when the requested edge has come.
  bool take() { return take(sc_core::sc_time_stamp().value()); }
  bool take(uint64_t now) {
    if (!pending_ || now < at_) return false;
    pending_ = false;
    return true;
  }

 private:
  Clock clock_;
  sc_core::sc_event ev_;
  bool pending_ = false;
  uint64_t at_ = 0;  // ticks
};

}  // namespace gpuvp
