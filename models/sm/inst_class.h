#pragma once
// What a warp instruction is (InstClass, for the per-class counts) and which execution unit it
// occupies under issue timing (UnitClass; docs/sm.md, "Issue timing"). Internal to models/sm.
#include "models/sm/sm_config.h"
#include "sw/isa/isa.h"

namespace gpuvp::sm {

struct InstKind {
  InstClass cls;
  UnitClass unit;
};
InstKind classify(const isa::Inst& in);

}  // namespace gpuvp::sm
