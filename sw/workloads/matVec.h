#pragma once
// matVec: y = A x, A M x N column-major, one thread per row: every warp reads all of x (a small,
// read-only, shared object: the hot data of docs/reliability.md's protection study).
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::mat_vec {

struct Inputs {
  int64_t M = 0, N = 0;
  std::vector<float> A, x;  // A column-major: (i, j) at A[j * M + i]
};
// Params: M, N, threads (per block). Grid ceil(M / threads).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
std::vector<double> reference(const Inputs& in);
// |got - exact| <= max(1e-5, N * 2^-23) * sum_j |A_ij x_j| (+1e-30), as matrixMul's dot products.
Result check(const Inputs& in, const std::vector<float>& y);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::mat_vec
