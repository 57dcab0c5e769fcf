#include "models/copy_engine/copy_engine.h"

#include <algorithm>
#include <cmath>

#include "models/common/digest.h"
#include "models/common/log.h"

namespace gpuvp {

namespace {
const bool declared = declare_params({
    "copy", "gpu.ce", "",
    {
        ParamDef::Float("copy.bytes_per_ns", 8.0, 0.001, 1000,
                        "Copy engine link bandwidth (bytes per ns = GB/s): every host copy of the concurrent mode "
                        "goes through the copy engine; with dram global memory a copy also needs its bytes on the "
                        "DRAM bus, shared with the SMs; no effect with scheduler.kind = batch (copies over the host bus)"),
        ParamDef::Float("copy.latency_ns", 10000, 0, 1e9,
                        "Copy engine set-up time per copy (ns); concurrent mode only, as copy.bytes_per_ns"),
        ParamDef::Int("copy.burst_bytes", 256, 32, 1 << 20,
                      "Copy engine DRAM transfer size (bytes): with dram global memory, a copy moves its bytes over "
                      "the DRAM data bus in bursts of this size, one at a time, queued with the SMs' transfers; it "
                      "ends at the later of its link time and its last burst; concurrent mode only"),
    },
});
}  // namespace

CopyEngineConfig CopyEngineConfig::from(const Params& p) {
  (void)declared;
  CopyEngineConfig c;
  c.bytes_per_ns = p.f("bytes_per_ns");
  c.latency_ns = p.f("latency_ns");
  c.burst_bytes = static_cast<unsigned>(p.i("burst_bytes"));
  c.path = p.instance();
  return c;
}

CopyEngine::CopyEngine(sc_core::sc_module_name name, const CopyEngineConfig& cfg, Registry& reg, CopyDoneSink& sink)
    : sc_module(name), cfg_(cfg), sink_(sink) {
  reg.add_field(cfg.path + ".busy", 1, &busy_);
  // Access recording: busy is set and cleared whole and read by nothing (the dispatcher keeps its own
  // view of the engine in its work table): every fault in it is dead.
  Target& t = reg.at_mut(cfg.path + ".busy");
  t.reads_observed = true;
  busy_target_ = &t;
  reg_ = &reg;
  reg.add_timing(cfg.path, [this](uint64_t now) { return timing_digest(now); });
  SC_THREAD(run);
}

sc_core::sc_time CopyEngine::duration(uint64_t bytes) const {
  return sc_core::sc_time(std::ceil(cfg_.latency_ns + double(bytes) / cfg_.bytes_per_ns), sc_core::SC_NS);
}

void CopyEngine::start_copy(uint32_t slot, std::shared_ptr<CopyJob> job) {
  slot_ = slot;
  job_ = std::move(job);
  progress_ = {};
  busy_ = 1;
  note_busy();
  start_.notify(sc_core::SC_ZERO_TIME);
}

void CopyEngine::note_busy() const {
  if (reg_->recording()) reg_->note(*busy_target_, 0, Access::Write, sc_core::sc_time_stamp().value());
}

void CopyEngine::run() {
  for (;;) {
    wait(start_);
    if (!job_) continue;
    wait(stream(job_->bytes));
    if (!transfer(*job_))
      log::error(name(), "copy of {} bytes at {:#x} failed: no global memory there", job_->bytes, job_->device_addr);
    ++copies_;
    bytes_ += job_->bytes;
    if (job_->to_device) to_device_bytes_ += job_->bytes;
    job_.reset();
    busy_ = 0;
    note_busy();
    sink_.copy_done(slot_);
  }
}

// The copy's timing from now: its link time, or longer if its bursts wait for the DRAM bus. The
// engine is one more requester of the bus with one burst outstanding, as each SM port has one
// transfer: burst k is offered when its slot on the link begins (latency + k * burst / bytes_per_ns)
// and burst k-1 has left the bus, so on an idle bus at least as fast as the link the copy takes
// exactly duration(bytes), and under contention it shares the bus request by request. Returns the
// time left to wait.
sc_core::sc_time CopyEngine::stream(uint64_t bytes) {
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  sc_core::sc_time end = t0 + duration(bytes);
  progress_ = {t0.value(), 0, t0.value(), 0};
  sc_core::sc_time prev = t0;
  for (uint64_t off = 0; bus_ && off < bytes; off += cfg_.burst_bytes) {
    const sc_core::sc_time slot = t0 + sc_core::sc_time(cfg_.latency_ns + double(off) / cfg_.bytes_per_ns, sc_core::SC_NS);
    // Offered at its instant, in time order with the SMs' transfers: the bus serves in arrival order.
    const sc_core::sc_time offer = std::max(slot, prev);
    if (offer > sc_core::sc_time_stamp()) wait(offer - sc_core::sc_time_stamp());
    const uint64_t n = std::min<uint64_t>(cfg_.burst_bytes, bytes - off);
    prev = bus_->reserve(sc_core::sc_time_stamp(), n).end;
    progress_.sent = off + n;
    progress_.bus_end = prev.value();
  }
  end = std::max(end, prev);
  progress_.end = end.value();
  return end - sc_core::sc_time_stamp();
}

uint64_t CopyEngine::timing_digest(uint64_t now) const {
  if (!job_) return 0;
  uint64_t h = digest_fold(digest_fold(slot_, job_->bytes), job_->device_addr ^ uint64_t(job_->to_device) << 63);
  h = digest_fold(digest_fold(h, progress_.start - now), progress_.sent);
  return digest_fold(digest_fold(h, progress_.bus_end - now), progress_.end ? progress_.end - now : 0);
}

// The data moves when the copy ends (a debug transport: the timing is the engine's own).
bool CopyEngine::transfer(CopyJob& job) {
  if (!job.to_device) job.data.assign(job.bytes, 0);
  tlm::tlm_generic_payload p;
  p.set_command(job.to_device ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(job.device_addr);
  p.set_data_ptr(job.data.data());
  p.set_data_length(unsigned(job.bytes));
  p.set_streaming_width(unsigned(job.bytes));
  return out->transport_dbg(p) == job.bytes;
}

}  // namespace gpuvp
