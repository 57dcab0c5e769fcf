#include "models/arbiter/arbitrated_port.h"

#include <stdexcept>
#include <unordered_map>

#include "models/common/log.h"

namespace gpuvp {

// Per-port handshake state of the wrapper, kept here so that the header (the pin contract) does
// not change. A transaction waits at most twice in its caller's thread: for the grant (the monitor
// method, which runs on every grant/stall change anyway, raises req once the previous grant has
// dropped and wakes the caller when the grant rises) and for the resource latency. Raising req in
// the monitor instead of in the caller's thread happens at the same simulated time (the delta
// after the grant fell), so the pins are unchanged; the arbiter samples only at clock edges.

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
      ack_until_(cfg.requesters, sc_core::SC_ZERO_TIME),
      ack_on_(cfg.requesters, false),
      stats_(cfg.requesters),
      stall_seen_(cfg.requesters, false),
      grant_seen_(cfg.requesters, false),
      stall_since_(cfg.requesters, 0),
      transactions_(cfg.requesters, 0) {
  const unsigned n = cfg.requesters;
  if (factory)
    core_ = factory("core", n);
  else
    core_ = std::make_unique<StallArbiter>("core", n, cfg.clock, reg, cfg.path, cfg.sequential_search);
  if (!core_ || core_->size() != n)
    throw std::invalid_argument(fmt::format("{}: arbiter core factory must make a core with {} requesters", cfg.path, n));
  for (unsigned i = 0; i < n; ++i) {
    core_->req[i](req_[i]);
    core_->ack[i](ack_[i]);
    core_->grant[i](grant_[i]);
    core_->stall[i](stall_[i]);
    in[i].register_b_transport(this, &ArbitratedTarget::b_transport, static_cast<int>(i));
    in[i].register_transport_dbg(this, &ArbitratedTarget::transport_dbg, static_cast<int>(i));
    in[i].register_get_direct_mem_ptr(this, &ArbitratedTarget::get_direct_mem_ptr, static_cast<int>(i));
    free_ev_.push_back(std::make_unique<sc_core::sc_event>());
  }
  flags_.want_req.assign(n, 0);
  flags_.want_grant.assign(n, 0);
  flags_.granted.assign(n, 0);
  flags_.queued.assign(n, 0);
  holds_.resize(n);
  SC_METHOD(drop_acks);
  sensitive << ack_drop_ev_;
  dont_initialize();
  SC_METHOD(monitor);
  for (unsigned i = 0; i < n; ++i) sensitive << grant_[i] << stall_[i];
  dont_initialize();
}

void ArbitratedTarget::b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const unsigned i = static_cast<unsigned>(id);
  if (delay != sc_core::SC_ZERO_TIME) {
    wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  if (busy_[i]) {
    ++flags_.queued[i];
    while (busy_[i]) wait(*free_ev_[i]);
    --flags_.queued[i];
  }
  busy_[i] = true;
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
  // The resource is held for its occupancy; a pipelined target's remaining latency goes back to
  // the caller as annotated delay (models/common/hold_extension.h).
  HoldExtension& hold = holds_[i];
  hold.valid = false;
  HoldExtension* prev = trans.set_extension(&hold);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  out->b_transport(trans, d);
  if (prev)
    trans.set_extension(prev);
  else
    trans.clear_extension(&hold);
  sc_core::sc_time held = hold.valid && hold.hold < d ? hold.hold : d;
  if (held != sc_core::SC_ZERO_TIME) wait(held);
  delay = d - held;
  ++transactions_[i];
  req_[i].write(false);
  ack_[i].write(true);
  ack_on_[i] = true;
  ack_until_[i] = sc_core::sc_time_stamp() + cfg_.clock.period();
  ack_drop_ev_.notify(cfg_.clock.period());
  busy_[i] = false;
  if (flags_.queued[i]) free_ev_[i]->notify(sc_core::SC_ZERO_TIME);
}

void ArbitratedTarget::drop_acks() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  sc_core::sc_time next = sc_core::SC_ZERO_TIME;
  for (unsigned i = 0; i < cfg_.requesters; ++i) {
    if (!ack_on_[i]) continue;
    if (ack_until_[i] <= now) {
      ack_[i].write(false);
      ack_on_[i] = false;
    } else if (next == sc_core::SC_ZERO_TIME || ack_until_[i] < next) {
      next = ack_until_[i];
    }
  }
  if (next != sc_core::SC_ZERO_TIME) ack_drop_ev_.notify(next - now);
}

void ArbitratedTarget::monitor() {
  const uint64_t cyc = cfg_.clock.cycle(sc_core::sc_time_stamp());
  PortFlags& f = flags_;
  for (unsigned i = 0; i < cfg_.requesters; ++i) {
    bool g = grant_[i].read(), s = stall_[i].read();
    if (g && !grant_seen_[i]) ++stats_[i].grants;
    if (s && !stall_seen_[i]) stall_since_[i] = cyc;
    if (!s && stall_seen_[i]) stats_[i].stall_cycles += cyc - stall_since_[i];
    grant_seen_[i] = g;
    stall_seen_[i] = s;
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

ArbiterPortStats ArbitratedTarget::stats(unsigned i) const {
  ArbiterPortStats s = stats_.at(i);
  if (stall_seen_[i]) s.stall_cycles += cfg_.clock.cycle(sc_core::sc_time_stamp()) - stall_since_[i];
  return s;
}

unsigned ArbitratedTarget::transport_dbg(int, tlm::tlm_generic_payload& trans) { return out->transport_dbg(trans); }

bool ArbitratedTarget::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.allow_none();
  return false;
}

}  // namespace gpuvp
