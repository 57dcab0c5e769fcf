#include "platform/host_port.h"

#include <fmt/format.h>

#include "sw/runtime/host_runtime.h"

namespace gpuvp {

HostPort::HostPort(sc_core::sc_module_name name, const rt::DeviceProps& props, ErrorSink& errors, PrintSink& prints,
                   Memory& gmem)
    : sc_module(name), props_(props), errors_(errors), prints_(prints), gmem_(gmem) {
  SC_THREAD(host_thread);
  SC_METHOD(watch_scheduler);
  sensitive << rdy << kernel_done;
  dont_initialize();
}

void HostPort::host_thread() {
  try {
    rt::HostRuntime runtime(*this);
    try {
      program_(runtime);
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
  if (rdy.event() && !rdy.read()) start_ps_ = now;
  if (kernel_done.event() && kernel_done.read()) {
    windows_.emplace_back(start_ps_, now);
    done_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

void HostPort::transact(tlm::tlm_command cmd, uint64_t addr, void* data, size_t len) {
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
  const auto* b = static_cast<const uint8_t*>(dst);
  for (size_t i = 0; i < n; ++i) read_hash_ = (read_hash_ ^ b[i]) * 0x100000001b3ull;
}

void HostPort::bus_write(uint64_t addr, const void* src, size_t n) {
  transact(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), n);
}

void HostPort::wait_kernel_done(uint64_t& s, uint64_t& e) {
  activity_ = "waiting for a kernel that never reached kernel_done";
  while (windows_.size() <= done_consumed_ && !errors_.first) wait(done_ev_ | errors_.event);
  activity_ = "running the host program";
  if (errors_.first) throw DeviceError(*errors_.first);
  s = windows_[done_consumed_].first;
  e = windows_[done_consumed_].second;
  ++done_consumed_;
}

}  // namespace gpuvp
