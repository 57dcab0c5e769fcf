#pragma once
// The host bus: routes the host's transactions by absolute address to the memories and the
// configuration block, adding the bus latency and transfer time. Targets bind to `out` in the
// order their ranges are added.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <string>
#include <vector>

#include "models/common/params.h"

namespace gpuvp {

struct HostBusConfig {
  double bytes_per_ns = 1.0;
  double latency_ns = 100;

  static HostBusConfig from(const Params& p);  // host_bus_params.cc
};

class HostBus : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<HostBus> in{"in"};
  tlm_utils::multi_passthrough_initiator_socket<HostBus> out{"out"};

  HostBus(sc_core::sc_module_name name, const HostBusConfig& cfg);
  // Adds a range; the target serving it must be bound to `out` as the n-th binding (n = call order).
  void add_range(uint64_t base, uint64_t size, const std::string& name);

  uint64_t transactions() const { return transactions_; }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Range {
    uint64_t base, size;
    std::string name;
  };
  int route(uint64_t addr, uint64_t len) const;
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& p);

  HostBusConfig cfg_;
  std::vector<Range> ranges_;
  uint64_t transactions_ = 0, bytes_ = 0;
};

}  // namespace gpuvp
