// A program with a second thread that makes no CUDA call: the thread waits for the main thread's
// results and writes them. fork() would copy only the calling thread, so a campaign cannot fork this
// program at an instant (tests/cudart/fork_campaign.py: it runs the faults as fresh processes).
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "check.h"

__global__ void twice(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2 * i;
}

int main() {
  const int n = 32;
  int h[n] = {};
  bool ready = false;
  std::mutex m;
  std::condition_variable cv;
  std::thread writer([&] {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return ready; });
    long total = 0;
    for (int v : h) total += v;
    std::printf("idle_thread: total %ld\n", total);
  });
  int* d;
  CHECK(cudaMalloc(&d, sizeof h));
  twice<<<1, n>>>(d, n);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  {
    std::lock_guard lk(m);
    ready = true;
  }
  cv.notify_one();
  writer.join();
  return 0;
}
