#pragma once
// What the replacement CUDA runtime (cudart/) reads from the environment and `gpuvp cuda` checks
// before the program starts (docs/cuda.md, "Configuration"): one reading serves both, so that a bad
// value is exit 2 at once under `gpuvp cuda`, not a failed first CUDA call.
#include <string>
#include <vector>

namespace gpuvp {

// GPUVP_SET's list: split on ';' or newlines when it has any (values may then hold commas, as log.modules
// lists do), else on ','.
std::vector<std::string> split_sets(const std::string& text);
// The non-empty pieces of `text` between `sep`s (GPUVP_CONFIG's ':'-separated files).
std::vector<std::string> split_list(const std::string& text, char sep);
// The variable's value; empty when unset.
std::string env_text(const char* name);

// The numbers and switches among them; ConfigError naming the variable for a bad one.
struct CudaEnvNumbers {
  double poll_ns = 1000;         // GPUVP_POLL_NS: simulated time a polling call lets pass, [0.001, 1e9]
  double thread_grace_ms = 100;  // GPUVP_THREAD_GRACE_MS: how long a call waits for other threads, [0, 1e9]
  bool single_thread = false;    // GPUVP_SINGLE_THREAD: 1 or 0
  static CudaEnvNumbers read();
};

}  // namespace gpuvp
