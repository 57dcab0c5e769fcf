#pragma once
// Helpers of the exported entry points: every call runs inside call(), which turns what went wrong
// into the cudaError_t CUDA returns, records it as the thread's last error and prints one line naming
// the call and the reason on stderr (CUDA itself only returns the code).
#include <stdexcept>
#include <string>
#include <utility>

#include "cudart/cuda_types.h"
#include "cudart/session.h"
#include "cudart/state.h"
#include "cudart/turns.h"

// Every name the application can reach has this: the version script (libcudart.map) keeps only these.
#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))
// The per-thread default stream variants nvcc's --default-stream per-thread calls (_ptsz, _ptds) are
// the same functions: the per-thread default stream is the platform's NULL stream (docs/cuda.md).
#define CUDART_ALIAS(name, target) CUDART_EXPORT decltype(target) name __attribute__((alias(#target)));

namespace gpuvp::cudart {

// An error the API layer decides itself (bad arguments): CUDA's code and why.
class CudaError : public std::runtime_error {
 public:
  CudaError(Error code, const std::string& why) : std::runtime_error(why), code_(code) {}
  Error code() const { return code_; }

 private:
  Error code_;
};

// The code for the exception being handled; `misuse` is the code of a refusal by the C++ runtime
// (rt::RuntimeError: a bad range, a bad launch). Device errors become sticky.
Error current_error(const char* api, Error misuse);

// True on the thread running a host function of a stream (cudaLaunchHostFunc, cudaStreamAddCallback):
// CUDA forbids CUDA calls there, and here the simulation is waiting for the function to return.
bool& in_host_function();

template <typename F>
int call(const char* api, F&& f, Error misuse = kErrorInvalidValue) {
  try {
    if (in_host_function())
      throw CudaError(kErrorNotPermitted, "a CUDA call inside a host function of a stream (cudaLaunchHostFunc, cudaStreamAddCallback)");
    const Turn turn;  // the application's threads are served in a deterministic order (turns.h)
    State& s = State::get();
    if (s.sticky != kSuccess) return last_error() = s.sticky;
    f();
    return kSuccess;
  } catch (...) {
    return current_error(api, misuse);
  }
}

// A call the platform does not support (the generated stubs, cudart/unsupported.cmake): one line on
// stderr naming it; cudaErrorNotSupported, recorded as the thread's last error.
Error unsupported(const char* api);

// Runs fn(runtime) on the simulation (Session::call).
template <typename F>
void on_device(F&& fn) {
  Session::get().call(std::forward<F>(fn));
}

inline void require(bool ok, Error code, const std::string& why) {
  if (!ok) throw CudaError(code, why);
}

rt::Stream stream_of(const void* handle);  // 0 for the default stream (NULL, legacy 0x1, per-thread 0x2)
EventRecord& event_of(const void* handle);
inline uint64_t dev(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace gpuvp::cudart
