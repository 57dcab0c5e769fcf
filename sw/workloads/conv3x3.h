#pragma once
// conv3x3: a 3 x 3 image filter (weights in global memory, read by every thread: the hot data of
// docs/reliability.md's protection study) on a float image, borders clamped. Block 16 x 16.
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::conv3x3 {

struct Inputs {
  int64_t width = 0, height = 0;
  std::vector<float> image;  // row-major, values in [0, 255]
  std::vector<float> w;      // 9 weights, row-major
};
// Params: width, height. Grid ceil(width / 16) x ceil(height / 16).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
std::vector<double> reference(const Inputs& in);
// Relative tolerance 1e-5 of sum |w * in| over the 9 terms, plus 1e-6 absolute.
Result check(const Inputs& in, const std::vector<float>& out);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::conv3x3
