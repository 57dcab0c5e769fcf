#include "models/arbiter/arbitrated_port.h"

#include <stdexcept>

#include "models/common/log.h"

namespace gpuvp {

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
    core_ = std::make_unique<StallArbiter>("core", n, cfg.clock, reg, cfg.path);
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
  while (busy_[i]) wait(*free_ev_[i]);
  busy_[i] = true;
  // A back-to-back transaction must not ride on the previous grant, which is still high until the
  // arbiter has seen that transaction's ack.
  while (grant_[i].read()) wait(grant_[i].value_changed_event());
  req_[i].write(true);
  while (!grant_[i].read()) wait(grant_[i].value_changed_event());
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  out->b_transport(trans, d);
  if (d != sc_core::SC_ZERO_TIME) wait(d);
  ++transactions_[i];
  req_[i].write(false);
  ack_[i].write(true);
  ack_on_[i] = true;
  ack_until_[i] = sc_core::sc_time_stamp() + cfg_.clock.period();
  ack_drop_ev_.notify(cfg_.clock.period());
  busy_[i] = false;
  free_ev_[i]->notify(sc_core::SC_ZERO_TIME);
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
  for (unsigned i = 0; i < cfg_.requesters; ++i) {
    bool g = grant_[i].read(), s = stall_[i].read();
    if (g && !grant_seen_[i]) ++stats_[i].grants;
    if (s && !stall_seen_[i]) stall_since_[i] = cyc;
    if (!s && stall_seen_[i]) stats_[i].stall_cycles += cyc - stall_since_[i];
    grant_seen_[i] = g;
    stall_seen_[i] = s;
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
