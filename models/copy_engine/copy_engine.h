#pragma once
// The copy engine of the concurrent-kernel mode (tx2-scheduling.md C1-C4): one copy at a time, in
// either direction, between host memory and global memory. The dispatcher starts a copy when it
// reaches the head of the CE queue and the engine is free; its data lands in (or is read from) global
// memory when it ends. Timing (docs/concurrent-kernels.md, "Copies and DRAM"): after copy.latency_ns
// the bytes stream over the host link at copy.bytes_per_ns, and each burst of copy.burst_bytes is
// offered to the DRAM data bus when its link slot begins and the previous burst has left the bus,
// queued with the SMs' transfers; the copy ends at the later of the link's end and its last burst's
// end on the bus.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <memory>
#include <string>

#include "models/common/gpu_work.h"
#include "models/common/params.h"
#include "models/common/registry.h"
#include "models/memory/dram_bus.h"

namespace gpuvp {

struct CopyEngineConfig {
  double bytes_per_ns = 8.0;
  double latency_ns = 10000;
  unsigned burst_bytes = 256;  // the engine's DRAM transfers
  std::string path = "gpu.ce";

  static CopyEngineConfig from(const Params& p);
};

class CopyEngine : public sc_core::sc_module, public CopyTarget {
 public:
  tlm_utils::simple_initiator_socket<CopyEngine> out{"out"};  // to global memory

  CopyEngine(sc_core::sc_module_name name, const CopyEngineConfig& cfg, Registry& reg, CopyDoneSink& sink);
  SC_HAS_PROCESS(CopyEngine);

  // The DRAM data bus the copies share with the SMs (global memory's, when it is DRAM).
  void share(DramBus* bus) { bus_ = bus; }
  void start_copy(uint32_t slot, std::shared_ptr<CopyJob> job) override;
  // Simulated time a copy of `bytes` takes on this engine's link alone (no DRAM contention).
  sc_core::sc_time duration(uint64_t bytes) const;
  uint64_t copies() const { return copies_; }
  uint64_t bytes() const { return bytes_; }
  // Of them, copied to the device (written to global memory) and to the host (read from it).
  uint64_t to_device_bytes() const { return to_device_bytes_; }
  uint64_t bytes_to_host() const { return bytes_ - to_device_bytes_; }
  // The copy in progress and how far its stream got, relative to `now` (ps) (Registry::add_timing).
  uint64_t timing_digest(uint64_t now) const;

 private:
  void run();          // SC_THREAD: one copy at a time
  bool transfer(CopyJob& job);
  sc_core::sc_time stream(uint64_t bytes);
  void note_busy() const;  // a write of busy, while recording

  CopyEngineConfig cfg_;
  CopyDoneSink& sink_;
  DramBus* bus_ = nullptr;
  sc_core::sc_event start_;
  std::shared_ptr<CopyJob> job_;
  uint32_t slot_ = 0;
  uint32_t busy_ = 0;  // registered; nothing reads it (the dispatcher's work table says what copies)
  Registry* reg_ = nullptr;
  const Target* busy_target_ = nullptr;
  uint64_t copies_ = 0, bytes_ = 0, to_device_bytes_ = 0;
  // The copy's stream (ps): its start, the bytes offered to the DRAM bus and the end of the last of
  // them there, and once all are offered, the copy's end (0 until then).
  struct Progress {
    uint64_t start = 0, sent = 0, bus_end = 0, end = 0;
  } progress_;
};

}  // namespace gpuvp
