// The host bus's parameters (host.bus_*).
#include "models/common/params.h"
#include "models/host_bus/host_bus.h"

namespace gpuvp {

namespace {
const bool declared = declare_params({
    "host", "gpu.host_bus", "",
    {
        ParamDef::Float("host.bus_bytes_per_ns", 1.0, 0.001, 1000,
                        "Host bus bandwidth (bytes per ns) for copies of the batch mode (the concurrent mode "
                        "copies through its copy engine, copy.*)"),
        ParamDef::Float("host.bus_latency_ns", 100, 0, 1e6, "Host bus latency per transaction (ns)"),
    },
});
}  // namespace

HostBusConfig HostBusConfig::from(const Params& p) {
  (void)declared;
  HostBusConfig c;
  c.bytes_per_ns = p.f("bus_bytes_per_ns");
  c.latency_ns = p.f("bus_latency_ns");
  return c;
}

}  // namespace gpuvp
