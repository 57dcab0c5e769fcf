// Registration and launch: what nvcc 13's generated code calls (docs/cuda.md, "Entry points").
#include <fmt/format.h>

#include <cstring>

#include "cudart/api.h"
#include "cudart/coherence.h"
#include "cudart/smctrl.h"
#include "sw/fatbin/fatbin.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

KernelRecord& kernel_of(const void* host_fun) {
  auto& k = State::get().kernels;
  auto it = k.find(host_fun);
  require(it != k.end(), kErrorInvalidDeviceFunction,
          fmt::format("{} is not a registered kernel (its module was not registered)", host_fun));
  return *it->second;
}

// Copies each argument at its PTX parameter's size: nvcc passes pointers to the values without sizes.
rt::KernelArgs arguments(const rt::Module& m, const KernelRecord& k, void** args) {
  const ptx::KernelInfo* info = m.image->find_kernel(k.name);
  require(info != nullptr, kErrorInvalidDeviceFunction,
          fmt::format("kernel {} is registered but not in its module's PTX", k.name));
  rt::KernelArgs a;
  for (size_t i = 0; i < info->params.size(); ++i) {
    require(args && args[i], kErrorInvalidValue, fmt::format("kernel {}: argument {} is NULL", k.name, i));
    a.raw(args[i], info->params[i].size);
  }
  return a;
}

int launch(const char* api, KernelRecord& k, dim3 grid, dim3 block, void** args, size_t shared, void* stream) {
  return call(api, [&] {
    require(shared <= UINT32_MAX, kErrorInvalidValue, "dynamic shared memory beyond 4 GiB");
    std::lock_guard lk(State::get().lock);
    require(!k.max_dynamic_shared || shared <= *k.max_dynamic_shared, kErrorInvalidValue,
            fmt::format("kernel {}: {} bytes of dynamic shared memory, beyond the {} its "
                        "cudaFuncAttributeMaxDynamicSharedMemorySize allows", k.name, shared, k.max_dynamic_shared.value_or(0)));
    const rt::Stream s = stream_of(stream);
    const uint32_t sm_set = launch_sm_set(s);
    on_device([&](rt::Runtime& rt) {
      const rt::Module& m = loaded(*k.fatbin, rt);
      check_runnable(*k.fatbin, k.name);
      const ptx::KernelInfo* info = m.image ? m.image->find_kernel(k.name) : nullptr;
      const uint64_t threads = uint64_t(block.x) * block.y * block.z;
      require(!info || !info->thread_limit() || threads <= info->thread_limit(), kErrorLaunchOutOfResources,
              fmt::format("kernel {}: a block of {} threads, beyond its __launch_bounds__ (.maxntid) of {}", k.name,
                          threads, info ? info->thread_limit() : 0));
      to_device(rt, s);
      const rt::Dim3 g{grid.x, grid.y, grid.z}, b{block.x, block.y, block.z};
      if (sm_set) rt.launch_sub_async(s, m, k.name, g, b, arguments(m, k, args), rt::SubKernel{0, 0, sm_set}, uint32_t(shared));
      else rt.launch_async(s, m, k.name, g, b, arguments(m, k, args), uint32_t(shared));
    });
  }, kErrorInvalidConfiguration);
}

}  // namespace

CUDART_EXPORT void** __cudaRegisterFatBinary(void* wrapper) {
  State& s = State::get();
  std::lock_guard lk(s.lock);
  s.fatbins.push_back(read_fatbin(wrapper));
  return reinterpret_cast<void**>(s.fatbins.back().get());
}

CUDART_EXPORT void __cudaRegisterFatBinaryEnd(void**) {}

// The program's modules stay until the process ends: the platform's memories go with it.
CUDART_EXPORT void __cudaUnregisterFatBinary(void**) {}

CUDART_EXPORT void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char*, int,
                                          void*, void*, void*, void*, int*) {
  State& s = State::get();
  std::lock_guard lk(s.lock);
  auto k = std::make_unique<KernelRecord>();
  k->fatbin = reinterpret_cast<FatBinaryRecord*>(handle);
  k->host_fun = host_fun;
  k->name = device_fun;
  s.kernels[host_fun] = std::move(k);
}

CUDART_EXPORT void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name,
                                     int, size_t size, int constant, int) {
  State& s = State::get();
  std::lock_guard lk(s.lock);
  (void)device_address;  // the same name as device_name in nvcc 13's registration code
  s.vars[host_var] = VarRecord{reinterpret_cast<FatBinaryRecord*>(handle), device_name, size, constant != 0};
}

CUDART_EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
  call_stack().push_back({grid, block, shared, stream});
  return 0;
}

CUDART_EXPORT int __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  auto& st = call_stack();
  if (st.empty()) return last_error() = kErrorMissingConfiguration;
  const CallConfig c = st.back();
  st.pop_back();
  *grid = c.grid, *block = c.block, *shared = c.shared;
  *static_cast<void**>(stream) = c.stream;
  return kSuccess;
}

CUDART_EXPORT int __cudaGetKernel(void** kernel, const void* host_fun) {
  return call_at_once("__cudaGetKernel", [&] {
    require(kernel != nullptr, kErrorInvalidValue, "kernel handle pointer is NULL");
    std::lock_guard lk(State::get().lock);
    *kernel = &kernel_of(host_fun);
  });
}

CUDART_EXPORT int __cudaLaunchKernel(void* kernel, dim3 grid, dim3 block, void** args, size_t shared, void* stream) {
  return launch("<<<>>>", *static_cast<KernelRecord*>(kernel), grid, block, args, shared, stream);
}


CUDART_EXPORT int cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared, void* stream) {
  KernelRecord* k = nullptr;
  const int e = call("cudaLaunchKernel", [&] {
    std::lock_guard lk(State::get().lock);
    k = &kernel_of(func);
  });
  return e ? e : launch("cudaLaunchKernel", *k, grid, block, args, shared, stream);
}

CUDART_PER_THREAD(__cudaLaunchKernel_ptsz, __cudaLaunchKernel)
CUDART_PER_THREAD(cudaLaunchKernel_ptsz, cudaLaunchKernel)
