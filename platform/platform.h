#pragma once
// Builds a platform from a configuration, wires it, and runs a host program on it.
// SystemC elaborates once per process: build one Platform per process.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/common/registry.h"
#include "models/sm/sm_config.h"
#include "platform/config/config.h"
#include "sw/runtime/host_interface.h"
#include "sw/runtime/runtime.h"

namespace gpuvp {

struct ArbiterStats {
  std::string name;
  std::vector<uint64_t> grants;         // per requester
  std::vector<uint64_t> stall_cycles;   // per requester
};

struct PlatformStats {
  double sim_seconds = 0;      // simulated time at the end of the host program
  uint64_t kernel_cycles = 0;  // GPU cycles inside kernels (scheduler out of IDLE)
  double host_seconds = 0;     // wall-clock time of run()
  std::vector<SmStats> sms;
  std::vector<double> sm_busy_fraction;  // busy time / kernel time
  std::vector<ArbiterStats> arbiters;
  std::vector<rt::LaunchStats> launches;
  uint64_t thread_insts = 0;
  nlohmann::json to_json() const;
};

// The run did not finish within sim.timeout_ms of simulated time.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PlatformImpl;

class Platform {
 public:
  explicit Platform(const Config& cfg);
  ~Platform();

  Registry& registry();
  const rt::DeviceProps& props() const;
  const Config& config() const;

  // Waveforms of the scheduler, arbiters and SM handshakes; call before run().
  void trace_vcd(const std::string& path_without_extension);

  // Runs `host` in the host thread (it drives the GPU through the runtime) and returns when it
  // has returned and the simulation has stopped. Exceptions thrown by `host` are rethrown here.
  void run(const std::function<void(rt::Runtime&)>& host);

  PlatformStats stats() const;
  std::vector<BlockRecord> timeline() const;  // every block of every kernel, in start order

 private:
  std::unique_ptr<PlatformImpl> impl_;
};

// Chrome trace-event JSON (Perfetto / chrome://tracing) of the block timeline.
nlohmann::json timeline_trace_events(const std::vector<BlockRecord>& blocks, const std::vector<rt::LaunchStats>& launches);

}  // namespace gpuvp
