// Host functions awaited without a CUDA call, as the simpleCallback sample awaits its callbacks on a
// barrier: CUDA runs them on its own threads, so the program goes on. Two streams each fill, copy back
// into pinned memory and queue a host function that sums the copy and signals a condition variable
// the main thread waits on; then a host function sets a flag the main thread polls with a sleep (not
// a futex: it runs once the thread has not called for the grace). Without them the program would
// wait for ever (docs/cuda.md, "Host functions").
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "check.h"

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

constexpr int kN = 512;
struct Work {
  cudaStream_t stream;
  int* d;
  int* h;
  int v;
  long sum = -1;
};
std::mutex m;
std::condition_variable cv;
int done = 0;
std::atomic<bool> flag{false};

void CUDART_CB summed(void* p) {
  Work* w = static_cast<Work*>(p);
  long s = 0;
  for (int i = 0; i < kN; ++i) s += w->h[i];
  std::lock_guard<std::mutex> lk(m);
  w->sum = s;
  ++done;
  cv.notify_all();
}

void CUDART_CB set_flag(void*) { flag = true; }

int main() {
  Work w[2];
  for (int k = 0; k < 2; ++k) {
    w[k].v = 1000 * (k + 1);
    CHECK(cudaStreamCreate(&w[k].stream));
    CHECK(cudaMalloc(&w[k].d, kN * sizeof(int)));
    CHECK(cudaMallocHost(&w[k].h, kN * sizeof(int)));
    fill<<<kN / 128, 128, 0, w[k].stream>>>(w[k].d, w[k].v, kN);
    CHECK(cudaMemcpyAsync(w[k].h, w[k].d, kN * sizeof(int), cudaMemcpyDeviceToHost, w[k].stream));
    CHECK(cudaLaunchHostFunc(w[k].stream, summed, &w[k]));
  }
  {
    std::unique_lock<std::mutex> lk(m);
    cv.wait(lk, [] { return done == 2; });
  }
  for (int k = 0; k < 2; ++k) {
    const long want = long(kN) * w[k].v + long(kN) * (kN - 1) / 2;
    EXPECT(w[k].sum == want, "stream %d: the host function summed %ld, expected %ld", k, w[k].sum, want);
  }
  CHECK(cudaLaunchHostFunc(w[0].stream, set_flag, nullptr));
  while (!flag) usleep(1000);
  for (int k = 0; k < 2; ++k) {
    CHECK(cudaStreamDestroy(w[k].stream));
    CHECK(cudaFree(w[k].d));
    CHECK(cudaFreeHost(w[k].h));
  }
  std::printf("callback_wait: host functions ran while the program waited\n");
  return 0;
}
