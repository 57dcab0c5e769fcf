#pragma once
// reduction: per-block partial sums of a float array (warp shuffles + shared memory).
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::reduction {

struct Inputs {
  std::vector<float> in;  // values k / 256, k in [-256, 256]: every partial sum is exact in float
  int64_t blocks = 0, threads = 0;
};
// Params: n (<= 65536), blocks, threads (a multiple of 32, <= 1024).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
// out[b] = sum of in[i] for every i whose grid-stride slot i % (blocks*threads) is in block b.
std::vector<double> reference(const Inputs& in);
// Exact: the inputs are multiples of 2^-8 with |sum| <= 2^16, so any summation order is exact.
Result check(const Inputs& in, const std::vector<float>& out);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::reduction
