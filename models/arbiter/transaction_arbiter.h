#pragma once
// The stall arbiter of stall_arbiter.h without pins: the same registers (same registry names), the
// same next-state function evaluated at the same edges, but a requester's req and ack are instants
// it passes in a call instead of signals it writes, and its grant wakes it directly.
//
// Why: an arbitrated transaction through pins costs a dozen signal updates and process activations;
// the FlexGripPlus timing makes every instruction fetch one. The pins' sampling rule is kept exactly:
// an input that changes at t is seen at the first edge strictly after t, an ack is seen at exactly
// one edge, req rises again only once the previous grant has fallen (the wrapper's handshake in
// arbitrated_port.cc), and a registry write is acted on at once, as the pin-level model drives its
// pins at once. Its grant and stall statistics are counted as the wrapper counts them on the pins.
//
// Because instants can lie ahead of simulated time, a temporally decoupled requester does not have
// to synchronise before asking: acquire(i, at) posts req[i] rising at `at`, blocks until the grant,
// and release(i, at) posts the ack (and req falling) at `at`, the end of the hold, without waiting.
#include <systemc>

#include <cstdint>
#include <string>
#include <vector>

#include "models/arbiter/stall_arbiter.h"
#include "models/common/clock.h"
#include "models/common/registry.h"

namespace gpuvp {

class TransactionArbiter : public sc_core::sc_module, public StallArbiterLogic {
 public:
  TransactionArbiter(sc_core::sc_module_name name, unsigned n, const Clock& clock, Registry& reg,
                     const std::string& path, bool sequential = false);
  SC_HAS_PROCESS(TransactionArbiter);

  unsigned size() const { return n_; }
  // Called from requester i's thread: req[i] rises at `at` (>= now; later if i's previous grant is
  // still high then, or its previous ack is still to come); returns at the edge that grants it.
  void acquire(unsigned i, const sc_core::sc_time& at);
  // Requester i's ack pulse (and req falling) at `at` (>= now).
  void release(unsigned i, const sc_core::sc_time& at);
  // As measured on the pins; a stall in progress counts up to the current cycle.
  ArbiterPortStats stats(unsigned i) const;
  uint64_t evaluations() const { return evaluations_; }
  // The ports' posted instants relative to `now` (ps), and the pins as last driven (Registry::add_timing).
  uint64_t timing_digest(uint64_t now) const;

 private:
  // Instants are sc_time ticks: this runs for every arbitrated transaction.
  struct Port {
    bool req = false;  // req is high on [rise, fall)
    uint64_t rise = 0, fall = 0;
    uint64_t held_until = 0;  // and, for the previous transaction, up to this instant
    bool want = false;  // asked at want_at while the grant was high: rises when it falls
    uint64_t want_at = 0;
    bool ack = false;  // ack pulse written at ack_at
    uint64_t ack_at = 0;
    uint64_t free_at = 0;  // the last ack: the next req rises no earlier (a fault may drop the grant sooner)
    bool waiting = false;  // the requester's thread waits for the grant
    sc_core::sc_event granted;
    PortCounter pins;  // the grant and stall pins as last driven, and their statistics
  };

  void process();
  void drive(uint64_t now);
  void schedule(uint64_t now);
  void settle(uint64_t t);
  void sample(uint64_t edge, uint64_t& req, uint64_t& ack) const;
  void raise(Port& p, uint64_t at);
  void wake() { wake_ev_.notify(sc_core::SC_ZERO_TIME); }
  static uint64_t ticks() { return sc_core::sc_time_stamp().value(); }
  uint64_t next_edge(uint64_t t) const { return (t / period_ + 1) * period_; }

  Clock clock_;
  uint64_t period_;  // ticks
  std::vector<Port> ports_;
  uint64_t grant_pins_ = 0, stall_pins_ = 0;  // the registers as last driven
  sc_core::sc_event wake_ev_;
  EdgeTimer edge_;
  uint64_t evaluations_ = 0;
};

}  // namespace gpuvp
