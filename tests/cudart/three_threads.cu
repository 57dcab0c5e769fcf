// Three host threads on their per-thread default streams, each launching, synchronising and doing a
// little host work between calls (well inside the grace). Their calls meet the library at varying
// moments, some while another thread is on its way into a call: the turns must serve them in the
// same order every run (cudart:three_threads:repeat). A barrier releases the three together into their
// first launch of the same kernel, whose launch wrapper nvcc guards with a thread-safe static (its
// __cudaGetKernel call once parked a thread inside the guard). Each thread checks its own sums.
#include <pthread.h>

#include <thread>

#include "check.h"

__global__ void add(int* a, int v) { a[threadIdx.x] += v; }

pthread_barrier_t start;

void worker(int id) {
  const int n = 32 * (id + 1), rounds = 40;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemsetAsync(d, 0, n * sizeof(int), cudaStreamPerThread));
  pthread_barrier_wait(&start);
  for (int i = 0; i < rounds; ++i) {
    add<<<1, n, 0, cudaStreamPerThread>>>(d, i + id);
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    volatile double x = 0;
    for (int j = 0; j < 20000; ++j) x = x + j * 0.5;
  }
  int h[96];
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  const int want = rounds * (rounds - 1) / 2 + rounds * id;  // sum of i + id over the rounds
  for (int t = 0; t < n; ++t) EXPECT(h[t] == want, "thread %d: h[%d] = %d, expected %d", id, t, h[t], want);
  CHECK(cudaFree(d));
}

int main() {
  pthread_barrier_init(&start, nullptr, 3);
  std::thread a(worker, 0), b(worker, 1), c(worker, 2);
  a.join();
  b.join();
  c.join();
  std::printf("three_threads: correct\n");
  return 0;
}
