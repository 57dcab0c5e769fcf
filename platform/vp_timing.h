#pragma once
// The per-instruction issue-to-next-issue time the vulnerable-period estimate weighs dependence
// edges with (sw/ptx/vp_estimate.h, docs/vulnerable-period.md), from the same parameters the SM's
// timing uses: the issue timing's issue cycles, units and class latencies (sm.*), or the FlexGripPlus
// pipeline's stage costs (sm.timing = flexgrip); the memories' latency and bandwidth.
#include "platform/config/config.h"
#include "sw/ptx/vp_estimate.h"

namespace gpuvp {

// `warps` resident warps per SM; every SM's resident warps contend for global memory.
ptx::vp::StepCycles vp_step_cycles(const Config& cfg, unsigned warps);

}  // namespace gpuvp
