#include "models/host_bus/host_bus.h"

#include <cmath>

namespace gpuvp {

HostBus::HostBus(sc_core::sc_module_name name, const HostBusConfig& cfg) : sc_module(name), cfg_(cfg) {
  in.register_b_transport(this, &HostBus::b_transport);
  in.register_transport_dbg(this, &HostBus::transport_dbg);
}

void HostBus::add_range(uint64_t base, uint64_t size, const std::string& name) { ranges_.push_back({base, size, name}); }

int HostBus::route(uint64_t a, uint64_t n) const {
  for (size_t i = 0; i < ranges_.size(); ++i) {
    const Range& r = ranges_[i];
    if (a >= r.base && a - r.base < r.size && n <= r.size - (a - r.base)) return static_cast<int>(i);
  }
  return -1;
}

void HostBus::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  int i = route(p.get_address(), p.get_data_length());
  if (i < 0) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  ++transactions_;
  bytes_ += p.get_data_length();
  double ns = cfg_.latency_ns + p.get_data_length() / cfg_.bytes_per_ns;
  delay += sc_core::sc_time(std::ceil(ns), sc_core::SC_NS);
  out[i]->b_transport(p, delay);
}

unsigned HostBus::transport_dbg(tlm::tlm_generic_payload& p) {
  int i = route(p.get_address(), p.get_data_length());
  if (i < 0) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  return out[i]->transport_dbg(p);
}

}  // namespace gpuvp
