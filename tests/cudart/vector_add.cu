// vectorAdd as the CUDA samples write it: synchronous copies both ways, a launch, a CPU reference.
// Also a memset, a device-to-device copy and cudaMemcpyDefault.
#include <cmath>
#include <vector>

#include "check.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 5000;
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n, -1.f);
  for (int i = 0; i < n; ++i) a[i] = float(i) * 0.5f, b[i] = float(n - i) * 0.25f;
  float *da, *db, *dc, *dd;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMalloc(&dd, bytes));
  CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyDefault));
  CHECK(cudaMemset(dc, 0xFF, bytes));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  vector_add<<<blocks, threads>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(dd, dc, bytes, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy(c.data(), dd, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(c[i] == a[i] + b[i], "c[%d] = %g, expected %g", i, c[i], a[i] + b[i]);
  // The memset's bytes where no thread wrote: a kernel of n - 1 elements leaves the last one.
  CHECK(cudaMemset(dc, 0xFF, bytes));
  vector_add<<<blocks, threads>>>(da, db, dc, n - 1);
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  EXPECT(std::isnan(c[n - 1]) && c[n - 2] == a[n - 2] + b[n - 2], "memset bytes: c[n-1] = %g", c[n - 1]);
  for (float* p : {da, db, dc, dd}) CHECK(cudaFree(p));
  std::printf("vector_add: %d elements correct\n", n);
  return 0;
}
