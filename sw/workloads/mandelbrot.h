#pragma once
// mandelbrot: escape iteration count of every pixel (divergence-heavy).
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::mandelbrot {

struct Inputs {
  int64_t width = 0, height = 0;
  int32_t max_iter = 0;
  float x0 = 0, y0 = 0, dx = 0, dy = 0;  // pixel (x, y) is c = (x0 + x*dx, y0 + y*dy)
};
// Params: width, height, bx, by, max_iter. The seed shifts the window [-2, 0.5] x [-1.25, 1.25] by
// up to +-0.05 in each direction.
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
// Steps of z <- z^2 + c from z = 0 taken while |z|^2 <= 4, at most max_iter; single precision,
// every operation rounded separately (as the kernel's __fmul_rn / __fadd_rn).
int32_t iterations(float cx, float cy, int32_t max_iter);
std::vector<int32_t> reference(const Inputs& in);
// Exact.
Result check(const Inputs& in, const std::vector<int32_t>& out);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::mandelbrot
