// The L2's parameters (l2.*): its geometry (cache_param_defs), hit latency and slices.
#include "models/l2/l2.h"

namespace gpuvp {

namespace {
CacheGeometry defaults() {
  CacheGeometry g;
  g.size_bytes = 0;  // no L2 unless a preset says so
  g.line_bytes = 128;
  g.sector_bytes = 32;
  g.ways = 16;
  g.mshrs = 64;
  g.write = WritePolicy::WriteBack;
  return g;
}

ParamGroup l2_group() {
  ParamGroup g = cache_param_group("l2", "gpu.l2", defaults(), "L2");
  g.defs.push_back(ParamDef::Int("l2.latency", 1, 1, 10000,
                                 "L2: hit latency (cycles from the access's slice slot to its data; a miss reads "
                                 "the memory after it)"));
  g.defs.push_back(ParamDef::Int("l2.slices", 1, 1, 64,
                                 "L2: slices (line-interleaved, each one lookup per cycle: the L2's bandwidth)"));
  g.defs.push_back(ParamDef::Bool("l2.slice_ports", false,
                                  "L2: the global-memory read and write arbiters have one port per slice "
                                  "(address-interleaved as the slices, a crossbar to the memory partitions); "
                                  "false: one port of each shared by all slices"));
  return g;
}

const bool declared = declare_params(l2_group());
}  // namespace

bool L2Config::configured(const Params& p) {
  (void)declared;
  return CacheGeometry::configured(p);
}

L2Config L2Config::from(const Params& p, const Clock& clk) {
  (void)declared;
  L2Config c;
  c.geometry = CacheGeometry::from(p);
  c.timing.latency = static_cast<unsigned>(p.i("latency"));
  c.timing.banks = static_cast<unsigned>(p.i("slices"));
  c.slice_ports = p.b("slice_ports");
  c.clock = clk;
  return c;
}

}  // namespace gpuvp
