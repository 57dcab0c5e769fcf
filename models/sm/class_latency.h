#pragma once
// The class latency (`sm.latency.*`) the issue timing's handlers give an instruction (exec_*.cc,
// memory_unit.cc), without executing it: for estimates made before a kernel runs (the
// vulnerable-period estimate, platform/vp_timing.h). Memory time beyond it is not included.
#include "models/sm/sm_config.h"
#include "sw/isa/isa.h"

namespace gpuvp::sm {

unsigned class_latency(const isa::Inst& in, const SmLatencies& lat);

// The execution unit of `in` and the cycles it holds it on one scheduler (sm.units.*), as the issue
// timing books it; the lanes' issue cycles when its class runs on the lanes.
unsigned unit_cycles(const isa::Inst& in, const SmConfig& s);

}  // namespace gpuvp::sm
