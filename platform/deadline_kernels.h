#pragma once
// The kernels of application sets (deadline_apps.h) as launches the policies split: a timer-spin kernel,
// a launch description (exec_job.h) or a built-in workload (sw/workloads). A launch description's and a
// workload's own host program prepares the inputs; LaunchHook stands between it and the runtime and
// turns its kernel launch into whatever its owner asks (kept for later sub-kernel launches, or split).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sw/runtime/runtime.h"

namespace gpuvp::deadline {

// One kernel launch as a host program asked for it; sub-kernels of it are launch_sub_async calls.
struct Launch {
  rt::Module module;
  std::string kernel;
  rt::Dim3 grid, block;
  rt::KernelArgs args;
  uint32_t dyn_shmem = 0;
  uint64_t blocks() const { return uint64_t(grid.x) * grid.y * grid.z; }
  uint32_t threads() const { return block.x * block.y * block.z; }
};

// A runtime that forwards everything to `inner` except launch(), which calls `on_launch`. With
// `keep_memory` free() frees nothing: the kept launches' buffers outlive the host program.
class LaunchHook : public rt::Runtime {
 public:
  using Hook = std::function<uint64_t(const Launch&)>;
  LaunchHook(rt::Runtime& inner, Hook on_launch, bool keep_memory)
      : in_(inner), hook_(std::move(on_launch)), keep_(keep_memory) {}
  rt::DevPtr malloc(size_t bytes) override { return in_.malloc(bytes); }
  void free(rt::DevPtr p) override {
    if (!keep_) in_.free(p);
  }
  void memcpy_h2d(rt::DevPtr dst, const void* src, size_t bytes) override { in_.memcpy_h2d(dst, src, bytes); }
  void memcpy_d2h(void* dst, rt::DevPtr src, size_t bytes) override { in_.memcpy_d2h(dst, src, bytes); }
  void memset(rt::DevPtr dst, uint8_t value, size_t bytes) override { in_.memset(dst, value, bytes); }
  void write_symbol(uint64_t addr, const void* src, size_t bytes) override { in_.write_symbol(addr, src, bytes); }
  void read_symbol(void* dst, uint64_t addr, size_t bytes) override { in_.read_symbol(dst, addr, bytes); }
  rt::Module load_module(const std::string& text, const std::string& name) override { return in_.load_module(text, name); }
  uint64_t launch(const rt::Module& m, const std::string& kernel, rt::Dim3 grid, rt::Dim3 block, const rt::KernelArgs& args,
                  uint32_t dyn_shmem, uint32_t blocks_per_core) override;
  void synchronize() override { in_.synchronize(); }
  void set_device_output(std::ostream* out) override { in_.set_device_output(out); }
  // The hooked launches (kernel name and the id the hook returned).
  const std::vector<rt::LaunchStats>& launches() const override { return stats_; }
  const rt::DeviceProps& device() const override { return in_.device(); }
  double now_ns() const override { return in_.now_ns(); }

 private:
  rt::Runtime& in_;
  Hook hook_;
  bool keep_;
  std::vector<rt::LaunchStats> stats_;
};

}  // namespace gpuvp::deadline
