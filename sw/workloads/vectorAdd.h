#pragma once
// vectorAdd: c[i] = a[i] + b[i].
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::vector_add {

struct Inputs {
  std::vector<float> a, b;
};
// Params: n (elements), blocks, threads (blocks * threads >= n).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
std::vector<double> reference(const Inputs& in);
// Relative tolerance 1e-5 (plus 1e-30 absolute for exact zeros).
Result check(const Inputs& in, const std::vector<float>& c);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::vector_add
