// Two streams with priorities, asynchronous copies from pinned memory, events for timing, polling
// calls (cudaEventQuery, cudaStreamQuery), cudaStreamWaitEvent. The elapsed time is simulated time:
// a kernel whose threads each run `iters` dependent steps cannot take less than `iters` GPU cycles,
// which bounds the event time from below by iters / clockRate.
#include <vector>

#include "check.h"

__global__ void chain(const unsigned* in, unsigned* out, int n, int iters) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
  for (int k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;  // each step needs the last
  out[i] = x;
}

unsigned reference(unsigned x, int iters) {
  for (int k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;
  return x;
}

int main() {
  const int n = 512, iters = 2000;
  const size_t bytes = n * sizeof(unsigned);
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT(least == 0 && greatest == -1, "priority range [%d, %d], the TX2's is [0, -1]", least, greatest);
  cudaStream_t hi, lo;
  CHECK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest));
  CHECK(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least));
  int prio = 1;
  CHECK(cudaStreamGetPriority(hi, &prio));
  EXPECT(prio == -1, "high stream priority %d", prio);
  unsigned *h_in, *h_out[2];
  CHECK(cudaMallocHost(&h_in, bytes));
  CHECK(cudaHostAlloc(&h_out[0], bytes, cudaHostAllocDefault));
  CHECK(cudaMallocHost(&h_out[1], bytes));
  for (int i = 0; i < n; ++i) h_in[i] = unsigned(i) * 7u + 1u;
  unsigned *d_in, *d_out[2];
  CHECK(cudaMalloc(&d_in, bytes));
  for (auto& p : d_out) CHECK(cudaMalloc(&p, bytes));
  cudaEvent_t start, stop, copied, no_timing;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&copied, cudaEventBlockingSync));
  CHECK(cudaEventCreateWithFlags(&no_timing, cudaEventDisableTiming));

  CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, lo));
  CHECK(cudaEventRecord(copied, lo));
  CHECK(cudaStreamWaitEvent(hi, copied, 0));  // the high stream's kernel reads what lo copied
  CHECK(cudaEventRecord(start, hi));
  chain<<<n / 128, 128, 0, hi>>>(d_in, d_out[0], n, iters);
  CHECK(cudaEventRecord(stop, hi));
  chain<<<n / 128, 128, 0, lo>>>(d_in, d_out[1], n, iters / 2);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_out[0], d_out[0], bytes, cudaMemcpyDeviceToHost, hi));
  CHECK(cudaMemcpyAsync(h_out[1], d_out[1], bytes, cudaMemcpyDeviceToHost, lo));
  // Polling ends: each query lets simulated time pass.
  long polls = 0;
  while (cudaEventQuery(stop) == cudaErrorNotReady) ++polls;
  CHECK(cudaEventQuery(stop));
  while (cudaStreamQuery(lo) == cudaErrorNotReady) ++polls;
  CHECK(cudaStreamSynchronize(hi));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    EXPECT(h_out[0][i] == reference(h_in[i], iters), "high stream: out[%d] = %u", i, h_out[0][i]);
    EXPECT(h_out[1][i] == reference(h_in[i], iters / 2), "low stream: out[%d] = %u", i, h_out[1][i]);
  }
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int khz = 0;  // CUDA 13's cudaDeviceProp has no clock rate: the attribute gives it
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double floor_ms = double(iters) / khz;  // cycles / kHz = ms
  EXPECT(ms >= floor_ms && ms < 1000 * floor_ms, "elapsed %g ms, at least %g ms (%d dependent steps at %d kHz)", ms,
         floor_ms, iters, khz);
  float unused;
  EXPECT_ERROR(cudaEventElapsedTime(&unused, start, no_timing), cudaErrorInvalidResourceHandle);
  // Host code between calls takes no simulated time: two records with nothing between are 0 ms apart.
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a, lo));
  volatile double spin = 0;
  for (int k = 0; k < 2000000; ++k) spin = spin + k;
  CHECK(cudaEventRecord(b, lo));
  CHECK(cudaEventSynchronize(b));
  float host_ms = -1;
  CHECK(cudaEventElapsedTime(&host_ms, a, b));
  EXPECT(host_ms == 0.f, "host code took %g ms of simulated time", host_ms);
  for (cudaEvent_t e : {start, stop, copied, no_timing, a, b}) CHECK(cudaEventDestroy(e));
  CHECK(cudaStreamDestroy(hi));
  CHECK(cudaStreamDestroy(lo));
  CHECK(cudaFreeHost(h_in));
  for (auto p : h_out) CHECK(cudaFreeHost(p));
  CHECK(cudaFree(d_in));
  for (auto p : d_out) CHECK(cudaFree(p));
  std::printf("streams_events: correct, kernel %.6f ms (at least %.6f), %ld polls\n", ms, floor_ms, polls);
  return 0;
}
