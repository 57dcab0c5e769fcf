// The SM's cache keys (sm.l1d.*, sm.ccache.*, sm.icache.*, overridable per SM as gpu.smN.l1d.*) and
// how the SM reads them. Every size defaults to 0: no cache (flexgrip); the tk1 and tx2 presets set them.
#include "models/sm/sm_caches.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp {

namespace {
using P = ParamDef;

CacheGeometry shape(unsigned line, unsigned sector, unsigned ways, unsigned mshrs) {
  CacheGeometry g;
  g.size_bytes = 0;
  g.line_bytes = line;
  g.sector_bytes = sector;
  g.ways = ways;
  g.mshrs = mshrs;
  g.write = WritePolicy::WriteThrough;
  return g;
}

// One cache's keys: the geometry (cache_param_defs) and its timing.
void add_cache(std::vector<ParamDef>& defs, const std::string& prefix, const CacheGeometry& g, const std::string& what,
               int64_t latency) {
  for (ParamDef& d : cache_param_defs(prefix, g, what)) defs.push_back(std::move(d));
  defs.push_back(P::Int(prefix + ".latency", latency, 1, 10000,
                        what + ": hit latency (cycles from the access to its data; a miss leaves for the next level "
                               "after it)"));
  defs.push_back(P::Int(prefix + ".banks", 1, 1, 64, what + ": banks (line-interleaved, one lookup per bank per cycle)"));
}

std::vector<ParamDef> sm_cache_defs() {
  std::vector<ParamDef> d;
  add_cache(d, "sm.l1d", shape(128, 32, 4, 16), "L1 data / texture cache", 1);
  d.push_back(P::Bool("sm.l1d.cache_global", false,
                      "Plain global loads (ld.global) allocate in the L1; ld.global.nc (read-only path) always does. "
                      "Uncached loads still take sm.l1d.latency through the L1 pipeline"));
  d.push_back(P::Int("sm.l1_shared_kib", 0, 0, 1024,
                     "On-chip memory the L1 data cache shares with shared memory (KiB; Kepler and Fermi: 64). When set, "
                     "the L1's size follows the split: this minus sm.shared_bytes (48 KiB shared: 16 KiB L1; 32: 32; "
                     "16: 48), and sm.l1d.size_kib only says whether there is an L1 (0: none). 0: the L1 is sized by "
                     "sm.l1d.size_kib alone"));
  add_cache(d, "sm.ccache", shape(64, 64, 4, 4), "Constant cache", 1);
  add_cache(d, "sm.icache", shape(128, 32, 4, 4), "Instruction cache (behind the instruction buffer)", 1);
  return d;
}

const bool declared = declare_params({"sm", "gpu.sm#", "sm.count", sm_cache_defs()});

// size_bytes: the cache's size when not size_kib's (0: size_kib's).
SmCacheConfig read_cache(const Params& p, uint64_t size_bytes = 0) {
  SmCacheConfig c;
  c.latency = static_cast<unsigned>(p.i("latency"));
  c.banks = static_cast<unsigned>(p.i("banks"));
  if (CacheGeometry::configured(p)) c.geometry = CacheGeometry::from(p, size_bytes);
  else c.geometry.size_bytes = 0;
  return c;
}

// The L1's size when it shares the SM's on-chip memory with shared memory (sm.l1_shared_kib): what
// shared memory leaves; 0 when it does not.
uint64_t split_l1_bytes(const Params& sm) {
  const int64_t unified = sm.i("l1_shared_kib");
  if (!unified) return 0;
  const int64_t shared = sm.i("shared_bytes"), l1 = unified * 1024 - shared;
  if (l1 <= 0)
    throw std::invalid_argument(
        fmt::format("{}.l1_shared_kib = {}: leaves no L1 beside sm.shared_bytes = {}", sm.instance(), unified, shared));
  return uint64_t(l1);
}
}  // namespace

SmCaches SmCaches::from(const Params& sm) {
  (void)declared;
  SmCaches c;
  c.l1d = read_cache(sm.sub("l1d"), split_l1_bytes(sm));
  c.l1d_global = sm.sub("l1d").b("cache_global");
  c.ccache = read_cache(sm.sub("ccache"));
  c.icache = read_cache(sm.sub("icache"));
  return c;
}

}  // namespace gpuvp
