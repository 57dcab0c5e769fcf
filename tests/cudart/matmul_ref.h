// matmul's inputs and CPU reference (tests/cudart/matmul.cu), shared with its C++ API version
// (tests/cuda_twins/twins.cc) so that both do the same host work. The elements are small multiples of
// 0.5: every product and partial sum is exact in float, so the comparison is exact.
#pragma once
#include <cstddef>
#include <vector>

inline void matmul_inputs(int n, std::vector<float>& a, std::vector<float>& b) {
  a.resize(size_t(n) * n);
  b.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i % 7) - 3), b[i] = float(i % 5) * 0.5f;
}

// The index of the first element of c that is not the CPU's product of a and b, or -1.
inline long matmul_mismatch(int n, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col) {
      float want = 0.f;
      for (int k = 0; k < n; ++k) want += a[size_t(r) * n + k] * b[size_t(k) * n + col];
      if (c[size_t(r) * n + col] != want) return long(r) * n + col;
    }
  return -1;
}
