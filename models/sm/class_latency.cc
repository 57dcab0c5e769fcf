// Class latencies as the handlers set them: the instruction class (inst_class.cc) picks the
// latency key; multiply-type integer and fp32 operations take lat.mul, integer and float division
// lat.sfu (also for fp64, whose handler overrides the fp64 latency), shared, local and parameter
// accesses lat.shared, atomics at least lat.atomic.
#include "models/sm/class_latency.h"

#include <algorithm>

#include "models/sm/inst_class.h"

namespace gpuvp::sm {

using isa::Opcode;

namespace {
bool multiply(Opcode op) {
  return op == Opcode::Mul || op == Opcode::Mad || op == Opcode::Mul24 || op == Opcode::Mad24 ||
         op == Opcode::Fma || op == Opcode::Madc;
}
}  // namespace

unsigned class_latency(const isa::Inst& in, const SmLatencies& lat) {
  const InstClass c = classify(in).cls;
  if (in.op == Opcode::Div || in.op == Opcode::Rem) return lat.sfu;
  switch (c) {
    case InstClass::Int: return multiply(in.op) ? lat.mul : lat.alu;
    case InstClass::Fp32: return multiply(in.op) ? lat.mul : lat.alu;
    case InstClass::Fp64: return lat.fp64;
    case InstClass::Sfu: return lat.sfu;
    case InstClass::Shared: case InstClass::Local: case InstClass::Param: return lat.shared;
    case InstClass::Atomic: return std::max(lat.alu, lat.atomic);
    case InstClass::Control: return lat.branch;
    case InstClass::Barrier: return lat.barrier;
    default: return lat.alu;
  }
}

unsigned unit_cycles(const isa::Inst& in, const SmConfig& s) {
  const unsigned per_sched_lanes = std::max(1u, s.sps / s.schedulers);
  const unsigned issue = (s.warp_size + per_sched_lanes - 1) / per_sched_lanes;
  unsigned units = 0;
  switch (classify(in).unit) {
    case UnitClass::Fp64: units = s.units_fp64; break;
    case UnitClass::Sfu: units = s.units_sfu; break;
    case UnitClass::Ldst: units = s.units_ldst; break;
    default: break;
  }
  const unsigned per_sched = units / s.schedulers;
  if (per_sched == 0) return issue;
  return std::max(issue, (s.warp_size + per_sched - 1) / per_sched);
}

}  // namespace gpuvp::sm
