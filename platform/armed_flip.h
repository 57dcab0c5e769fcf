#pragma once
// One transient fault armed in a platform before it runs: at simulated instant `time_ps`, word `index`
// of registered target `target` is XORed with `mask` (a bit flip is a one-bit mask). It is what a
// campaign on an application (docs/campaigns.md) passes to each faulty run in the environment
// (GPUVP_FAULT), because that run is a fresh process of its own and cannot be forked at the instant.
// The same registry write as the campaign engine's injector, kept below faultinj/ so that the CUDA
// runtime library (cudart/) can apply it, at the instant as the engine does.
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

// Checks the fault against `p`'s registry: the target, the word, the mask within the width (else
// std::invalid_argument naming them). Call before the platform runs.
void check_armed_flip(Platform& p, const ArmedFlip& f);

// Simulates `p` (started: Platform::start) up to the fault's instant and applies it there, as the
// campaign engine's forked runs do: Platform::advance_to, so that SMs running ahead of simulated time
// within their quantum stop at the instant first. A run whose host program finishes before the instant
// leaves it unapplied (struck stays false). Go on with Platform::finish().
ArmedFlipState strike_at_instant(Platform& p, const ArmedFlip& f);

}  // namespace gpuvp
