// Parameters of the three memories (gmem.*, sysmem.*, cmem.*) and how each reads them.
#include "models/common/params.h"
#include "models/memory/memory.h"
#include "sw/isa/address_map.h"

namespace gpuvp {

namespace {
using P = ParamDef;
const bool declared_gmem = declare_params({
    "gmem", "gpu.gmem", "",
    {
        P::String("gmem.model", "byte_serial", {"byte_serial", "dram", "fixed"},
                  "Global memory timing: byte_serial (latency + bytes/bytes_per_cycle), dram (one data bus shared by "
                  "every port and the copy engine, served in arrival order: bytes/bandwidth exact to the ps, then "
                  "latency), fixed"),
        P::Float("gmem.size_mib", 64, 1, 4096, "Global memory size (MiB)"),
        P::Int("gmem.latency", 2, 0, 100000, "Global memory access latency (cycles)"),
        P::Int("gmem.bytes_per_cycle", 1, 1, 1024, "Bytes transferred per cycle (byte_serial, fixed)"),
        P::Float("gmem.bandwidth_gbps", 14.8, 0.1, 10000,
                 "DRAM bandwidth (GB/s, dram model): a transfer of B bytes occupies the data bus B/bandwidth, not "
                 "rounded to cycles; the SMs' and the copy engine's transfers queue for it"),
        P::Float("gmem.latency_ns", 0, 0, 100000,
                 "Extra DRAM access latency (ns, dram model), added to gmem.latency after the transfer"),
        P::Int("gmem.recovery", 0, 0, 1000,
               "Cycles a port of the memory needs between two accesses (byte_serial, fixed): the controller's "
               "return to idle and the hand-over to the next requester; an access that comes sooner waits"),
        P::Bool("gmem.check_bounds", true,
                "Accesses outside every allocation are address errors (false: anything inside global memory goes)"),
    },
});
const bool declared_sysmem = declare_params({
    "sysmem", "gpu.sysmem", "",
    {
        P::Float("sysmem.size_mib", 16, 1, 4096, "System memory size (MiB)"),
        P::Int("sysmem.latency", 2, 0, 100000, "System memory latency (cycles)"),
        P::Int("sysmem.bytes_per_cycle", 4, 1, 1024, "System memory bytes per cycle"),
    },
});
const bool declared_cmem = declare_params({
    "cmem", "gpu.cmem", "",
    {
        P::Float("cmem.size_kib", 64, 1, 65536, "Constant memory size (KiB)"),
        P::Int("cmem.latency", 2, 0, 100000, "Constant memory latency (cycles)"),
        P::Int("cmem.bytes_per_cycle", 4, 1, 1024, "Constant memory bytes per cycle"),
    },
});

MemoryConfig fixed(const Params& p, uint64_t base, double size_bytes, unsigned access_width, const Clock& clk) {
  MemoryConfig m;
  m.base = base;
  m.clock = clk;
  m.size = static_cast<uint64_t>(size_bytes) & ~uint64_t{255};
  m.timing = MemoryConfig::Timing::Fixed;
  m.latency = static_cast<unsigned>(p.i("latency"));
  m.bytes_per_cycle = static_cast<unsigned>(p.i("bytes_per_cycle"));
  m.access_width = access_width;
  return m;
}
}  // namespace

MemoryConfig MemoryConfig::global(const Params& p, const Clock& clk) {
  (void)declared_gmem;
  MemoryConfig m = fixed(p, amap::kGlobalBase, p.f("size_mib") * 1024 * 1024, 8, clk);
  const std::string& model = p.s("model");
  m.timing = model == "dram"    ? MemoryConfig::Timing::Dram
             : model == "fixed" ? MemoryConfig::Timing::Fixed
                                : MemoryConfig::Timing::ByteSerial;
  m.bandwidth_gbps = p.f("bandwidth_gbps");
  m.latency_ns = p.f("latency_ns");
  m.check_bounds = p.b("check_bounds");
  m.recovery = static_cast<unsigned>(p.i("recovery"));
  return m;
}

MemoryConfig MemoryConfig::system(const Params& p, const Clock& clk) {
  (void)declared_sysmem;
  return fixed(p, amap::kSystemBase, p.f("size_mib") * 1024 * 1024, 4, clk);
}

MemoryConfig MemoryConfig::constant(const Params& p, const Clock& clk) {
  (void)declared_cmem;
  return fixed(p, amap::kConstBase, p.f("size_kib") * 1024, 8, clk);
}

}  // namespace gpuvp
