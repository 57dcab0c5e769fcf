// Matrix multiply with shared memory, as the CUDA samples' matrixMul does it: C = A x B for n x n
// matrices (n = argv[1], a multiple of 16, default 64), each block computing a 16 x 16 tile of C from
// 16 x 16 tiles of A and B staged in shared memory; the result is compared exactly with the CPU's
// (matmul_ref.h).
#include <cstdlib>
#include <vector>

#include "check.h"
#include "matmul_ref.h"

constexpr int kTile = 16;

__global__ void matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float as[kTile][kTile], bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.f;
  for (int t = 0; t < n; t += kTile) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  EXPECT(n > 0 && n % kTile == 0 && n <= 1024, "n = %d: a multiple of %d up to 1024 is expected", n, kTile);
  const size_t bytes = size_t(n) * n * sizeof(float);
  std::vector<float> a, b;
  matmul_inputs(n, a, b);
  std::vector<float> c(a.size());
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  matmul<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  const long bad = matmul_mismatch(n, a, b, c);
  EXPECT(bad < 0, "c[%ld][%ld] = %g differs from the CPU's product", bad / n, bad % n, bad < 0 ? 0.f : c[bad]);
  for (float* p : {da, db, dc}) CHECK(cudaFree(p));
  std::printf("matmul: %d x %d product correct\n", n, n);
  return 0;
}
