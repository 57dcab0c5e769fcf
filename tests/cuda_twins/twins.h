// Shared by the C++ API versions ("twins") of the test CUDA programs (twins.cc): the runtime calls the
// library (cudart/) makes for the programs' CUDA calls, and what each twin is given.
#pragma once
#include <cstdint>
#include <string>

#include "sw/runtime/runtime.h"

namespace gpuvp::twins {

// The library's choices (cudart/): the PTX for compute capability 7.5, polls of 1000 ns.
constexpr unsigned kComputeCapability = 75;
constexpr double kPollNs = 1000;

struct TwinRun {
  std::string ptx;      // the program's, from its fat binary
  int n = 64;           // matmul's size (its argv[1])
  std::string order;    // two_threads: which thread makes each call ('a' writes from 100, 'b' from 5000)
  bool device_error = false;  // a call got a device error: the platform reports it again at the end
};
using Twin = void (*)(rt::Runtime&, TwinRun&);

// cudaMemcpy / cudaMemset on the NULL stream: after the stream's work (cudart/api_memory.cc).
void copy_in(rt::Runtime& rt, rt::DevPtr dst, const void* src, size_t n);
void copy_out(rt::Runtime& rt, void* dst, rt::DevPtr src, size_t n);
void set_bytes(rt::Runtime& rt, rt::DevPtr dst, uint8_t v, size_t n);
// A polling query: simulated time passes while the work is not done (GPUVP_POLL_NS).
bool poll(rt::Runtime& rt, bool done);

// Loaded at the first launch, as the library loads a fat binary's module.
struct Kernels {
  const std::string& ptx;
  rt::Module m{};
  const rt::Module& load(rt::Runtime& rt);
  void launch(rt::Runtime& rt, rt::Stream s, const char* kernel, rt::Dim3 grid, rt::Dim3 block, const rt::KernelArgs& a);
  uint64_t symbol(const std::string& name) const;  // a loaded module's __device__ or __constant__ variable
};

// twins_memory.cc: tests/cudart/symbols.cu, mapped.cu, managed.cu
void symbols(rt::Runtime& rt, TwinRun& run);
void mapped(rt::Runtime& rt, TwinRun& run);
void managed(rt::Runtime& rt, TwinRun& run);
// twins_host.cc: tests/cudart/callbacks.cu, errors.cu, two_threads.cu
void callbacks(rt::Runtime& rt, TwinRun& run);
void errors(rt::Runtime& rt, TwinRun& run);
void two_threads(rt::Runtime& rt, TwinRun& run);

}  // namespace gpuvp::twins
