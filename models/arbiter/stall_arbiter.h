#pragma once
// Pin-level stall arbiter of block-scheduler.md: N requesters, round robin, no request lost.
//
// Pins (per requester i): req[i] (in), ack[i] (in), grant[i] (out), stall[i] (out).
//
// ---------------------------------------------------------------------------------------------
// Cycle timing (the RTL in rtl/ must match it edge for edge)
// ---------------------------------------------------------------------------------------------
// Rising edges are at k*T (Clock). The arbiter is a Moore machine: every output is a flip-flop.
// An input that changes at time t with k*T <= t < (k+1)*T is sampled at edge k+1 (the value seen
// at edge k is the value the signal had just before time k*T, exactly like a flip-flop). Outputs
// computed at edge k change at time k*T (visible one delta later).
//
// Registers (registry names, widths):
//   <path>.state  2 bits   0 IDLE, 1 REQUESTED, 2 WAITING_ACK (3 behaves as IDLE)
//   <path>.last   W bits   index of the last requester served, W = max(1, ceil(log2 N)); reset N-1
//   <path>.grant  N bits   one-hot grant register, drives grant[i]; reset 0
//   <path>.stall  N bits   drives stall[i]; reset 0
// Next-state equations at an edge, with req/ack the values sampled at that edge:
//   IDLE:        state' = req ? REQUESTED : IDLE;   grant' = 0;   stall' = req
//   REQUESTED:   if req: p = first i in (last+1, last+2, ..., last+N) mod N with req[i]
//                        grant' = 1<<p; stall' = req & ~grant'; state' = WAITING_ACK
//                        (sequential search: only i = (last+1) mod N is looked at; if it does
//                        not request, last' = i, grant' = 0, stall' = req and the arbiter stays
//                        in REQUESTED: one requester per cycle, so idle requesters cost time)
//                else    grant' = 0; stall' = 0; state' = IDLE
//   WAITING_ACK: if (ack & grant) != 0: last' = index of the lowest set bit of grant;
//                        pend = req & ~grant; grant' = 0; stall' = pend;
//                        state' = pend ? REQUESTED : IDLE
//                else    stall' = req & ~grant   (grant, last, state held)
// Requester protocol: raise req and hold it until it pulses ack (ack high for exactly one cycle,
// while or after the grant is high); req may drop in the same cycle ack rises. A req[i] seen at
// the ack edge of requester i is not a new request (it is masked); a new request of i is
// considered from the following edge on, after the requesters that were already waiting.
//
// Worked timing: req rises in [ (k-1)T, kT ) -> stall high at kT (IDLE->REQUESTED) ->
// grant high at (k+1)T. The requester holds the grant h cycles and writes ack at (k+1+h)T ->
// ack sampled at edge k+2+h -> grant low at (k+2+h)T; the next waiting requester's grant rises at
// (k+3+h)T. With everyone waiting, consecutive grants are h+2 cycles apart.
// stall[i] is high for exactly the cycles in which requester i's request is seen but not granted:
// "stalled cycles" = number of edges-intervals [aT, bT) with stall high.
//
// Clock gating: the process sleeps until an input changes (or a registry write) and then
// evaluates at the next rising edge strictly after now; after an evaluation it schedules the next
// edge only if that edge would change a register with the inputs as they are. Skipped edges are
// edges at which an RTL evaluating every edge would not change anything: the two are cycle-exact.
#include <systemc>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/common/clock.h"
#include "models/common/registry.h"

namespace gpuvp {

struct ArbiterPortStats {
  uint64_t grants = 0;
  uint64_t stall_cycles = 0;  // cycles with stall[i] high
  // Cycles requester i waited beyond the arbitration cycle: each stall interval minus 1 (not stall - grants:
  // a request first seen while the arbiter is REQUESTED may be granted with no stall). A lone requester
  // waits 0; with arbiter.search = sequential the search's cycles on idle requesters count too.
  uint64_t wait_cycles = 0;
};

// The counters of one requester's grant and stall pins, kept identically by every arbiter model (pin-level,
// transaction-level and the wrapper that watches an RTL core's pins), so that they measure the same thing.
class PortCounter {
 public:
  // The pins as driven at the edge of cycle `cyc` (only changes matter; repeats are harmless).
  void observe(bool grant, bool stall, uint64_t cyc) {
    if (grant && !grant_) ++s_.grants;
    if (stall && !stall_) since_ = cyc;
    if (!stall && stall_) close(s_, cyc);
    grant_ = grant;
    stall_ = stall;
  }
  // The counts at cycle `cyc`, a stall still in progress counted up to it.
  ArbiterPortStats at(uint64_t cyc) const {
    ArbiterPortStats s = s_;
    if (stall_) close(s, cyc);
    return s;
  }
  bool grant() const { return grant_; }
  bool stall() const { return stall_; }

 private:
  void close(ArbiterPortStats& s, uint64_t cyc) const {
    const uint64_t len = cyc - since_;
    s.stall_cycles += len;
    s.wait_cycles += len > 0 ? len - 1 : 0;
  }
  bool grant_ = false, stall_ = false;
  uint64_t since_ = 0;
  ArbiterPortStats s_;
};

// The pins of an arbiter core: the SystemC model below and the Verilated RTL implement them.
class StallArbiterCore : public sc_core::sc_module {
 public:
  sc_core::sc_vector<sc_core::sc_in<bool>> req;
  sc_core::sc_vector<sc_core::sc_in<bool>> ack;
  sc_core::sc_vector<sc_core::sc_out<bool>> grant;
  sc_core::sc_vector<sc_core::sc_out<bool>> stall;

  StallArbiterCore(sc_core::sc_module_name name, unsigned n)
      : sc_core::sc_module(name), req("req", n), ack("ack", n), grant("grant", n), stall("stall", n) {}
  unsigned size() const { return static_cast<unsigned>(req.size()); }
};

// The arbiter's registers and next-state function (the equations above), registered under a path:
// shared by the pin-level model below and the transaction-level one (transaction_arbiter.h).
class StallArbiterLogic {
 public:
  enum State : uint8_t { IDLE = 0, REQUESTED = 1, WAITING_ACK = 2 };

  struct Regs {
    uint8_t state = IDLE;
    uint32_t last = 0;
    uint64_t grant = 0;
    uint64_t stall = 0;
    bool operator==(const Regs& o) const {
      return state == o.state && last == o.last && grant == o.grant && stall == o.stall;
    }
    bool operator!=(const Regs& o) const { return !(*this == o); }
  };

  // n = number of requesters (1..64); the registers are registered under `path` and a registry
  // write calls `wake`. sequential: the round-robin search looks at one requester per cycle.
  StallArbiterLogic(unsigned n, Registry& reg, const std::string& path, bool sequential, std::function<void()> wake);

  const Regs& regs() const { return r_; }
  // The pure next-state function (documented above); public so that tests and the RTL
  // equivalence checker can use it.
  Regs next(const Regs& r, uint64_t req, uint64_t ack) const;
  unsigned last_width() const { return last_width_; }

 protected:
  // Access recording (faultinj/lifetimes.h). `state` (read at every edge) and `grant` (driven to the
  // requesters, who react to any change) are read at every instant; the edge from r to x (with the
  // inputs it sampled, at t_ps) reads `last` when it searches (REQUESTED with a request) and writes it
  // whole when an ack ends a grant or the sequential search moves on; it writes `stall` whole at every
  // edge, and nothing reads `stall` but the pins' statistics.
  void note_edge(const Regs& r, const Regs& x, uint64_t req, uint64_t ack, uint64_t t_ps);

  unsigned n_;
  std::string path_;
  bool sequential_;
  unsigned last_width_;
  uint64_t all_;
  Regs r_;
  Registry& reg_;
  const Target *t_last_ = nullptr, *t_stall_ = nullptr;
};

class StallArbiter : public StallArbiterCore, public StallArbiterLogic {
 public:
  // n = number of requesters (1..64). path = registry prefix, e.g. "gpu.arb_gmem_rd".
  // sequential: the round-robin search looks at one requester per cycle (arbiter.search).
  StallArbiter(sc_core::sc_module_name name, unsigned n, const Clock& clock, Registry& reg, const std::string& path,
               bool sequential = false);
  SC_HAS_PROCESS(StallArbiter);

  // Contention statistics of requester i, including a stall still in progress (up to the
  // current cycle).
  ArbiterPortStats stats(unsigned i) const;
  // Number of edges the model evaluated (clock-gating efficiency; tests check idle costs 0).
  uint64_t evaluations() const { return evaluations_; }

 private:
  void process();
  void sample(uint64_t& req, uint64_t& ack) const;
  void drive();
  void wake() { wake_ev_.notify(sc_core::SC_ZERO_TIME); }

  Clock clock_;
  sc_core::sc_event wake_ev_;
  EdgeTimer edge_;
  uint64_t evaluations_ = 0;
  std::vector<PortCounter> counters_;
};

}  // namespace gpuvp
