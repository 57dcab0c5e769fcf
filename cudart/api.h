#pragma once
// Helpers of the exported entry points: every call runs inside call(), which turns what went wrong
// into the cudaError_t CUDA returns, records it as the thread's last error and prints one line naming
// the call and the reason on stderr (CUDA itself only returns the code).
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudart/cuda_types.h"
#include "cudart/session.h"
#include "cudart/state.h"
#include "cudart/turns.h"

// Every name the application can reach has this: the version script (libcudart.map) keeps only these.
#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))
// The per-thread default stream variants nvcc's --default-stream per-thread calls (_ptsz, _ptds): the
// plain function run with per_thread_default() set, so that stream 0 is the calling thread's own
// default stream (docs/cuda.md). C++ cannot define a function from decltype(target), so the variant is
// an indirect function (ifunc) whose resolver, run when the library is loaded, names the template's
// instance for `target`.
#define CUDART_PER_THREAD(name, target)                                                                    \
  extern "C" {                                                                                             \
  static decltype(target)* name##_resolve() { return &::gpuvp::cudart::PerThreadVariant<&target>::call; } \
  }                                                                                                        \
  CUDART_EXPORT decltype(target) name __attribute__((ifunc(#name "_resolve")));

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

// True inside a _ptsz/_ptds variant: there stream 0 and the implicit stream of the synchronous calls are
// the calling thread's per-thread default stream, elsewhere the NULL stream (stream_of).
bool& per_thread_default();

template <auto F>
struct PerThreadVariant;
template <typename R, typename... A, R (*F)(A...)>
struct PerThreadVariant<F> {
  static R call(A... a) {
    bool& on = per_thread_default();
    const bool outer = on;
    on = true;
    const R r = F(a...);
    on = outer;
    return r;
  }
};

template <typename F>
int call(const char* api, F&& f, Error misuse = kErrorInvalidValue, bool in_turn = true) {
  try {
    if (in_host_function())
      throw CudaError(kErrorNotPermitted, "a CUDA call inside a host function of a stream (cudaLaunchHostFunc, cudaStreamAddCallback)");
    if (::getpid() != State::get().pid)
      throw CudaError(kErrorInitializationError, "a CUDA call in a child process the program forked (CUDA cannot be "
                                                 "used across fork: the child's calls fail)");
    std::optional<Turn> turn;  // the application's threads are served in a deterministic order (turns.h)
    if (in_turn) turn.emplace();
    State& s = State::get();
    if (s.sticky != kSuccess) return last_error() = s.sticky;
    f();
    return kSuccess;
  } catch (...) {
    return current_error(api, misuse);
  }
}

// A call that reads only the library's own tables, served at once, without a turn: nvcc's launch wrapper
// makes __cudaGetKernel inside a thread-safe static, and a thread parked there in a turn would leave
// the other threads asleep on the static's guard, counted quiescent, the order the OS's.
template <typename F>
int call_at_once(const char* api, F&& f) {
  return call(api, std::forward<F>(f), kErrorInvalidValue, false);
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

// The platform's stream a handle names: NULL is the default stream (the NULL stream, or in a _ptsz/_ptds
// variant the thread's per-thread stream), cudaStreamLegacy (0x1) the NULL stream, cudaStreamPerThread
// (0x2) the calling thread's per-thread stream, created at its first use.
rt::Stream stream_of(const void* handle);
// The streams whose earlier work a call in `id` waits for, `id` among them: the legacy (NULL) stream
// and the blocking streams (per-thread default streams included) wait for each other's, as CUDA orders them.
std::vector<rt::Stream> streams_before(rt::Stream id);
// Waits, in simulated time, for that work: a synchronous call's place in its stream.
void wait_as_in(rt::Runtime& rt, rt::Stream id);
// The stream a synchronous call (cudaMemcpy, cudaMemset...) works in: the default stream.
inline rt::Stream default_stream() { return stream_of(nullptr); }
EventRecord& event_of(const void* handle);
inline uint64_t dev(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace gpuvp::cudart
