// vectorAdd as the CUDA samples write it; exit status 0 when every sum equals the CPU's.
#include <cstdio>
#include <vector>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 50000;
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = 2.0f * float(i);
  float *da, *db, *dc;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice);
  vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "vector_add: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      std::fprintf(stderr, "vector_add: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
      return 1;
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("vector_add: %d sums correct\n", n);
  return 0;
}
