#include "models/arbiter/stall_arbiter.h"

#include <stdexcept>

#include "models/common/log.h"

namespace gpuvp {

namespace {
unsigned clog2(unsigned n) {
  unsigned w = 0;
  while ((1u << w) < n) ++w;
  return w;
}
unsigned lowest_bit(uint64_t v) {
  for (unsigned i = 0; i < 64; ++i)
    if (v >> i & 1u) return i;
  return 0;
}
}  // namespace

StallArbiterLogic::StallArbiterLogic(unsigned n, Registry& reg, const std::string& path, bool sequential,
                                     std::function<void()> wake)
    : n_(n),
      path_(path),
      sequential_(sequential),
      last_width_(std::max(1u, clog2(n))),
      all_(n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)),
      reg_(reg) {
  if (n == 0 || n > 64) throw std::invalid_argument(fmt::format("{}: arbiter needs 1..64 requesters, got {}", path, n));
  r_.last = n - 1;  // the first pick scans from requester 0
  reg.add_field(path + ".state", 2, &r_.state, wake);
  reg.add_field(path + ".last", last_width_, &r_.last, wake);
  reg.add_field(path + ".grant", n, &r_.grant, wake);
  reg.add_field(path + ".stall", n, &r_.stall, wake);
  read_always(reg.at_mut(path + ".state"));
  read_always(reg.at_mut(path + ".grant"));
  for (const Target** t : {&t_last_, &t_stall_}) {
    Target& g = reg.at_mut(path + (t == &t_last_ ? ".last" : ".stall"));
    g.reads_observed = true;
    *t = &g;
  }
}

void StallArbiterLogic::note_edge(const Regs& r, const Regs& x, uint64_t rq, uint64_t ak, uint64_t t) {
  reg_.note(*t_stall_, 0, Access::Write, t);
  rq &= all_;
  if (r.state == REQUESTED && rq) reg_.note(*t_last_, 0, Access::Read, t);
  // The sequential search's step (REQUESTED, last' = last + 1 after reading it), or an ack's edge
  // (last' = the granted requester, whatever last held).
  if ((r.state == REQUESTED && rq && x.last != r.last) || (r.state == WAITING_ACK && (ak & all_ & r.grant)))
    reg_.note(*t_last_, 0, Access::Write, t);
}

StallArbiter::StallArbiter(sc_core::sc_module_name name, unsigned n, const Clock& clock, Registry& reg,
                           const std::string& path, bool sequential)
    : StallArbiterCore(name, n),
      StallArbiterLogic(n, reg, path, sequential, [this] { wake(); }),
      clock_(clock),
      edge_(clock),
      counters_(n) {
  SC_METHOD(process);  // runs once at time 0: drives the reset outputs
  // A falling ack changes nothing by itself (the edge that saw it high already acted): only its rise wakes.
  for (unsigned i = 0; i < n; ++i) sensitive << req[i] << ack[i].pos();
  sensitive << wake_ev_ << edge_.event();
}

void StallArbiter::sample(uint64_t& rq, uint64_t& ak) const {
  rq = 0;
  ak = 0;
  for (unsigned i = 0; i < n_; ++i) {
    if (req[i].read()) rq |= uint64_t{1} << i;
    if (ack[i].read()) ak |= uint64_t{1} << i;
  }
}

StallArbiterLogic::Regs StallArbiterLogic::next(const Regs& r, uint64_t rq, uint64_t ak) const {
  Regs x = r;
  rq &= all_;
  ak &= all_;
  switch (r.state) {
    case REQUESTED:
      if (rq && sequential_ && !(rq >> ((uint64_t{r.last} + 1) % n_) & 1u)) {  // not this one: look at the next
        x.last = static_cast<uint32_t>((uint64_t{r.last} + 1) % n_);
        x.grant = 0;
        x.stall = rq;
      } else if (rq) {
        unsigned p = 0;
        for (unsigned j = 1; j <= n_; ++j) {
          unsigned i = static_cast<unsigned>((uint64_t{r.last} + j) % n_);
          if (rq >> i & 1u) {
            p = i;
            break;
          }
        }
        x.grant = uint64_t{1} << p;
        x.stall = rq & ~x.grant;
        x.state = WAITING_ACK;
      } else {
        x.grant = 0;
        x.stall = 0;
        x.state = IDLE;
      }
      break;
    case WAITING_ACK:
      if (ak & r.grant) {
        x.last = lowest_bit(r.grant);
        uint64_t pend = rq & ~r.grant;
        x.grant = 0;
        x.stall = pend;
        x.state = pend ? REQUESTED : IDLE;
      } else {
        x.stall = rq & ~r.grant;
      }
      break;
    default:  // IDLE (and the unused encoding 3)
      x.state = rq ? REQUESTED : IDLE;
      x.grant = 0;
      x.stall = rq;
      break;
  }
  x.grant &= all_;
  x.stall &= all_;
  return x;
}

void StallArbiter::process() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  uint64_t rq, ak;
  sample(rq, ak);
  if (edge_.take()) {
    ++evaluations_;
    Regs x = next(r_, rq, ak);
    if (reg_.recording()) note_edge(r_, x, rq, ak, now.value());
    uint64_t cyc = clock_.cycle(now);
    for (unsigned i = 0; i < n_; ++i) counters_[i].observe(x.grant >> i & 1u, x.stall >> i & 1u, cyc);
    if (x.grant != r_.grant)
      log::debug(path_, "cycle {}: grant {:#x} -> {:#x}, stall {:#x}", cyc, r_.grant, x.grant, x.stall);
    r_ = x;
  }
  drive();
  // Sleep unless the next edge would change something with the inputs as they are now.
  if (next(r_, rq, ak) != r_) {
    edge_.request();
  }
}

void StallArbiter::drive() {
  for (unsigned i = 0; i < n_; ++i) {
    bool g = r_.grant >> i & 1u, s = r_.stall >> i & 1u;
    if (grant[i].read() != g) grant[i].write(g);
    if (stall[i].read() != s) stall[i].write(s);
  }
}

ArbiterPortStats StallArbiter::stats(unsigned i) const {
  return counters_.at(i).at(clock_.cycle(sc_core::sc_time_stamp()));
}

}  // namespace gpuvp
