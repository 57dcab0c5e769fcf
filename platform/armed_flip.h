#pragma once
// One transient fault armed in a platform before it runs: at simulated instant `time_ps`, word `index`
// of registered target `target` is XORed with `mask` (a bit flip is a one-bit mask). It is what a
// campaign on an application (docs/campaigns.md) passes to each faulty run in the environment
// (GPUVP_FAULT), because that run is a fresh process of its own and cannot be forked at the instant.
// The same registry write as the campaign engine's injector, kept below faultinj/ so that the CUDA
// runtime library (cudart/) can apply it.
#include <cstdint>
#include <memory>
#include <string>

#include "platform/platform.h"

namespace gpuvp {

struct ArmedFlip {
  std::string target;
  uint64_t index = 0;
  uint64_t mask = 0;
  uint64_t time_ps = 0;
};

// "TARGET[INDEX]^0xMASK@TIME_PS", e.g. "gpu.gmem[12]^0x1@1234000".
std::string to_text(const ArmedFlip& f);
// The inverse; throws std::invalid_argument saying what is wrong with `text`.
ArmedFlip parse_armed_flip(const std::string& text);

// What became of an armed fault; read once the run is over.
struct ArmedFlipState {
  bool struck = false;
  uint64_t before = 0, after = 0;  // the word's value at the instant, and after the flip
};

// Checks the fault against `p`'s registry (target, word, mask within the width; else
// std::invalid_argument naming them) and spawns the process that applies it at its instant of
// simulated time. Call before the platform runs. A run that ends before the instant leaves it
// unapplied (state->struck stays false). Unlike the campaign engine, which stops the simulation at the
// instant (Platform::advance_to, SMs synchronised there), the process acts while the simulation runs:
// an SM running ahead of simulated time within its quantum may have gone past the instant already.

std::shared_ptr<const ArmedFlipState> arm(Platform& p, const ArmedFlip& f);

}  // namespace gpuvp
