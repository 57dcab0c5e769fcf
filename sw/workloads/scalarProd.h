#pragma once
// scalarProd: dot products of `vectors` pairs of `elements`-long float vectors.
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::scalar_prod {

struct Inputs {
  int64_t vectors = 0, elements = 0;
  std::vector<float> a, b;  // vectors x elements, row-major
};
// Params: vectors, elements, blocks, threads (a power of two <= 512).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
std::vector<double> reference(const Inputs& in);
// Summation order differs from the CPU's: |got - exact| <= 1e-5 * sum_i |a_i b_i| (+1e-30).
Result check(const Inputs& in, const std::vector<float>& c);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::scalar_prod
