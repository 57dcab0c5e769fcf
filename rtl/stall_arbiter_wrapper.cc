#include "rtl/stall_arbiter_wrapper.h"

#include <stdexcept>

#include "models/common/log.h"

namespace gpuvp {

void register_flops(Registry& reg, const rtl::VModel& m, const std::string& path, std::function<void()> on_write) {
  for (const rtl::Flop& f : m.flops()) {
    Target t;
    t.name = path + "." + f.name;
    t.width = f.var.width();
    rtl::Var v = f.var;
    t.get = [v](uint64_t) { return v.get(); };
    t.set = [v](uint64_t, uint64_t x) mutable { v.set(x); };
    t.on_write = on_write;
    reg.add(std::move(t));
  }
}

void trace_flops(sc_core::sc_trace_file* tf, const rtl::VModel& m, const std::string& prefix) {
  for (const rtl::Flop& f : m.flops()) {
    const std::string nm = prefix + f.name;
    const int w = static_cast<int>(f.var.width());
    switch (f.var.bytes()) {
      case 1: sc_core::sc_trace(tf, *static_cast<const unsigned char*>(f.var.data()), nm, w); break;
      case 2: sc_core::sc_trace(tf, *static_cast<const unsigned short*>(f.var.data()), nm, w); break;
      case 4: sc_core::sc_trace(tf, *static_cast<const unsigned int*>(f.var.data()), nm, w); break;
      default: sc_core::sc_trace(tf, *static_cast<const sc_dt::uint64*>(f.var.data()), nm, w); break;
    }
  }
}

RtlStallArbiter::RtlStallArbiter(sc_core::sc_module_name name, unsigned n, const Clock& clock, Registry& reg,
                                 const std::string& path, bool sequential)
    : StallArbiterCore(name, n), n_(n), clock_(clock), path_(path), edge_(clock), reg_(reg) {
  if (n == 0 || n > rtl::max_arbiter_requesters())
    throw std::invalid_argument(
        fmt::format("{}: RTL arbiter needs 1..{} requesters, got {}", path, rtl::max_arbiter_requesters(), n));
  m_ = rtl::make_stall_arbiter(n, this->name());
  req_in_ = m_->port("req");
  ack_in_ = m_->port("ack");
  seq_in_ = m_->port("sequential");
  seq_in_.set(sequential ? 1 : 0);  // a strap: tied off for the life of the design
  grant_ff_ = m_->signal("grant");
  stall_ff_ = m_->signal("stall");
  m_->power_on_reset();
  snap_.assign(m_->flops().size(), 0);
  rtl::flops_changed(*m_, snap_);
  register_flops(reg, *m_, path, [this] { wake(); });
  read_always(reg.at_mut(path + ".state"));
  read_always(reg.at_mut(path + ".grant"));
  acc_ = std::make_unique<rtl::FlopAccesses>(*m_, reg, path, clock.period().value(), std::vector<std::string>{"last", "stall"},
                                             std::vector<std::string>{}, "state");

  SC_METHOD(process);  // runs once at time 0: drives the reset outputs
  // A falling ack changes nothing by itself (the edge that saw it high already acted): only its rise wakes.
  for (unsigned i = 0; i < n; ++i) sensitive << req[i] << ack[i].pos();
  sensitive << wake_ev_ << edge_.event();
}

void RtlStallArbiter::process() {
  const bool at_edge = edge_.take();
  if (at_edge) {
    ++evaluations_;
    uint64_t rq = 0, ak = 0;
    for (unsigned i = 0; i < n_; ++i) {
      if (req[i].read()) rq |= uint64_t{1} << i;
      if (ack[i].read()) ak |= uint64_t{1} << i;
    }
    req_in_.set(rq);
    ack_in_.set(ak);
    if (reg_.recording()) acc_->before_edge(sc_core::sc_time_stamp().value());
  }
  rtl::gated_step(*m_, snap_, edge_, at_edge, [this] { drive(); });
}

// The edges skipped after the last evaluated one keep its fates up to the end of the run.
void RtlStallArbiter::end_of_simulation() {
  acc_->finish(sc_core::sc_time_stamp().value());
}

void RtlStallArbiter::drive() {
  const uint64_t g = grant_ff_.get(), s = stall_ff_.get();
  for (unsigned i = 0; i < n_; ++i) {
    bool gi = g >> i & 1u, si = s >> i & 1u;
    if (grant[i].read() != gi) grant[i].write(gi);
    if (stall[i].read() != si) stall[i].write(si);
  }
}

void RtlStallArbiter::trace(sc_core::sc_trace_file* tf, const std::string& prefix) const { trace_flops(tf, *m_, prefix); }

}  // namespace gpuvp
