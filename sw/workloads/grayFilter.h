#pragma once
// grayFilter: gray = 0.299 R + 0.587 G + 0.114 B on a width x height image, 2-D grid.
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::gray_filter {

struct Inputs {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> r, g, b;  // row-major planes
};
// Params: width, height, bx, by (block dims); the grid is ceil(width/bx) x ceil(height/by).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
double gray(uint8_t r, uint8_t g, uint8_t b);
std::vector<double> reference(const Inputs& in);
// Relative tolerance 1e-5 of the expected value plus 1e-6 absolute (all terms are non-negative).
Result check(const Inputs& in, const std::vector<float>& out);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::gray_filter
