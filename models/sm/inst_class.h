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

// The power model's event for a thread-instruction of class `c` (the unit it runs on).
power::Event unit_event(InstClass c);
// Register-file operands of an instruction: source registers read (memory operands' base registers
// too) and destination registers written, per active lane.
struct RegAccesses {
  unsigned reads = 0, writes = 0;
};
RegAccesses reg_accesses(const isa::Inst& in);

}  // namespace gpuvp::sm
