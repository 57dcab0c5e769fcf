// libsmctrl.so for `gpuvp cuda`: each call forwards to the platform's libcudart.so.13, which keeps the
// masks and puts each launch on an SM set of the SMs its mask leaves (cudart/smctrl.h). The entry points
// are looked up when called, not linked: a program links against the toolkit's libcudart.so, which
// lacks them, and runs with the platform's. Errors (a handle that is not a stream) are printed there, as
// the real library's calls return nothing.
#include "cudart/libsmctrl/libsmctrl.h"

#include <dlfcn.h>

#include <cstdio>

namespace {

constexpr int kGlobal = 0, kStream = 1, kNext = 2;
constexpr int kAttrMultiProcessorCount = 16;  // cudaDevAttrMultiProcessorCount
constexpr int kErrorInitializationError = 3;  // cudaErrorInitializationError

using SmMask = int(int which, void* stream, uint64_t mask);
using DeviceGetAttribute = int(int* value, int attr, int device);

// The platform's function `name`, or nullptr with one line saying why (a run outside `gpuvp cuda`).
template <typename F>
F* platform(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) std::fprintf(stderr, "libsmctrl (gpuvp): %s not found: run the program under `gpuvp cuda`\n", name);
  return reinterpret_cast<F*>(f);
}

void set_mask(int which, void* stream, uint64_t mask) {
  static SmMask* const f = platform<SmMask>("__cudaGpuvpSmMask");
  if (f) f(which, stream, mask);
}

}  // namespace

extern "C" {

void libsmctrl_set_global_mask(uint64_t mask) { set_mask(kGlobal, nullptr, mask); }

void libsmctrl_set_stream_mask(void* stream, uint64_t mask) { set_mask(kStream, stream, mask); }

void libsmctrl_set_stream_mask_ext(void* stream, unsigned __int128 mask) { set_mask(kStream, stream, uint64_t(mask)); }

void libsmctrl_set_next_mask(uint64_t mask) { set_mask(kNext, nullptr, mask); }

int libsmctrl_get_tpc_info(uint32_t* num_tpcs, int dev) {
  static DeviceGetAttribute* const f = platform<DeviceGetAttribute>("cudaDeviceGetAttribute");
  int n = 0;
  const int e = f ? f(&n, kAttrMultiProcessorCount, dev) : kErrorInitializationError;
  if (e == 0) *num_tpcs = uint32_t(n);
  return e;
}

int libsmctrl_get_tpc_info_cuda(uint32_t* num_tpcs, int cuda_dev) { return libsmctrl_get_tpc_info(num_tpcs, cuda_dev); }
}
