#pragma once
// A run-time error the GPU detected (bad address, undecodable instruction, barrier divergence, TLM
// error response...): part of the contract between the device and its software. It stops the
// kernel and reaches the host runtime, which throws it as an exception; fault-injection campaigns
// classify it as DUE. Plain C++: the runtime sees it without SystemC.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuvp {

struct DeviceErrorInfo {
  std::string kind;     // "address", "misaligned", "decode", "barrier", "trap", "tlm", "resource", ...
  std::string message;  // complete human-readable message
  std::string kernel;
  std::string function;  // the .func of pc, when it is in one
  uint64_t pc = 0;
  int sm = -1;
  int64_t block = -1;   // linear block index
  uint64_t launch_id = 0;  // launch (kernel) of that block; 0: unknown
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

}  // namespace gpuvp
