// cudaLimitStackSize sizes the call stack of later launches' threads that reach recursive functions:
// a recursion of 100 to 131 frames (a few KiB) fails with the default 1 KiB stack and runs with 12 KiB,
// giving n (n + 1) / 2 per thread; set back to 1 KiB, the same launch overflows its stack
// (cudaErrorLaunchFailure, as CUDA reports a stack overflow). A stack beyond the thread's local memory
// is refused.
#include "check.h"

__device__ int walk(int n) {
  volatile int pad[8];  // a frame in local memory, so each level takes stack
  pad[n % 8] = n;
  if (n == 0) return 0;
  return n + walk(n - 1) + pad[n % 8] - n;
}

__global__ void deep(int* out, int base) { out[threadIdx.x] = walk(base + threadIdx.x); }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  EXPECT_ERROR(cudaDeviceSetLimit(cudaLimitStackSize, size_t(1) << 30), cudaErrorInvalidValue);
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 12 * 1024));
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
  EXPECT(v == 12 * 1024, "stack %zu", v);
  deep<<<1, 32>>>(d, 100);
  CHECK(cudaDeviceSynchronize());
  int h[32];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t) {
    const int n = 100 + t;
    EXPECT(h[t] == n * (n + 1) / 2, "thread %d: %d, expected %d", t, h[t], n * (n + 1) / 2);
  }
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 1024));
  deep<<<1, 32>>>(d, 100);
  EXPECT_ERROR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  std::printf("stack_limit: the stack follows cudaLimitStackSize\n");
  return 0;
}
