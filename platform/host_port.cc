#include "platform/host_port.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "models/common/digest.h"
#include "sw/runtime/host_runtime.h"

namespace gpuvp {

HostPort::HostPort(sc_core::sc_module_name name, const rt::DeviceProps& props, ErrorSink& errors, PrintSink& prints,
                   Memory& gmem, DataObjects& objects)
    : sc_module(name), props_(props), errors_(errors), prints_(prints), gmem_(gmem), objects_(objects) {
  SC_THREAD(host_thread);
  SC_METHOD(watch_scheduler);
  sensitive << rdy << kernel_done;
  dont_initialize();
}

void HostPort::host_thread() {
  try {
    rt::HostRuntime runtime(*this, schedule_);
    try {
      program_(runtime);
      join();  // the host program ends when its threads have
      runtime.synchronize();  // a kernel still running when the host program returns is waited for
    } catch (...) {
      launches_ = runtime.launches();
      throw;
    }
    launches_ = runtime.launches();
  } catch (...) {
    failure_ = std::current_exception();
  }
  finished_ = true;
  sc_core::sc_stop();
}

// The execution window of a kernel: from the scheduler leaving IDLE (rdy falls) to kernel_done.
void HostPort::watch_scheduler() {
  uint64_t now = sc_core::sc_time_stamp().value();
  if (rdy.event() && !rdy.read()) start_ps_ = now, mark_bytes(now);
  if (kernel_done.event() && kernel_done.read()) {
    mark_bytes(now);
    windows_.emplace_back(start_ps_, now);
    done_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

void HostPort::transact(tlm::tlm_command cmd, uint64_t addr, void* data, size_t len) {
  // A power of two of up to 8 bytes is a single access to the memories, which must be naturally
  // aligned; a host copy may start anywhere (a symbol's field): in halves, each aligned or halved again.
  if (len > 1 && len <= 8 && (len & (len - 1)) == 0 && addr % len != 0) {
    transact(cmd, addr, data, len / 2);
    return transact(cmd, addr + len / 2, static_cast<unsigned char*>(data) + len / 2, len / 2);
  }
  tlm::tlm_generic_payload p;
  p.set_command(cmd);
  p.set_address(addr);
  p.set_data_ptr(static_cast<unsigned char*>(data));
  p.set_data_length(static_cast<unsigned>(len));
  p.set_streaming_width(static_cast<unsigned>(len));
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  activity_ = fmt::format("in a host copy (host bus {} of {} bytes at {:#x})",
                          cmd == tlm::TLM_READ_COMMAND ? "read" : "write", len, addr);
  bus->b_transport(p, delay);
  if (delay != sc_core::SC_ZERO_TIME) wait(delay);
  activity_ = "running the host program";
  if (p.get_response_status() != tlm::TLM_OK_RESPONSE)
    throw rt::RuntimeError(fmt::format("host bus {} of {} bytes at {:#x}: {}",
                                       cmd == tlm::TLM_READ_COMMAND ? "read" : "write", len, addr,
                                       p.get_response_string()));
}

void HostPort::bus_read(uint64_t addr, void* dst, size_t n) {
  transact(tlm::TLM_READ_COMMAND, addr, dst, n);
  hash_read(dst, n);
}

// FNV-style over 8-byte words (then the tail bytes): each step is a bijection of the hash, so bytes
// that differ from another run's always change it; a byte at a time cost a large copy 7 instructions per byte.
void HostPort::hash_read(const void* data, size_t n) {
  const auto* b = static_cast<const uint8_t*>(data);
  size_t i = 0;
  for (uint64_t w; i + 8 <= n; i += 8) {
    std::memcpy(&w, b + i, 8);
    read_hash_ = (read_hash_ ^ w) * 0x100000001b3ull;
  }
  for (; i < n; ++i) read_hash_ = (read_hash_ ^ b[i]) * 0x100000001b3ull;
}

void HostPort::bus_write(uint64_t addr, const void* src, size_t n) {
  transact(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), n);
}

void HostPort::wait_kernel_done(uint64_t& s, uint64_t& e) {
  activity_ = "waiting for a kernel that never reached kernel_done";
  while (windows_.size() <= done_consumed_ && !errors_.first) wait(done_ev_ | errors_.event);
  activity_ = "running the host program";
  // A failing kernel ran until its error: its window ends there, so that its cycles count.
  if (errors_.first && windows_.size() <= done_consumed_) windows_.emplace_back(start_ps_, now_ps());
  s = windows_[done_consumed_].first;
  e = windows_[done_consumed_].second;
  ++done_consumed_;
  if (errors_.first) throw DeviceError(*errors_.first);
}

// --- concurrent mode -----------------------------------------------------------------------------

void HostPort::submit(rt::WorkRequest w) {
  Submission s;
  s.item.stream = w.stream;
  s.item.priority = w.high_priority ? 0 : 1;
  s.item.non_blocking = w.non_blocking;
  s.item.event = w.event;
  s.item.tag = w.tag;
  switch (w.kind) {
    case rt::WorkRequest::Kernel:
      if (w.kernel->grid_blocks() > UINT32_MAX)
        throw rt::RuntimeError(fmt::format("launch: {} blocks exceed the dispatcher's 32-bit block counter",
                                           w.kernel->grid_blocks()));
      s.item.kind = WorkItem::Kernel;
      s.item.blocks = uint32_t(w.block_count ? w.block_count : w.kernel->grid_blocks());
      s.kernel = w.kernel;
      s.first_block = w.first_block;
      s.sm_set = w.sm_set;
      kernel_start_[w.tag] = now_ps();
      mark_bytes(now_ps());
      break;
    case rt::WorkRequest::CopyToDevice:
    case rt::WorkRequest::CopyToHost: {
      s.item.kind = WorkItem::Copy;
      auto job = std::make_shared<CopyJob>();
      job->to_device = w.kind == rt::WorkRequest::CopyToDevice;
      job->device_addr = w.device_addr;
      job->bytes = w.bytes;
      job->data = std::move(w.data);
      if (!job->to_device) to_host_[w.tag] = ToHost{job, w.host_dst};
      s.copy = job;
      break;
    }
    case rt::WorkRequest::Record: s.item.kind = WorkItem::Record; break;
    case rt::WorkRequest::Wait: s.item.kind = WorkItem::Wait; break;
  }
  if (s.item.event > disp_->queues().events())  // ids from 1; id `events` shares slot 0, which none else uses
    throw rt::RuntimeError(fmt::format("event {}: the GPU has {} events (scheduler.events)", s.item.event,
                                       disp_->queues().events()));
  s.order = uint64_t(thread_index()) << 40 | (submitted_++ & ((uint64_t{1} << 40) - 1));
  activity_ = "waiting for a free slot in the GPU's work queues";
  while (!disp_->submit(s)) wait(disp_->slot_freed());
  activity_ = "running the host program";
}

void HostPort::set_sm_set(uint32_t set, uint64_t sms) {
  try {
    disp_->set_sm_set(set, sms);
  } catch (const std::invalid_argument& e) {
    throw rt::RuntimeError(e.what());
  }
}

void HostPort::submit_after(rt::WorkRequest w, double ns) {
  const sc_core::sc_time d(ns, sc_core::SC_NS);
  auto it = launching_.insert((sc_core::sc_time_stamp() + d).value());
  wait(d);
  launching_.erase(it);
  submit(std::move(w));
}

uint64_t HostPort::earliest_submission_ps() const {
  const uint64_t next = (sc_core::sc_time_stamp() + sc_core::sc_time(props_.launch_latency_ns, sc_core::SC_NS)).value();
  return launching_.empty() ? next : std::min(next, *launching_.begin());
}

void HostPort::work_done(const WorkItem& w, uint64_t ps) {
  if (auto it = to_host_.find(w.tag); it != to_host_.end()) {
    std::memcpy(it->second.dst, it->second.job->data.data(), it->second.job->data.size());
    hash_read(it->second.job->data.data(), it->second.job->data.size());
    to_host_.erase(it);
  }
  if (auto it = kernel_start_.find(w.tag); it != kernel_start_.end()) {
    mark_bytes(ps);
    windows_.emplace_back(it->second, ps);
    kernel_start_.erase(it);
  }
  done_[w.tag] = ps;
  work_ev_.notify(sc_core::SC_ZERO_TIME);
}

uint64_t HostPort::wait_done(uint64_t tag) {
  activity_ = kernel_start_.count(tag) ? "waiting for a kernel that never completed"
                                        : "waiting for a copy or an event that never completed";
  while (!done_.count(tag) && !errors_.first) wait(work_ev_ | errors_.event);
  activity_ = "running the host program";
  if (errors_.first) {
    for (auto& [t, start] : kernel_start_) windows_.emplace_back(start, now_ps());  // ran until the error
    kernel_start_.clear();
    throw DeviceError(*errors_.first);
  }
  return done_[tag];  // kept: other host threads may wait for the same work
}

void HostPort::wait_any_until(const std::vector<uint64_t>& tags, uint64_t until_ps) {
  auto any_done = [&] {
    for (uint64_t t : tags)
      if (done_.count(t)) return true;
    return false;
  };
  activity_ = "waiting for one of several kernels";
  while (!any_done() && !errors_.first && now_ps() < until_ps)
    wait(sc_core::sc_time::from_value(until_ps - now_ps()), work_ev_ | errors_.event);
  activity_ = "running the host program";
  if (errors_.first) throw DeviceError(*errors_.first);
}

uint64_t HostPort::timing_digest(uint64_t now) const {
  uint64_t h = digest_fold(windows_.size(), submitted_);
  for (const auto& [start, end] : windows_) h = digest_fold(digest_fold(h, start - now), end - now);
  for (const auto* m : {&done_, &kernel_start_})
    for (const auto& [tag, ps] : *m) h = digest_fold(digest_fold(h, tag), ps - now);
  for (uint64_t end : launching_) h = digest_fold(h, end - now);
  return h;
}

uint64_t HostPort::done_at(uint64_t tag) const {
  auto it = done_.find(tag);
  return it == done_.end() ? ~uint64_t{0} : it->second;
}

void HostPort::spawn(std::function<void()> fn) {
  threads_.push_back(sc_core::sc_spawn([this, fn] {
    try {
      fn();
    } catch (...) {  // the first failure of any host thread ends the host program
      if (!failure_) failure_ = std::current_exception();
      finished_ = true;
      sc_core::sc_stop();
    }
  }));
}

// 0 for the host program's thread, i + 1 for the i-th spawned one.
unsigned HostPort::thread_index() const {
  const sc_core::sc_process_handle me = sc_core::sc_get_current_process_handle();
  for (size_t i = 0; i < threads_.size(); ++i)
    if (threads_[i] == me) return unsigned(i + 1);
  return 0;
}

void HostPort::join() {
  for (size_t i = 0; i < threads_.size(); ++i)  // (a thread may spawn more meanwhile)
    if (!threads_[i].terminated()) wait(threads_[i].terminated_event());
}

// A lock the same host thread may take again (a launch that copies takes it twice).
void HostPort::lock() {
  const sc_core::sc_process_handle me = sc_core::sc_get_current_process_handle();
  if (depth_ && owner_ == me) {
    ++depth_;
    return;
  }
  while (depth_) wait(unlocked_);
  owner_ = me;
  depth_ = 1;
}

void HostPort::unlock() {
  if (depth_ && --depth_ == 0) {
    owner_ = sc_core::sc_process_handle();
    unlocked_.notify(sc_core::SC_ZERO_TIME);
  }
}

}  // namespace gpuvp
