#pragma once
// ArbitratedTarget: a stall arbiter in front of a shared TLM-2.0 resource.
//
//   in[0..N-1]  (simple_target_socket_tagged)  <- requesters (SMs, ...)
//   out         (simple_initiator_socket)       -> the shared resource (memory, config block)
//
// A b_transport on in[i]:
//   1. wait(delay) (temporally decoupled callers are synchronised here; delay becomes 0);
//   2. one transaction per requester at a time (a second caller on the same in[i] queues);
//   3. raise req[i], wait for grant[i];
//   4. forward through `out` with a zero delay and a HoldExtension; the resource adds its time to
//      the delay, and the part the resource is busy (all of it, unless a pipelined target says
//      otherwise in the extension) is the time the grant is held;
//   5. return with the resource's whole latency as the delay; at the end of the hold a helper
//      process drops req[i] and raises ack[i] (high for one clock period).
// With the arbiter timing of stall_arbiter.h: a caller arriving at t (first edge strictly after t
// is edge k) is granted at edge k+1 when nobody else is waiting, the resource latency L (a
// multiple of T) elapses, ack is written at (k+1)T+L and sampled one edge later; the next
// requester is granted two edges after the ack was written.
//
// The wrapper talks to a core given by a CoreFactory only through signals (req, ack, grant, stall),
// so the core can be the SystemC model or a Verilated RTL core with the same pins. Without a factory
// it uses the SystemC model without pins (transaction_arbiter.h), cycle-equal and much cheaper: a
// caller is not synchronised first (its req rises at now + delay), and the call returns at the grant
// with the resource's whole latency annotated; the grant is held (and ack pulsed) as above. An
// initiator that needs the instant the port frees attaches a ReleaseExtension (hold_extension.h).
// Statistics (grants, stalled cycles) are measured on the pins, so they are the same for any core.
// transport_dbg is forwarded without arbitration; DMI is refused (it would bypass the arbiter).
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/arbiter/stall_arbiter.h"
#include "models/arbiter/transaction_arbiter.h"
#include "models/common/clock.h"
#include "models/common/hold_extension.h"
#include "models/common/registry.h"

namespace gpuvp {

struct ArbitratedTargetConfig {
  unsigned requesters = 1;
  Clock clock;
  std::string path;  // registry prefix of the arbiter core, e.g. "gpu.arb_gmem_rd"
  bool sequential_search = false;  // StallArbiter's search (stall_arbiter.h)
};

class ArbitratedTarget : public sc_core::sc_module {
 public:
  // Creates the arbiter core (a child module of the wrapper). The default makes a StallArbiter
  // registered under cfg.path.
  using CoreFactory = std::function<std::unique_ptr<StallArbiterCore>(const char* name, unsigned n)>;

  sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<ArbitratedTarget>> in;
  tlm_utils::simple_initiator_socket<ArbitratedTarget> out;

  ArbitratedTarget(sc_core::sc_module_name name, const ArbitratedTargetConfig& cfg, Registry& reg,
                   CoreFactory factory = {});
  SC_HAS_PROCESS(ArbitratedTarget);

  unsigned size() const { return cfg_.requesters; }
  // The pin-level core (a factory was given), else nullptr.
  StallArbiterCore* pin_core() { return core_.get(); }
  // The transaction-level core (no factory), else nullptr.
  TransactionArbiter* transaction_core() { return direct_.get(); }
  // Measured on the pins; a stall in progress counts up to the current cycle.
  ArbiterPortStats stats(unsigned i) const;
  uint64_t transactions(unsigned i) const { return transactions_.at(i); }
  // The handshakes in progress relative to `now` (ps): the core's posted instants without pins, the
  // wrapper's posted acks and callers' flags with them (registered as cfg.path's timing).
  uint64_t timing_digest(uint64_t now) const;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void transport_direct(unsigned i, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void wait_turn(unsigned i);
  void leave(unsigned i);
  sc_core::sc_time forward(unsigned i, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void ack_pins();
  void monitor();

  using Sig = sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS>;
  ArbitratedTargetConfig cfg_;
  std::unique_ptr<StallArbiterCore> core_;
  std::unique_ptr<TransactionArbiter> direct_;
  sc_core::sc_vector<Sig> req_, ack_;
  sc_core::sc_vector<sc_core::sc_signal<bool>> grant_, stall_;
  std::vector<bool> busy_;
  std::vector<std::unique_ptr<sc_core::sc_event>> free_ev_;
  // ack[i]: Posted to rise (and req[i] to fall) at ack_at_[i], then High until ack_at_[i].
  enum AckPin : uint8_t { AckLow, AckPosted, AckHigh };
  std::vector<AckPin> ack_pin_;
  std::vector<sc_core::sc_time> ack_at_;
  sc_core::sc_event ack_ev_;
  std::vector<PortCounter> counters_;  // measured on the core's pins
  std::vector<uint64_t> transactions_;
  // Per-port handshake state between callers and the monitor method (arbitrated_port.cc).
  struct PortFlags {
    std::vector<uint8_t> want_req;    // req to be raised as soon as grant[i] is low
    std::vector<uint8_t> want_grant;  // req raised, caller waits for grant[i]
    std::vector<uint8_t> granted;     // grant seen high: the caller may go on
    std::vector<unsigned> queued;     // callers waiting for the port (busy_)
  };
  PortFlags flags_;
  std::vector<HoldExtension> holds_;
};

}  // namespace gpuvp
