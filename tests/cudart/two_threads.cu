// Two host threads, each with its own stream, launch, copy and synchronise at the same time; their
// kernels print (device printf reaches the program's standard output).
#include <thread>
#include <vector>

#include "check.h"

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
  if (i == 0) printf("fill: block %d wrote from %d\n", blockIdx.x, v);
}

void work(int v) {
  const int n = 1000;
  int* d;
  std::vector<int> h(n);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  fill<<<(n + 255) / 256, 256, 0, s>>>(d, v, n);
  CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == v + i, "thread %d: h[%d] = %d", v, i, h[i]);
  CHECK(cudaFree(d));
  CHECK(cudaStreamDestroy(s));
}

int main() {
  std::thread a([] { work(100); }), b([] { work(5000); });
  a.join();
  b.join();
  std::printf("two_threads: correct\n");
  return 0;
}
