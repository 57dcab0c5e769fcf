// The SM's parameters (sm.*, overridable per SM as gpu.smN.*) and how the SM reads them.
#include "models/common/params.h"
#include "models/sm/sm_config.h"

namespace gpuvp {

namespace {
using P = ParamDef;
const bool declared = declare_params({
    "sm", "gpu.sm#", "sm.count",
    {
        P::Int("sm.count", 1, 1, 64,
               "Number of SMs: 1..16 with the FlexGripPlus batch scheduler or the RTL arbiters, up to 64 "
               "with the concurrent dispatcher")
            .one_for_all(),
        P::Int("sm.sps", 8, 1, 256,
               "SPs (CUDA cores) per SM, split evenly between the warp schedulers; a warp instruction issues over "
               "warp_size/(sps/schedulers) cycles"),
        P::Int("sm.schedulers", 1, 1, 8,
               "Issue timing: warp schedulers per SM (warp slot w belongs to scheduler w mod schedulers), each with "
               "sps/schedulers lanes, its own warp policy and one issue per cycle; must divide sm.sps"),
        P::Int("sm.dispatch_per_scheduler", 1, 1, 2,
               "Issue timing: instructions a scheduler may issue in one cycle; 2: a warp's next instruction issues "
               "in the same cycle when it does not depend on the first (Kepler dual issue)"),
        P::Int("sm.units.fp64", 0, 0, 256,
               "Issue timing: fp64 units per SM (0: fp64 runs on the lanes); a warp instruction holds its "
               "scheduler's share for warp_size/(units/schedulers) cycles; must be a multiple of sm.schedulers"),
        P::Int("sm.units.sfu", 0, 0, 256,
               "Issue timing: special function units per SM (sqrt, rcp, sin, cos, ex2, lg2, div, rem; 0: on the "
               "lanes); must be a multiple of sm.schedulers"),
        P::Int("sm.units.ldst", 0, 0, 256,
               "Issue timing: load/store units per SM (ld, st, atom of every space; 0: on the lanes); must be a "
               "multiple of sm.schedulers"),
        P::Int("sm.warp_size", 32, 4, 32,
               "Threads per warp (power of two); nvcc's warp-level instructions (shfl, vote, activemask) need 32 "
               "and stop with a device error on narrower warps",
               true)
            .one_for_all(),
        P::Int("sm.max_threads", 2048, 32, 4096, "Resident threads per SM"),
        P::Int("sm.max_threads_per_block", 1024, 32, 1024, "Threads per block"),
        P::Int("sm.max_blocks", 8, 1, 64, "Resident blocks per SM (hardware limit)"),
        P::Int("sm.registers", 65536, 256, 262144, "32-bit registers per SM"),
        P::Int("sm.shared_bytes", 16384, 1024, 262144, "Shared memory per SM (bytes)"),
        P::Int("sm.shared_per_block", 16384, 1024, 262144, "Shared memory per block (bytes)"),
        P::Int("sm.ibuf_insts", 64, 0, 4096, "Instruction buffer (instructions); 0 fetches every instruction"),
        P::String("sm.warp_policy", "rr", {"rr", "gto", "rr_strict"},
                  "Warp scheduler: round robin over ready warps, greedy-then-oldest, or strict round robin (each "
                  "warp id in turn, waiting for it: FlexGripPlus)"),
        P::String("sm.timing", "issue", {"issue", "flexgrip"},
                  "Instruction timing: issue (warp schedulers with their lanes and execution units, a latency per "
                  "class) or flexgrip "
                  "(the FlexGripPlus five-stage pipeline, lane group by lane group; docs/sm.md)"),
        P::Bool("sm.fold_operands", false,
                "flexgrip timing: ld.param, cvta and moves of %ntid/%ctaid/%nctaid take no pipeline slot (the G80 "
                "code FlexGripPlus runs has them as operands of their consumers)"),
        P::Bool("sm.coalesce", false, "Coalesce global accesses into segments (false: lane by lane)"),
        P::Int("sm.coalesce_bytes", 32, 4, 256, "Coalescing segment (bytes)", true),
        P::Int("sm.max_pending_loads", 0, 0, 64,
               "Issue timing: global/constant loads a warp keeps in flight while it issues instructions that do not "
               "use their destination registers (scoreboard); 0: a warp waits for each load's data (docs/sm.md)"),
        P::Int("sm.shared_banks", 0, 0, 64,
               "Issue timing: shared memory banks of 4-byte words; a warp's shared access replays once per extra "
               "distinct word mapped to its busiest bank (docs/sm.md); 0: no bank model, every access the flat "
               "sm.latency.shared"),
        P::Bool("sm.statistics", true,
                "Keep the SM's per-instruction statistics (scheduler cycles and stalls, instruction classes, "
                "per-launch shares, shared accesses); false: they stay 0 and cost no host time (warp_insts and "
                "thread_insts are always counted)")
            .one_for_all(),
        P::Int("sm.local_bytes", 16384, 0, 524288, "Local memory per thread limit (bytes)"),
        P::Int("sm.stack_bytes", 1024, 0, 524288,
               "Call stack per thread (bytes) of kernels with recursive functions, taken from sm.local_bytes; a "
               "deeper recursion stops with a stack overflow error")
            .one_for_all(),
        P::Int("sm.latency.alu", 4, 1, 1000, "Cycles: integer/fp32 ALU"),
        P::Int("sm.latency.mul", 4, 1, 1000, "Cycles: multiply, mad, fma"),
        P::Int("sm.latency.fp64", 8, 1, 1000, "Cycles: fp64"),
        P::Int("sm.latency.sfu", 16, 1, 1000, "Cycles: sqrt, rcp, sin, cos, ex2, lg2, div, rem"),
        P::Int("sm.latency.shared", 4, 1, 1000, "Cycles: shared memory access"),
        P::Int("sm.latency.branch", 2, 1, 1000, "Cycles: branch"),
        P::Int("sm.latency.barrier", 2, 1, 1000, "Cycles: barrier"),
        P::Int("sm.latency.atomic", 4, 0, 1000, "Extra cycles: atomic read-modify-write at the memory"),
    },
});

unsigned u(const Params& p, const char* key) { return static_cast<unsigned>(p.i(key)); }
}  // namespace

WarpPolicy parse_warp_policy(const std::string& s) {
  return s == "gto" ? WarpPolicy::Gto : s == "rr_strict" ? WarpPolicy::StrictRoundRobin : WarpPolicy::RoundRobin;
}

SmConfig SmConfig::from(const Params& p) {
  (void)declared;
  SmConfig s;
  s.warp_size = u(p, "warp_size");
  s.sps = u(p, "sps");
  s.schedulers = u(p, "schedulers");
  s.dispatch = u(p, "dispatch_per_scheduler");
  const Params units = p.sub("units");
  s.units_fp64 = u(units, "fp64");
  s.units_sfu = u(units, "sfu");
  s.units_ldst = u(units, "ldst");
  s.max_threads = u(p, "max_threads");
  s.max_threads_per_block = u(p, "max_threads_per_block");
  s.max_blocks = u(p, "max_blocks");
  s.registers = u(p, "registers");
  s.shared_bytes = u(p, "shared_bytes");
  s.shared_per_block = u(p, "shared_per_block");
  s.ibuf_insts = u(p, "ibuf_insts");
  s.coalesce = p.b("coalesce");
  s.coalesce_bytes = u(p, "coalesce_bytes");
  s.warp_policy = parse_warp_policy(p.s("warp_policy"));
  s.max_local_bytes = u(p, "local_bytes");
  s.max_pending_loads = u(p, "max_pending_loads");
  s.shared_banks = u(p, "shared_banks");
  s.statistics = p.b("statistics");
  s.stack_bytes = u(p, "stack_bytes");
  s.timing = p.s("timing") == "flexgrip" ? SmTiming::Flexgrip : SmTiming::Issue;
  s.fold_operands = p.b("fold_operands");
  const Params lat = p.sub("latency");
  s.lat.alu = u(lat, "alu");
  s.lat.mul = u(lat, "mul");
  s.lat.fp64 = u(lat, "fp64");
  s.lat.sfu = u(lat, "sfu");
  s.lat.shared = u(lat, "shared");
  s.lat.branch = u(lat, "branch");
  s.lat.barrier = u(lat, "barrier");
  s.lat.atomic = u(lat, "atomic");
  return s;
}

}  // namespace gpuvp
