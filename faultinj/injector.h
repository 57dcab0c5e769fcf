#pragma once
// Applies a fault to the registry of injectable state at the current simulated instant. Transient
// faults are one write; intermittent and permanent faults are re-applied at every clock edge while
// they last (a stuck bit stays stuck whatever the design writes; a flip is held flipped relative
// to the value the design last wrote).
#include <string>

#include "faultinj/fault.h"
#include "models/common/registry.h"

namespace gpuvp::fi {

// Why a fault cannot be applied (unknown target, word or bit out of range), or "" when it can.
std::string check_applicable(const Registry& reg, const Fault& f);

// Applies `f` now; for held faults spawns the SystemC process that keeps it applied until
// `f.hold_ps` has passed (intermittent) or to the end (permanent). `period_ps` is the clock period.
// Throws std::invalid_argument when check_applicable() says no.
void inject(Registry& reg, const Fault& f, uint64_t period_ps);

}  // namespace gpuvp::fi
