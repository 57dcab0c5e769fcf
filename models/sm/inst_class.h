#pragma once
// What a warp instruction is (InstClass, for the per-class counts) and which execution unit it
// occupies under issue timing (UnitClass; docs/sm.md, "Issue timing"). Internal to models/sm.
#include "models/power/activity.h"
#include "models/sm/sm_config.h"
#include "sw/isa/isa.h"

namespace gpuvp::sm {

struct InstKind {
  InstClass cls;
  UnitClass unit;
};
InstKind classify(const isa::Inst& in);

// The power model's event for a thread-instruction of class `c` (the unit it runs on). Inline: it is
// asked for every warp instruction.
inline power::Event unit_event(InstClass c) {
  switch (c) {
    case InstClass::Fp32: return power::Event::Fp32;
    case InstClass::Fp64: return power::Event::Fp64;
    case InstClass::Sfu: return power::Event::Sfu;
    case InstClass::Global: case InstClass::Const: case InstClass::Param: case InstClass::Shared:
    case InstClass::Local: case InstClass::Atomic:
      return power::Event::Ldst;
    case InstClass::Control: case InstClass::Barrier: return power::Event::Control;
    default: return power::Event::Int;  // int, move, warp-level, other
  }
}
// Register-file operands of an instruction: source registers read (memory operands' base registers
// too) and destination registers written, per active lane.
struct RegAccesses {
  unsigned reads = 0, writes = 0;
};
RegAccesses reg_accesses(const isa::Inst& in);
// What one warp instruction of `in` (of class `cls`) costs besides its issue, per active lane: its
// thread-instruction on its unit, its register reads and writes, and (shared, parameter and local
// memory instructions) one on-chip memory access.
power::ActivityLog::InstEvents power_events(const isa::Inst& in, InstClass cls);

}  // namespace gpuvp::sm
