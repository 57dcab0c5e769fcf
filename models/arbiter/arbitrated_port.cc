#include "models/arbiter/arbitrated_port.h"

#include <stdexcept>
#include <unordered_map>

#include "models/common/digest.h"
#include "models/common/log.h"

namespace gpuvp {

// With pins, a transaction waits in its caller's thread only for the grant: the monitor method,
// which runs on every grant/stall change anyway, raises req once the previous grant has dropped and
// wakes the caller when the grant rises, and ack_pins ends the hold. Writing the pins in methods
// instead of the caller's thread happens at the same simulated time (a delta later), and the
// arbiter samples only at clock edges.

ArbitratedTarget::ArbitratedTarget(sc_core::sc_module_name name, const ArbitratedTargetConfig& cfg, Registry& reg,
                                   CoreFactory factory)
    : sc_core::sc_module(name),
      in("in", cfg.requesters),
      out("out"),
      cfg_(cfg),
      req_("req", cfg.requesters),
      ack_("ack", cfg.requesters),
      grant_("grant", cfg.requesters),
      stall_("stall", cfg.requesters),
      busy_(cfg.requesters, false),
      ack_pin_(cfg.requesters, AckLow),
      ack_at_(cfg.requesters, sc_core::SC_ZERO_TIME),
      counters_(cfg.requesters),
      transactions_(cfg.requesters, 0) {
  const unsigned n = cfg.requesters;
  for (unsigned i = 0; i < n; ++i) {
    in[i].register_b_transport(this, &ArbitratedTarget::b_transport, static_cast<int>(i));
    in[i].register_transport_dbg(this, &ArbitratedTarget::transport_dbg, static_cast<int>(i));
    in[i].register_get_direct_mem_ptr(this, &ArbitratedTarget::get_direct_mem_ptr, static_cast<int>(i));
    free_ev_.push_back(std::make_unique<sc_core::sc_event>());
  }
  flags_.queued.assign(n, 0);
  holds_.resize(n);
  reg.add_timing(cfg.path, [this](uint64_t now) { return timing_digest(now); });
  if (!factory) {
    direct_ = std::make_unique<TransactionArbiter>("core", n, cfg.clock, reg, cfg.path, cfg.sequential_search);
    return;
  }
  core_ = factory("core", n);
  if (!core_ || core_->size() != n)
    throw std::invalid_argument(fmt::format("{}: arbiter core factory must make a core with {} requesters", cfg.path, n));
  for (unsigned i = 0; i < n; ++i) {
    core_->req[i](req_[i]);
    core_->ack[i](ack_[i]);
    core_->grant[i](grant_[i]);
    core_->stall[i](stall_[i]);
  }
  flags_.want_req.assign(n, 0);
  flags_.want_grant.assign(n, 0);
  flags_.granted.assign(n, 0);
  SC_METHOD(ack_pins);
  sensitive << ack_ev_;
  dont_initialize();
  SC_METHOD(monitor);
  for (unsigned i = 0; i < n; ++i) sensitive << grant_[i] << stall_[i];
  dont_initialize();
}

namespace {
void mark_release(tlm::tlm_generic_payload& trans, const sc_core::sc_time& at) {
  ReleaseExtension* r = nullptr;
  trans.get_extension(r);
  if (r) {
    r->valid = true;
    r->at = at;
  }
}
}  // namespace

// One transaction per requester at a time: a second caller on the same port queues.
void ArbitratedTarget::wait_turn(unsigned i) {
  if (busy_[i]) {
    ++flags_.queued[i];
    while (busy_[i]) wait(*free_ev_[i]);
    --flags_.queued[i];
  }
  busy_[i] = true;
}

void ArbitratedTarget::leave(unsigned i) {
  busy_[i] = false;
  if (flags_.queued[i]) free_ev_[i]->notify(sc_core::SC_ZERO_TIME);
}

// Granted: through to the resource, which is held for its occupancy; a pipelined target's remaining
// latency goes back to the caller (models/common/hold_extension.h). Returns the occupancy; `d` is
// the whole latency.
sc_core::sc_time ArbitratedTarget::forward(unsigned i, tlm::tlm_generic_payload& trans, sc_core::sc_time& d) {
  HoldExtension& hold = holds_[i];
  hold.valid = false;
  HoldExtension* prev = trans.set_extension(&hold);
  d = sc_core::SC_ZERO_TIME;
  out->b_transport(trans, d);
  if (prev)
    trans.set_extension(prev);
  else
    trans.clear_extension(&hold);
  ++transactions_[i];
  return hold.valid && hold.hold < d ? hold.hold : d;
}

void ArbitratedTarget::b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const unsigned i = static_cast<unsigned>(id);
  if (direct_) return transport_direct(i, trans, delay);
  if (delay != sc_core::SC_ZERO_TIME) {
    wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  wait_turn(i);
  if (ack_pin_[i] == AckPosted) {
    // The previous hold has not ended (a fault dropped its grant early, or it ends right now): req
    // rises again once it has, a delta after the ack method dropped it.
    wait(ack_at_[i] - sc_core::sc_time_stamp());
    wait(sc_core::SC_ZERO_TIME);
  }
  {
    PortFlags& f = flags_;
    f.granted[i] = 0;
    // A back-to-back transaction must not ride on the previous grant, which is still high until the
    // arbiter has seen that transaction's ack: the monitor raises req when that grant drops.
    if (grant_[i].read()) {
      f.want_req[i] = 1;
    } else {
      req_[i].write(true);
      f.want_grant[i] = 1;
    }
  }
  // Woken (immediate notification) by the monitor in the delta in which grant[i] rose.
  while (!flags_.granted[i]) wait(*free_ev_[i]);
  flags_.granted[i] = 0;
  sc_core::sc_time d;
  const sc_core::sc_time held = forward(i, trans, d);
  const sc_core::sc_time free_at = sc_core::sc_time_stamp() + held;
  ack_pin_[i] = AckPosted;
  ack_at_[i] = free_at;
  ack_ev_.notify(held);
  delay = d;
  mark_release(trans, free_at);
  leave(i);
}

// Without pins: the caller's req rises at now + delay and it runs on from the grant; the hold and
// the ack are posted ahead (transaction_arbiter.h).
void ArbitratedTarget::transport_direct(unsigned i, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (busy_[i]) {  // queue behind the other caller at the instant this one asks, as with pins
    if (delay != sc_core::SC_ZERO_TIME) wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  wait_turn(i);
  direct_->acquire(i, sc_core::sc_time_stamp() + delay);
  sc_core::sc_time d;
  const sc_core::sc_time held = forward(i, trans, d);
  const sc_core::sc_time free_at = sc_core::sc_time_stamp() + held;
  direct_->release(i, free_at);
  delay = d;
  mark_release(trans, free_at);
  leave(i);
}

// The end of each hold: req falls and ack rises, and one clock period later ack falls. (The grant
// stays high until the arbiter has seen the ack, so no new req of the port can be up meanwhile.)
void ArbitratedTarget::ack_pins() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  sc_core::sc_time next = sc_core::sc_max_time();
  for (unsigned i = 0; i < cfg_.requesters; ++i) {
    if (ack_pin_[i] == AckPosted && ack_at_[i] <= now) {
      req_[i].write(false);
      ack_[i].write(true);
      ack_pin_[i] = AckHigh;
      ack_at_[i] = now + cfg_.clock.period();
    } else if (ack_pin_[i] == AckHigh && ack_at_[i] <= now) {
      ack_[i].write(false);
      ack_pin_[i] = AckLow;
    }
    if (ack_pin_[i] != AckLow) next = std::min(next, ack_at_[i]);
  }
  if (next != sc_core::sc_max_time()) ack_ev_.notify(next - now);
}

void ArbitratedTarget::monitor() {
  const uint64_t cyc = cfg_.clock.cycle(sc_core::sc_time_stamp());
  PortFlags& f = flags_;
  for (unsigned i = 0; i < cfg_.requesters; ++i) {
    const bool g = grant_[i].read();
    counters_[i].observe(g, stall_[i].read(), cyc);
    // The caller's handshake (see b_transport).
    if (f.want_req[i] && !g) {
      f.want_req[i] = 0;
      req_[i].write(true);
      f.want_grant[i] = 1;
    } else if (f.want_grant[i] && g) {
      f.want_grant[i] = 0;
      f.granted[i] = 1;
      free_ev_[i]->notify();
    }
  }
}

// A posted ack matters until it has been written and dropped again (ack_pins); the pins' values are
// the handshake's own state (the core's registers are registered state).
uint64_t ArbitratedTarget::timing_digest(uint64_t now) const {
  uint64_t h = direct_ ? direct_->timing_digest(now) : 0;
  for (unsigned i = 0; i < cfg_.requesters; ++i) {
    h = digest_fold(h, uint64_t(busy_[i]) | uint64_t(flags_.queued[i]) << 1);
    if (direct_) continue;
    h = digest_fold(h, ack_pin_[i] == AckLow ? 0 : ack_at_[i].value() - now);
    h = digest_fold(h, ack_pin_[i] | flags_.want_req[i] << 2 | flags_.want_grant[i] << 3 | flags_.granted[i] << 4 |
                           unsigned(req_[i].read()) << 5 | unsigned(ack_[i].read()) << 6);
  }
  return h;
}

ArbiterPortStats ArbitratedTarget::stats(unsigned i) const {
  if (direct_) return direct_->stats(i);
  return counters_.at(i).at(cfg_.clock.cycle(sc_core::sc_time_stamp()));
}

unsigned ArbitratedTarget::transport_dbg(int, tlm::tlm_generic_payload& trans) { return out->transport_dbg(trans); }

bool ArbitratedTarget::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.allow_none();
  return false;
}

}  // namespace gpuvp
