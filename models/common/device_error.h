#pragma once
// A run-time error the platform detected (bad address, undecodable instruction, barrier
// divergence, TLM error response...). It stops the kernel and reaches the host runtime, which
// throws it as an exception; fault-injection campaigns classify it as DUE.
#include <systemc>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpuvp {

struct DeviceErrorInfo {
  std::string kind;     // "address", "misaligned", "decode", "barrier", "trap", "tlm", "resource", ...
  std::string message;  // complete human-readable message
  std::string kernel;
  uint64_t pc = 0;
  int sm = -1;
  int64_t block = -1;   // linear block index
  int warp = -1;
  int lane = -1;
  uint64_t address = 0;
};

class DeviceError : public std::runtime_error {
 public:
  explicit DeviceError(DeviceErrorInfo info) : std::runtime_error(info.message), info_(std::move(info)) {}
  const DeviceErrorInfo& info() const { return info_; }

 private:
  DeviceErrorInfo info_;
};

// Where models report detected errors; the runtime waits on `event` next to kernel_done.
struct ErrorSink {
  std::optional<DeviceErrorInfo> first;  // the first error wins; later ones are consequences
  sc_core::sc_event event;
  void report(const DeviceErrorInfo& e) {
    if (!first) {
      first = e;
      event.notify(sc_core::SC_ZERO_TIME);
    }
  }
};

}  // namespace gpuvp
