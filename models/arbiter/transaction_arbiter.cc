#include "models/arbiter/transaction_arbiter.h"

#include <algorithm>

#include "models/common/digest.h"
#include "models/common/log.h"

namespace gpuvp {

namespace {
constexpr uint64_t kNever = ~uint64_t{0};
}

TransactionArbiter::TransactionArbiter(sc_core::sc_module_name name, unsigned n, const Clock& clock, Registry& reg,
                                       const std::string& path, bool sequential)
    : sc_core::sc_module(name),
      StallArbiterLogic(n, reg, path, sequential, [this] { wake(); }),
      clock_(clock),
      period_(clock.period().value()),
      ports_(n),
      edge_(clock) {
  SC_METHOD(process);
  sensitive << wake_ev_ << edge_.event();
  dont_initialize();
}

void TransactionArbiter::raise(Port& p, uint64_t at) {
  if (p.req) p.held_until = p.fall;  // the previous transaction's req may not have fallen yet
  p.req = true;
  p.rise = at;
  p.fall = kNever;
  p.want = false;
}

void TransactionArbiter::acquire(unsigned i, const sc_core::sc_time& at) {
  Port& p = ports_[i];
  p.waiting = true;
  // A back-to-back request must not ride on the previous grant (arbitrated_port.cc).
  if (p.pins.grant()) {  // the edge that drops the grant raises req: nothing to schedule before it
    p.want = true;
    p.want_at = at.value();
  } else {
    raise(p, std::max<uint64_t>(at.value(), p.free_at));
    settle(p.rise);
  }
  while (p.waiting) sc_core::wait(p.granted);
}

void TransactionArbiter::release(unsigned i, const sc_core::sc_time& at) {
  Port& p = ports_[i];
  p.ack = true;
  p.ack_at = p.free_at = at.value();
  if (p.req && p.fall > p.ack_at) p.fall = p.ack_at;
  settle(p.ack_at);
}

// The pins as a flip-flop samples them at `edge`: what they were just before it.
void TransactionArbiter::sample(uint64_t edge, uint64_t& rq, uint64_t& ak) const {
  rq = 0;
  ak = 0;
  for (unsigned i = 0; i < n_; ++i) {
    const Port& p = ports_[i];
    if ((p.req && p.rise < edge && p.fall >= edge) || p.held_until >= edge) rq |= uint64_t{1} << i;
    if (p.ack && p.ack_at < edge && edge <= p.ack_at + period_) ak |= uint64_t{1} << i;
  }
}

void TransactionArbiter::process() {
  const uint64_t now = ticks();
  if (edge_.take(now)) {
    ++evaluations_;
    uint64_t rq, ak;
    sample(now, rq, ak);
    const Regs x = next(r_, rq, ak);
    if (reg_.recording()) note_edge(r_, x, rq, ak, now);
    if (x.grant != r_.grant)
      log::debug(path_, "cycle {}: grant {:#x} -> {:#x}, stall {:#x}", now / period_, r_.grant, x.grant, x.stall);
    r_ = x;
  }
  drive(now);
  schedule(now);
}

// What the pins would do with the registers as they are now: the wrapper's handshake and counters.
// Only a requester whose grant or stall changes has anything to do.
void TransactionArbiter::drive(uint64_t now) {
  uint64_t changed = (r_.grant ^ grant_pins_) | (r_.stall ^ stall_pins_);
  if (!changed) return;
  grant_pins_ = r_.grant;
  stall_pins_ = r_.stall;
  const uint64_t cyc = now / period_;
  for (; changed; changed &= changed - 1) {
    const unsigned i = unsigned(__builtin_ctzll(changed));
    Port& p = ports_[i];
    const bool g = r_.grant >> i & 1u, s = r_.stall >> i & 1u;
    const bool was_granted = p.pins.grant();
    p.pins.observe(g, s, cyc);
    if (was_granted && !g && p.want) raise(p, std::max({p.want_at, now, p.free_at}));
    // A grant rising (a fault) before a posted req does: the requester will see it high and wait.
    if (!was_granted && g && p.req && p.rise > now) {
      p.req = false;
      p.want = true;
      p.want_at = p.rise;
    }
    // (While `want`, req and the grant are still the previous transaction's.)
    if (p.waiting && g && !p.want && p.req && p.rise <= now && p.fall > now) {
      p.waiting = false;
      p.granted.notify();
    }
  }
}

// An input changes at `t`: it is first seen at the edge after t, so an evaluation already asked for
// by then will look again (schedule) in time.
void TransactionArbiter::settle(uint64_t t) {
  if (!edge_.pending_by(next_edge(t))) schedule(ticks());
}

// Sleep to the first edge at which a register can change: the next one if the inputs as they will
// be sampled there change something, else the first edge after an input's next change.
void TransactionArbiter::schedule(uint64_t now) {
  const uint64_t e1 = next_edge(now);
  uint64_t rq, ak;
  sample(e1, rq, ak);
  if (next(r_, rq, ak) != r_) {
    edge_.request_at(e1, now);
    return;
  }
  uint64_t change = kNever;
  auto consider = [&](uint64_t t) {
    if (t >= e1 && t < change) change = t;
  };
  for (const Port& p : ports_) {
    if (p.req) {
      consider(p.rise);
      consider(p.fall);
    }
    if (p.ack) consider(p.ack_at);
    consider(p.held_until);
  }
  if (change != kNever) edge_.request_at(next_edge(change), now);
}

// What the next edges sample (sample, schedule, drive): an ack is seen up to a period after it was
// written, every other instant only from now on, so instants more than a period old are history. A
// req whose fall is history is no req; the pins' statistics are not timing.
uint64_t TransactionArbiter::timing_digest(uint64_t now) const {
  const uint64_t floor = now > period_ ? now - period_ : 0;
  uint64_t h = digest_fold(grant_pins_, stall_pins_);
  for (const Port& p : ports_) {
    const bool req = p.req && p.fall >= floor;
    h = digest_fold(h, req ? digest_instant(p.rise, floor) : 0);
    h = digest_fold(h, req ? digest_instant(p.fall, floor) : 0);
    h = digest_fold(h, p.ack ? digest_instant(p.ack_at, floor) : 0);
    h = digest_fold(h, p.want ? digest_instant(p.want_at, floor) + 1 : 0);
    h = digest_fold(h, digest_instant(p.held_until, floor));
    h = digest_fold(h, digest_instant(p.free_at, floor));
    h = digest_fold(h, p.waiting);
  }
  return h;
}

ArbiterPortStats TransactionArbiter::stats(unsigned i) const {
  const Port& p = ports_.at(i);
  return p.pins.at(ticks() / period_);
}

}  // namespace gpuvp
