#pragma once
// The caches of one SM (docs/caches.md): the L1 data / texture cache in front of global memory, the
// constant cache in front of constant memory and the instruction cache in front of the fetch path.
// Each is a TimedCache (models/cache/timed_cache.h) over a CacheCore, owned by the Sm (sm.cc);
// their keys are sm.l1d.*, sm.ccache.*, sm.icache.* (sm_caches.cc), overridable per SM
// (gpu.sm1.l1d.size_kib). A size of 0 means no such cache: the accesses go straight to the port.
#include <cstdint>
#include <functional>

#include "models/cache/cache_geometry.h"
#include "models/common/params.h"

namespace gpuvp {

struct SmCacheConfig {
  CacheGeometry geometry;  // size_bytes 0: no such cache
  unsigned latency = 1;    // cycles from the access to the data on a hit (also the lookup before a miss leaves)
  unsigned banks = 1;      // tag lookups per cycle (line-interleaved banks)
  bool present() const { return geometry.size_bytes != 0; }
};

struct SmCaches {
  SmCacheConfig l1d, ccache, icache;
  // Plain global loads (ld.global without .nc) allocate in the L1; ld.global.nc always does when
  // there is an L1.
  bool l1d_global = false;
  // Global memory's bounds check (Memory::allows; set by the platform), applied to every global
  // access the L1 serves before it looks up its line: a load past the end of a buffer gets the
  // memory's error even when the L1 holds the line. Empty: none.
  std::function<bool(uint64_t addr, uint64_t len)> gmem_allows;

  // Reads sm.l1d.*, sm.ccache.*, sm.icache.* from the SM's parameters (cfg.params("sm", "gpu.smN")).
  static SmCaches from(const Params& sm);
};

}  // namespace gpuvp
