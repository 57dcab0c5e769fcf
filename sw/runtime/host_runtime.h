#pragma once
// The runtime a host program uses, over the platform's HostInterface.
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "sw/runtime/host_interface.h"
#include "sw/runtime/object_host.h"
#include "sw/runtime/runtime.h"
#include "sw/ptx/schedule.h"

namespace gpuvp::rt {

// Shared memory a block of this kernel takes: the 16-byte block header, the parameters, static and
// dynamic shared memory, rounded up to 256 bytes (block-scheduler.md).
uint64_t shared_per_block(uint32_t param_bytes, uint32_t static_shared, uint32_t dyn_shared);

// Resident blocks per SM that fit the SM's resources; 0 with `why` naming the resource if none fits.
uint32_t blocks_that_fit(const DeviceProps& p, uint64_t threads, uint32_t regs_per_thread, uint64_t shmem,
                         std::string* why);

class HostRuntime : public Runtime {
 public:
  // `schedule`: the order load_module gives every kernel's instructions (asm.schedule).
  explicit HostRuntime(HostInterface& host, ptx::Schedule schedule = ptx::Schedule::Nvcc);

  DevPtr malloc(size_t bytes) override;
  void free(DevPtr p) override;
  // Names an allocation for the platform (object_host.h).
  void name_allocation(DevPtr p, const std::string& name);
  void memcpy_h2d(DevPtr dst, const void* src, size_t bytes) override;
  void memcpy_d2h(void* dst, DevPtr src, size_t bytes) override;
  void memset(DevPtr dst, uint8_t value, size_t bytes) override;
  void write_symbol(uint64_t addr, const void* src, size_t bytes) override;
  void read_symbol(void* dst, uint64_t addr, size_t bytes) override;
  void write_unordered(uint64_t addr, const void* src, size_t bytes) override;
  void read_unordered(void* dst, uint64_t addr, size_t bytes) override;
  Module load_module(const std::string& ptx_text, const std::string& source_name) override;
  uint64_t launch(const Module& m, const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                  uint32_t dyn_shmem = 0, uint32_t blocks_per_core = 0) override;
  void synchronize() override;
  uint64_t launch_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                        const KernelArgs& args, uint32_t dyn_shmem = 0) override;
  uint64_t launch_sub_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                            const KernelArgs& args, SubKernel part, uint32_t dyn_shmem = 0) override;
  uint32_t create_sm_set(uint64_t sms) override;
  double launch_done_ns(uint64_t id) const override;
  void wait_any(const std::vector<uint64_t>& ids, double until_ns) override;
  void set_sm_set(uint32_t set, uint64_t sms) override;
  void memcpy_h2d_async(DevPtr dst, const void* src, size_t bytes, Stream s) override;
  void memcpy_d2h_async(void* dst, DevPtr src, size_t bytes, Stream s) override;
  void record_event(Event e, Stream s) override;
  void stream_wait_event(Stream s, Event e) override;
  void event_synchronize(Event e) override;
  double event_elapsed_ms(Event start, Event end) override;
  void stream_synchronize(Stream s) override;
  bool event_done(Event e) override;
  bool stream_idle(Stream s) override;
  double now_ns() const override { return double(host_.now_ps()) / 1000.0; }
  void sleep_ns(double ns) override {
    if (ns > 0) host_.wait_ns(ns);
  }
  using Runtime::launch_async;
  void spawn(std::function<void(Runtime&)> fn) override;
  void join() override { host_.join(); }
  void set_stack_bytes(uint32_t bytes) override { stack_bytes_ = bytes; }
  void set_device_output(std::ostream* out) override { out_ = out; }
  const std::vector<LaunchStats>& launches() const override { return launches_; }
  const DeviceProps& device() const override { return host_.props(); }

 private:
  // Host threads take turns for call sequences that must not interleave (batch mode).
  struct Guard {
    explicit Guard(HostInterface& h) : h_(h) { h_.lock(); }
    ~Guard() { h_.unlock(); }
    HostInterface& h_;
  };
  // Concurrent mode: work submitted and not yet waited for, by tag.
  struct Pending {
    WorkRequest::Kind kind;
    Stream stream = 0;
    LaunchStats launch;                         // Kernel
    std::shared_ptr<const ptx::Image> image;    // Kernel: for error messages
  };
  KernelDesc prepare(const Module& m, const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                     uint32_t dyn_shmem, uint32_t& bpc) const;
  uint64_t submit(WorkRequest w, Pending p, double latency_ns = 0);  // returns the tag
  void copy_async(WorkRequest w, Stream s, const char* what);
  // Waits for the pending work `tag` and retires it.
  void retire(uint64_t tag);
  void wait_pending(const std::function<bool(const Pending&)>& which);
  DeviceError with_kernel(const DeviceError& e, const std::string& kernel, const ptx::Image& img) const;
  void record_launch(LaunchStats st, uint64_t end_ps);
  // A launch's statistics before it runs: its kernel, entry and register names.
  static LaunchStats launch_stats(const Module& m, const std::string& kernel, uint64_t entry);
  // The allocation containing [p, p+n), or throws RuntimeError naming the range.
  void check_range(DevPtr p, size_t n, const char* what) const;
  void print_device_output();
  void write_variable(uint64_t addr, const uint8_t* data, size_t n);
  // Refuses a range that is not inside one variable of a loaded module.
  void check_symbol(uint64_t addr, size_t n, const char* what) const;
  bool in_allocation(DevPtr p, size_t n) const;
  void write_now(uint64_t addr, const void* src, size_t n);  // to every copy, no wait, no check

  HostInterface& host_;
  std::map<DevPtr, size_t> allocs_;  // start -> size
  std::map<DevPtr, std::vector<DevPtr>> replicas_;  // a protected object's copies (docs/reliability.md)
  ObjectHost* objects_ = nullptr;  // the host, when it takes names and protects objects
  ptx::Schedule schedule_ = ptx::Schedule::Nvcc;
  void replicate_protected();
  // Where a host write at `dst` goes: dst, and the same offset in every copy of a protected object.
  std::vector<DevPtr> write_targets(DevPtr dst) const;
  uint64_t sys_next_ = 0, const_next_ = 0;
  std::vector<std::shared_ptr<const ptx::Image>> modules_;
  std::vector<LaunchStats> launches_;
  bool failed_recorded_ = false;  // the launch a device error stopped (concurrent mode: recorded once)
  std::optional<LaunchStats> running_;  // started, not yet waited for
  std::optional<uint32_t> stack_bytes_;  // set_stack_bytes, else the device's
  std::shared_ptr<const ptx::Image> running_image_;  // of the running kernel
  std::ostream* out_ = &std::cout;
  std::map<uint64_t, Pending> pending_;  // tag -> work not yet retired
  uint64_t next_tag_ = 1, next_launch_ = 1;
  uint32_t sm_sets_created_ = 0;
  std::map<uint64_t, uint64_t> launch_tags_;  // concurrent mode: launch id -> tag
  uint64_t tag_of(uint64_t launch_id, const char* what) const;
};

}  // namespace gpuvp::rt
