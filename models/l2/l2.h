#pragma once
// The L2 shared by the SMs (docs/caches.md, "L2"): a sectored, write-back, LRU TimedCache between
// the SMs' global-memory and instruction-fetch arbiters and the memories behind them.
//
//   in      <- arb_gmem_rd, arb_gmem_wr, arb_sysmem, arb_cmem (cached accesses: the SMs' global
//              accesses and their instruction and constant caches' misses; atomics are performed at
//              the memory after the L2 has written back and dropped their line)
//   io      <- host bus (global, system and constant memory ranges), copy engine: the L2 is the point
//              of coherence: an outside access first writes back the dirty sectors of every line it
//              overlaps and, if it writes, drops those lines; then it goes to the memory as before
//   gmem, sysmem, cmem -> the memories (by address)
// A cached access takes a slot of its slice (line-interleaved, one lookup per slice per cycle),
// then the hit latency; a miss reads the missing sectors from the memory. The arbiter's port is held
// only until the access has its slot (an MSHR stall included): the L2 is pipelined.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <string>

#include "models/cache/timed_cache.h"
#include "models/common/clock.h"
#include "models/common/demand_extension.h"
#include "models/common/params.h"
#include "models/common/registry.h"
#include "models/common/requester_instant.h"

namespace gpuvp {

struct L2Config {
  CacheGeometry geometry;
  CacheTiming timing;  // latency: hit latency (cycles); banks: slices
  bool slice_ports = false;  // the global arbiters have a port per slice (platform.cc, interleaved_router.h)
  Clock clock;
  uint64_t gmem_base = 0, gmem_size = 0;      // what goes to `gmem`
  uint64_t sysmem_base = 0, sysmem_size = 0;  // what goes to `sysmem`
  uint64_t cmem_base = 0, cmem_size = 0;      // what goes to `cmem`
  // Global memory's bounds check (Memory::allows), applied to every access's demanded bytes, hits
  // included: a hit must not read past an allocation where the memory would refuse it. Empty: none.
  std::function<bool(uint64_t addr, uint64_t len)> gmem_allows;

  // l2.* (l2_params.cc); false when l2.size_kib = 0 (no L2: flexgrip).
  static bool configured(const Params& p);
  static L2Config from(const Params& p, const Clock& clk);
};

class L2Cache : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<L2Cache> in{"in"};
  tlm_utils::multi_passthrough_target_socket<L2Cache> io{"io"};
  tlm_utils::simple_initiator_socket<L2Cache> gmem{"gmem"};
  tlm_utils::simple_initiator_socket<L2Cache> sysmem{"sysmem"};
  tlm_utils::simple_initiator_socket<L2Cache> cmem{"cmem"};

  // Registers the arrays under `path` (gpu.l2.tag, .valid, .dirty, .lru, .data).
  L2Cache(sc_core::sc_module_name name, const L2Config& cfg, Registry& reg, const std::string& path);

  CacheStats stats() const { return cache_.stats(); }
  const L2Config& config() const { return cfg_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& p);
  void io_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  unsigned io_dbg(int id, tlm::tlm_generic_payload& p);
  uint64_t next(const NextAccess& n);
  tlm_utils::simple_initiator_socket<L2Cache>* route(uint64_t addr, uint64_t len);
  uint64_t cycle_at(const sc_core::sc_time& t) const;
  void snoop(const tlm::tlm_generic_payload& p, uint64_t at);

  L2Config cfg_;
  TimedCache cache_;
  // A stop with a refill or write-back in flight leaves our extensions on it: detach them, the
  // payload does not own them.
  struct Payload : tlm::tlm_generic_payload {
    ~Payload() {
      clear_extension<DemandExtension>();
      clear_extension<RequesterInstant>();
    }
  } out_;
  DemandExtension out_demand_;
  RequesterInstant out_instant_;  // the requester's, forwarded while recording
  tlm::tlm_response_status failed_ = tlm::TLM_OK_RESPONSE;  // the memory's answer to the last refused access
  // Access recording: the instant of the requester being served (0: simulated time's).
  uint64_t requester_ps_ = 0;
  struct Requester {
    Requester(L2Cache& l2, const tlm::tlm_generic_payload& p);
    ~Requester() { l2_.requester_ps_ = saved_; }
    Requester(const Requester&) = delete;
    Requester& operator=(const Requester&) = delete;
    L2Cache& l2_;
    uint64_t saved_;
  };
};

}  // namespace gpuvp
