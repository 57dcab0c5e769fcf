#pragma once
// The host's side of the platform: the runtime's HostInterface over the host bus, the host thread
// that runs the host program, and the kernel execution windows it learns from the scheduler's pins
// (a kernel runs from rdy falling to kernel_done).
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <exception>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <utility>
#include <vector>

#include "models/common/error_sink.h"
#include "models/common/print_sink.h"
#include "models/memory/memory.h"
#include "models/memprot/data_objects.h"
#include "models/scheduler/concurrent_dispatcher.h"
#include "sw/ptx/schedule.h"
#include "sw/runtime/object_host.h"
#include "sw/runtime/runtime.h"

namespace gpuvp {

class HostPort : public sc_core::sc_module, public rt::HostInterface, public rt::ObjectHost {
 public:
  tlm_utils::simple_initiator_socket<HostPort> bus{"bus"};  // to the host bus
  sc_core::sc_in<bool> rdy{"rdy"};
  sc_core::sc_in<bool> kernel_done{"kernel_done"};

  // `gmem` is the global memory whose bounds check the driver maps allocations into.
  HostPort(sc_core::sc_module_name name, const rt::DeviceProps& props, ErrorSink& errors, PrintSink& prints,
           Memory& gmem, DataObjects& objects);
  SC_HAS_PROCESS(HostPort);

  // The concurrent-kernel mode: work goes to this dispatcher's queues (the platform sets its on_done
  // to work_done).
  void use_dispatcher(ConcurrentDispatcher& d) { disp_ = &d; }
  void work_done(const WorkItem& w, uint64_t ps);
  // The host program to run in the host thread (before sc_start).
  void set_program(std::function<void(rt::Runtime&)> fn) { program_ = std::move(fn); }
  // The instruction order the host program's runtime gives the kernels it loads (asm.schedule).
  void set_schedule(ptx::Schedule s) { schedule_ = s; }
  bool finished() const { return finished_; }
  std::exception_ptr failure() const { return failure_; }
  // So far: those of the host program's runtime while it runs (a run stopped by a timeout, or read from
  // inside, counts what completed), then its final list.
  const std::vector<rt::LaunchStats>& launches() const { return runtime_ ? runtime_->launches() : launches_; }
  // Kernel execution windows (ps): batch mode, from rdy falling to kernel_done; concurrent mode,
  // from the launch reaching the queues to its last block's completion.
  const std::vector<std::pair<uint64_t, uint64_t>>& windows() const { return windows_; }
  // The global memory's byte counters at every start and end of a window, in time order: the bytes a
  // launch moved are the difference between the marks at its start and its end.
  struct BytesMark {
    uint64_t ps, read_bytes, write_bytes;
  };
  const std::vector<BytesMark>& bytes_marks() const { return marks_; }
  // A hash of every byte the host has read from the GPU so far (state comparisons).
  uint64_t read_hash() const { return read_hash_; }
  // The kernel windows so far (their instants decide a run's outcome: masked or timing only), the
  // completions not yet waited for, the kernels in the queues and the launch calls in flight, relative
  // to `now` (ps) (Registry::add_timing).
  uint64_t timing_digest(uint64_t now) const;
  // What the host thread is doing now, for a timeout's message ("in a host copy (...)").
  const std::string& activity() const { return activity_; }

  // rt::HostInterface
  void bus_read(uint64_t addr, void* dst, size_t n) override;
  void bus_write(uint64_t addr, const void* src, size_t n) override;
  void wait_kernel_done(uint64_t& start_ps, uint64_t& end_ps) override;
  const rt::DeviceProps& props() const override { return props_; }
  void wait_ns(double ns) override { wait(sc_core::sc_time(ns, sc_core::SC_NS)); }
  void map_global(uint64_t addr, uint64_t size) override {
    gmem_.map(addr, size);
    objects_.add(addr, size);
  }
  void unmap_global(uint64_t addr) override {
    gmem_.unmap(addr);
    objects_.remove(addr);
  }
  void name_global(uint64_t addr, const std::string& name) override { objects_.rename(addr, name); }
  unsigned copies_wanted(uint64_t addr) const override { return objects_.copies_wanted(addr); }
  void set_replicas(uint64_t addr, const std::vector<uint64_t>& copies) override { objects_.set_replicas(addr, copies); }
  std::string take_device_output() override { return prints_.take(); }
  bool concurrent() const override { return disp_ != nullptr; }
  void submit(rt::WorkRequest w) override;
  void submit_after(rt::WorkRequest w, double ns) override;
  // The earliest instant (ps) a kernel launch can reach the queues: the end of a launch call in flight,
  // or of one that starts now.
  uint64_t earliest_submission_ps() const;
  uint64_t wait_done(uint64_t tag) override;
  uint64_t done_at(uint64_t tag) const override;
  void wait_any_until(const std::vector<uint64_t>& tags, uint64_t until_ps) override;
  uint64_t now_ps() const override { return sc_core::sc_time_stamp().value(); }
  void set_sm_set(uint32_t set, uint64_t sms) override;
  unsigned sm_sets() const override { return disp_ ? disp_->sm_sets() : 0; }
  void spawn(std::function<void()> fn) override;
  void join() override;
  void lock() override;
  void unlock() override;

 private:
  void host_thread();
  void watch_scheduler();
  void transact(tlm::tlm_command cmd, uint64_t addr, void* data, size_t len);
  void mark_bytes(uint64_t ps) { marks_.push_back({ps, gmem_.read_bytes(), gmem_.write_bytes()}); }

  rt::DeviceProps props_;
  ErrorSink& errors_;
  PrintSink& prints_;
  Memory& gmem_;
  DataObjects& objects_;
  std::function<void(rt::Runtime&)> program_;
  ptx::Schedule schedule_ = ptx::Schedule::Nvcc;
  std::exception_ptr failure_;
  bool finished_ = false;
  std::string activity_ = "running the host program";
  std::vector<rt::LaunchStats> launches_;
  const rt::Runtime* runtime_ = nullptr;  // the host thread's, while it lives
  std::vector<std::pair<uint64_t, uint64_t>> windows_;
  std::vector<BytesMark> marks_;
  uint64_t done_consumed_ = 0, start_ps_ = 0;
  uint64_t read_hash_ = 0xcbf29ce484222325ull;
  void hash_read(const void* data, size_t n);  // bytes the host read into read_hash_
  sc_core::sc_event done_ev_;
  // Concurrent mode.
  ConcurrentDispatcher* disp_ = nullptr;
  struct ToHost {
    std::shared_ptr<CopyJob> job;
    void* dst;
  };
  std::map<uint64_t, ToHost> to_host_;   // copies to host memory in flight, by tag
  std::map<uint64_t, uint64_t> done_;    // completed work (tag -> ps) not yet waited for
  std::map<uint64_t, uint64_t> kernel_start_;  // kernels in the queues: tag -> submission (ps)
  std::multiset<uint64_t> launching_;          // ends (ps) of the launch calls in flight
  sc_core::sc_event work_ev_;
  std::vector<sc_core::sc_process_handle> threads_;  // spawned host threads
  uint64_t submitted_ = 0;
  unsigned thread_index() const;
  sc_core::sc_process_handle owner_;                 // lock(): the thread holding it, and its depth
  unsigned depth_ = 0;
  sc_core::sc_event unlocked_;
};

}  // namespace gpuvp
