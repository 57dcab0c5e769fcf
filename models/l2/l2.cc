#include "models/l2/l2.h"

#include <algorithm>

#include "models/common/hold_extension.h"
#include "models/memory/atomic_extension.h"

namespace gpuvp {

L2Cache::L2Cache(sc_core::sc_module_name name, const L2Config& cfg, Registry& reg, const std::string& path)
    : sc_module(name), cfg_(cfg), cache_(cfg.geometry, cfg.timing, [this](const NextAccess& n) { return next(n); }) {
  in.register_b_transport(this, &L2Cache::b_transport);
  in.register_transport_dbg(this, &L2Cache::transport_dbg);
  io.register_b_transport(this, &L2Cache::io_transport);
  io.register_transport_dbg(this, &L2Cache::io_dbg);
  cache_.register_state(reg, path, [this] { return std::max<uint64_t>(sc_core::sc_time_stamp().value(), requester_ps_); },
                        cfg.clock.period().value());
}

// The first cycle at or after t.
uint64_t L2Cache::cycle_at(const sc_core::sc_time& t) const {
  const uint64_t pv = cfg_.clock.period().value();
  return (t.value() + pv - 1) / pv;
}

tlm_utils::simple_initiator_socket<L2Cache>* L2Cache::route(uint64_t addr, uint64_t len) {
  auto inside = [&](uint64_t base, uint64_t size) { return addr >= base && addr - base < size && len <= size - (addr - base); };
  if (inside(cfg_.gmem_base, cfg_.gmem_size)) return &gmem;
  if (inside(cfg_.sysmem_base, cfg_.sysmem_size)) return &sysmem;
  if (inside(cfg_.cmem_base, cfg_.cmem_size)) return &cmem;
  return nullptr;
}

// A fetch or write-back of the cache, timed by the memory from cycle n.at.
uint64_t L2Cache::next(const NextAccess& n) {
  auto* s = route(n.addr, n.len);
  if (!s) {
    failed_ = tlm::TLM_ADDRESS_ERROR_RESPONSE;
    return TimedCache::kFail;
  }
  out_.set_command(n.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  out_.set_address(n.addr);
  out_.set_data_ptr(n.data);
  out_.set_data_length(n.len);
  out_.set_streaming_width(n.len);
  out_.set_byte_enable_ptr(nullptr);
  out_.set_byte_enable_length(0);
  out_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  out_demand_.addr = n.demand_addr;
  out_demand_.len = n.demand_len;
  out_.set_extension(&out_demand_);
  const sc_core::sc_time t = cfg_.clock.at_cycle(n.at), now = sc_core::sc_time_stamp();
  sc_core::sc_time d = t > now ? t - now : sc_core::SC_ZERO_TIME;
  {
    // Made for the requester being served: the memory orders it at that requester's instant.
    const RequesterInstant::Forward stamped(out_, out_instant_, requester_ps_);
    (*s)->b_transport(out_, d);
  }
  out_.clear_extension(&out_demand_);
  if (!out_.is_response_ok()) {
    failed_ = out_.get_response_status();
    return TimedCache::kFail;
  }
  return cycle_at(sc_core::sc_time_stamp() + d);
}

// The requester's instant while the L2 handles p (requester_instant.h), restored after: a call made
// within it (a write-back, another requester after a wait) has its own.
L2Cache::Requester::Requester(L2Cache& l2, const tlm::tlm_generic_payload& p) : l2_(l2), saved_(l2.requester_ps_) {
  l2.requester_ps_ = RequesterInstant::of(p);
}

void L2Cache::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const Requester who(*this, p);
  const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
  const uint64_t at = cycle_at(arrival), addr = p.get_address();
  const unsigned len = p.get_data_length();
  auto* s = route(addr, len);
  AtomicExtension* atom = nullptr;
  p.get_extension(atom);
  if (!s || atom || p.get_byte_enable_ptr()) {
    // Atomics are performed at the memory: the L2's copy of the line goes back first and is dropped.
    if (s) cache_.clean(addr, addr + len, true, at);
    if (!s) p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    else (*s)->b_transport(p, delay);
    return;
  }
  DemandExtension* demand = nullptr;
  p.get_extension(demand);
  const uint64_t daddr = demand ? demand->addr : addr;
  const unsigned dlen = demand ? demand->len : len;
  if (s == &gmem && dlen && cfg_.gmem_allows && !cfg_.gmem_allows(daddr, dlen)) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  failed_ = tlm::TLM_OK_RESPONSE;
  const uint64_t done = p.is_write() ? cache_.write(addr, p.get_data_ptr(), len, at)
                                     : cache_.read(addr, p.get_data_ptr(), len, at, daddr, dlen);
  if (done == TimedCache::kFail) {
    p.set_response_status(failed_ == tlm::TLM_OK_RESPONSE ? tlm::TLM_GENERIC_ERROR_RESPONSE : failed_);
    return;
  }
  delay = cfg_.clock.at_cycle(done) - sc_core::sc_time_stamp();
  HoldExtension* hold = nullptr;
  p.get_extension(hold);
  if (hold) {
    const sc_core::sc_time acc = cfg_.clock.at_cycle(cache_.accepted());
    hold->valid = true;
    hold->hold = acc > arrival ? acc - arrival : sc_core::SC_ZERO_TIME;
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

// A debug read sees what a timed read would: the memory's bytes with the L2's valid sectors over
// them. A debug write goes to the memory after the L2 has written back and dropped its lines.
unsigned L2Cache::transport_dbg(int, tlm::tlm_generic_payload& p) {
  const Requester who(*this, p);
  auto* s = route(p.get_address(), p.get_data_length());
  if (!s) return 0;
  if (p.is_write()) snoop(p, cycle_at(sc_core::sc_time_stamp()));
  const unsigned n = (*s)->transport_dbg(p);
  if (p.is_read() && n == p.get_data_length()) cache_.overlay(p.get_address(), p.get_data_ptr(), n);
  return n;
}

// Host and copy-engine accesses: the dirty sectors they overlap reach the memory first; lines they
// write are dropped (the next access refills them with the new bytes).
void L2Cache::snoop(const tlm::tlm_generic_payload& p, uint64_t at) {
  const uint64_t a = p.get_address();
  cache_.clean(a, a + p.get_data_length(), p.is_write(), at);
}

void L2Cache::io_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const Requester who(*this, p);
  auto* s = route(p.get_address(), p.get_data_length());
  if (!s) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  snoop(p, cycle_at(sc_core::sc_time_stamp() + delay));
  (*s)->b_transport(p, delay);
}

unsigned L2Cache::io_dbg(int, tlm::tlm_generic_payload& p) {
  const Requester who(*this, p);
  auto* s = route(p.get_address(), p.get_data_length());
  if (!s) return 0;
  snoop(p, cycle_at(sc_core::sc_time_stamp()));
  return (*s)->transport_dbg(p);
}

}  // namespace gpuvp
