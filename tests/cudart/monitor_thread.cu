// A worker thread makes the CUDA calls while the main thread, which makes none, polls a flag with a
// sleep (a progress monitor). The first call waits the grace for the sleeping thread (served
// unordered); after that the thread is not waited for until it calls, so the other 19 calls are
// served at once (each used to wait a whole grace: 2 s for the program).
#include <atomic>
#include <chrono>
#include <thread>

#include "check.h"

__global__ void inc(int* p) { p[threadIdx.x] += 1; }

std::atomic<bool> done{false};

int main() {
  std::thread worker([] {
    int* d;
    CHECK(cudaMalloc(&d, 32 * sizeof(int)));
    CHECK(cudaMemset(d, 0, 32 * sizeof(int)));
    for (int i = 0; i < 8; ++i) {
      inc<<<1, 32>>>(d);
      CHECK(cudaDeviceSynchronize());
    }
    int h[32];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; ++t) EXPECT(h[t] == 8, "h[%d] = %d", t, h[t]);
    done = true;
  });
  while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  worker.join();
  std::printf("monitor_thread: correct\n");
  return 0;
}
