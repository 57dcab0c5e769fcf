// The per-thread default stream. Built twice: with nvcc --default-stream per-thread (which defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM: stream 0 and the synchronous calls are the calling thread's own
// default stream) and without (stream 0 is the legacy NULL stream). CUDA's stream synchronisation rules
// give every expectation:
// - a kernel in stream 0, then one in a stream from cudaStreamCreate (a blocking stream): the per-thread
//   stream synchronises with the legacy stream only, so both run at once (one block each, the device
//   has room for both); the legacy stream is waited for by every blocking stream, so the second
//   kernel cannot start before the first has ended;
// - cudaStreamPerThread in a second host thread is that thread's own stream: its kernel runs at once
//   with the first thread's, in either build;
// - work in cudaStreamLegacy waits for every blocking stream (per-thread ones included), in either build;
// - a host function in a blocking stream (created, cudaStreamPerThread, stream 0) runs after the legacy
//   stream's earlier work: it sees what a legacy kernel wrote and a legacy copy brought back;
// - the synchronous calls of stream 0 that are not copies between the host and an allocation (memset,
//   symbol copies, device to device) wait for a created stream's running kernel in the legacy build and
//   not in the per-thread build (the per-thread stream waits for the legacy stream only).
// chain.h: kernels whose run time bounds their event times from below (floor_ms).
#include <thread>
#include <vector>

#include "chain.h"

__device__ unsigned g_symbol[2];

// The host function's view of pinned memory a legacy copy fills.
volatile unsigned* g_pinned = nullptr;
unsigned g_seen = 0;
void CUDART_CB look(void*) { g_seen = g_pinned[0]; }

int main() {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  const bool per_thread = true;
#else
  const bool per_thread = false;
#endif
  const double floor_ms = chain_floor_ms();
  unsigned* d[2];
  for (auto& p : d) CHECK(cudaMalloc(&p, kThreads * sizeof(unsigned)));
  cudaEvent_t e[5];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  // Stream 0 and a created stream.
  timed_chain(0, e[0], e[1], d[0], 1);
  timed_chain(s, e[2], e[3], d[1], 2);
  check_output(d[0], 1, "stream 0");  // cudaMemcpy waits for stream 0's kernel (its _ptds too)
  CHECK(cudaStreamSynchronize(s));
  check_output(d[1], 2, "created stream");
  const bool default_overlap = overlapped(e, floor_ms);
  EXPECT(default_overlap == per_thread, "%s build: stream 0's kernel [0, %g] ms, the created stream's [%g, %g] ms",
         per_thread ? "per-thread" : "legacy", since(e[0], e[1]), since(e[0], e[2]), since(e[0], e[3]));

  // cudaStreamPerThread in two host threads, then cudaStreamLegacy after both.
  timed_chain(cudaStreamPerThread, e[0], e[1], d[0], 3);
  std::thread other([&] { timed_chain(cudaStreamPerThread, e[2], e[3], d[1], 4); });
  other.join();
  CHECK(cudaEventRecord(e[4], cudaStreamLegacy));
  CHECK(cudaEventSynchronize(e[4]));
  EXPECT(overlapped(e, floor_ms), "thread 1's kernel [0, %g] ms, thread 2's [%g, %g] ms", since(e[0], e[1]),
         since(e[0], e[2]), since(e[0], e[3]));
  EXPECT(since(e[0], e[4]) >= since(e[0], e[1]) && since(e[0], e[4]) >= since(e[0], e[3]),
         "cudaStreamLegacy's record at %g ms, before a kernel's end (%g, %g ms)", since(e[0], e[4]), since(e[0], e[1]),
         since(e[0], e[3]));
  check_output(d[0], 3, "thread 1");
  check_output(d[1], 4, "thread 2");

  // Host functions in blocking streams after legacy work.
  unsigned* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, kThreads * sizeof(unsigned)));
  g_pinned = pinned;
  const cudaStream_t blocking[3] = {s, cudaStreamPerThread, 0};
  for (int k = 0; k < 3; ++k) {
    pinned[0] = 0;
    g_seen = 0;
    chain<<<1, kThreads, 0, cudaStreamLegacy>>>(d[0], 10 + k, kIters);
    CHECK(cudaMemcpyAsync(pinned, d[0], kThreads * sizeof(unsigned), cudaMemcpyDeviceToHost, cudaStreamLegacy));
    CHECK(cudaLaunchHostFunc(blocking[k], look, nullptr));
    CHECK(cudaDeviceSynchronize());
    EXPECT(g_seen == reference(10 + k), "host function %d in a blocking stream saw %u, not the legacy copy's %u", k,
           g_seen, reference(10 + k));
  }
  CHECK(cudaFreeHost(pinned));

  // Synchronous calls in stream 0 while a created stream runs a kernel.
  const char* calls[4] = {"cudaMemset", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "device-to-device cudaMemcpy"};
  for (int k = 0; k < 4; ++k) {
    chain<<<1, kThreads, 0, s>>>(d[1], 20 + k, kIters);
    unsigned v[2] = {7u + k, 8u + k}, back[2] = {0, 0};
    if (k == 0) CHECK(cudaMemset(d[0], 0, kThreads * sizeof(unsigned)));
    if (k == 1) CHECK(cudaMemcpyToSymbol(g_symbol, v, sizeof v));
    if (k == 2) CHECK(cudaMemcpyFromSymbol(back, g_symbol, sizeof back));
    if (k == 3) CHECK(cudaMemcpy(d[0], d[1] + kThreads - 2, sizeof back, cudaMemcpyDeviceToDevice));
    const cudaError_t q = cudaStreamQuery(s);
    EXPECT(q == (per_thread ? cudaErrorNotReady : cudaSuccess), "%s build: %s in stream 0: the created stream's "
           "kernel %s", per_thread ? "per-thread" : "legacy", calls[k], q == cudaSuccess ? "had ended" : "still ran");
    CHECK(cudaDeviceSynchronize());
    if (k == 2) EXPECT(back[0] == 8 && back[1] == 9, "cudaMemcpyFromSymbol read %u %u, not 8 9", back[0], back[1]);
  }
  check_output(d[1], 23, "the last created-stream kernel");

  for (auto ev : e) CHECK(cudaEventDestroy(ev));
  CHECK(cudaStreamDestroy(s));
  for (auto p : d) CHECK(cudaFree(p));
  std::printf("per_thread: %s build correct, kernels of %g ms at least\n", per_thread ? "per-thread" : "legacy",
              floor_ms);
  return 0;
}
