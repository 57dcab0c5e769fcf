#pragma once
// matrixMul: C (M x N) = A (M x K) * B (K x N), 16 x 16 shared-memory tiles.
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::matrix_mul {

struct Inputs {
  int64_t M = 0, K = 0, N = 0;
  std::vector<float> A, B;  // row-major
};
// Params: M, K, N (K <= 1024). Block 16 x 16, grid ceil(N/16) x ceil(M/16).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
std::vector<double> reference(const Inputs& in);
// |got - exact| <= max(1e-5, K * 2^-23) * sum_k |A_ik B_kj| (+1e-30): a float dot product of K terms
// is within K units of roundoff of that magnitude whatever the order and fma contraction.
Result check(const Inputs& in, const std::vector<float>& C);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::matrix_mul
