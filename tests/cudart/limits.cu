// What CUDA programs meet at the edges, as CUDA answers it:
// - events created and destroyed in a loop (a timing loop) never run out: a destroyed event is given back;
// - a device-to-host cudaMemcpyAsync into pageable memory has completed when the call returns (CUDA's
//   rule for pageable memory), so the program may read or free the buffer at once;
// - sizes that would wrap around are refused (allocations, 2D copies, registrations), not granted;
// - a block of z above 64 is an invalid configuration; a kernel's __launch_bounds__ caps its blocks
//   (cudaFuncGetAttributes says so, a larger block is cudaErrorLaunchOutOfResources);
// - a child the program forks gets cudaErrorInitializationError from its CUDA calls (it has no device);
// - the attributes samples query before using a feature answer.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "check.h"

__global__ void fill(int* a, int v) { a[threadIdx.x] = v + threadIdx.x; }
__global__ void __launch_bounds__(128) bounded(int* a) { a[threadIdx.x] = 1; }

int main() {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));

  for (int i = 0; i < 200; ++i) {  // beyond the dispatcher's 64 events
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a));
    fill<<<1, 64>>>(d, i);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    EXPECT(ms > 0, "iteration %d: %g ms", i, ms);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
  }

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* pageable = static_cast<int*>(std::malloc(64 * sizeof(int)));
  for (int i = 0; i < 64; ++i) pageable[i] = -1;
  fill<<<1, 64, 0, s>>>(d, 1000);
  CHECK(cudaMemcpyAsync(pageable, d, 64 * sizeof(int), cudaMemcpyDeviceToHost, s));
  for (int i = 0; i < 64; ++i) EXPECT(pageable[i] == 1000 + i, "pageable[%d] = %d right after the call", i, pageable[i]);
  std::free(pageable);
  CHECK(cudaStreamSynchronize(s));

  void* p = nullptr;
  size_t pitch = 0;
  EXPECT_ERROR(cudaMalloc(&p, SIZE_MAX), cudaErrorMemoryAllocation);
  EXPECT_ERROR(cudaMalloc(&p, size_t(-1) * sizeof(float)), cudaErrorMemoryAllocation);
  EXPECT_ERROR(cudaMallocHost(&p, SIZE_MAX), cudaErrorMemoryAllocation);
  EXPECT_ERROR(cudaMallocManaged(&p, SIZE_MAX - 99), cudaErrorMemoryAllocation);
  EXPECT_ERROR(cudaMallocPitch(&p, &pitch, SIZE_MAX, 2), cudaErrorMemoryAllocation);
  static char host[4096];
  EXPECT_ERROR(cudaMemcpy2D(d, 16, host, 16, 16, size_t(1) << 60, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaHostRegister(host, SIZE_MAX, 0), cudaErrorInvalidValue);
  CHECK(cudaHostRegister(host, sizeof host, 0));  // the refused registration left nothing behind
  CHECK(cudaHostUnregister(host));
  cudaGetLastError();

  fill<<<1, dim3(1, 1, 65)>>>(d, 0);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidConfiguration);

  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, bounded));
  EXPECT(fa.maxThreadsPerBlock == 128, "__launch_bounds__(128): maxThreadsPerBlock %d", fa.maxThreadsPerBlock);
  size_t free_before = 0, free_after = 0, total = 0;  // managed memory takes device memory here
  CHECK(cudaMemGetInfo(&free_before, &total));
  void* managed = nullptr;
  CHECK(cudaMallocManaged(&managed, 1 << 20));
  CHECK(cudaMemGetInfo(&free_after, &total));
  EXPECT(free_before - free_after >= (1u << 20), "1 MiB managed: free %zu -> %zu", free_before, free_after);
  CHECK(cudaFree(managed));
  int resident = -1;  // CUDA's occupancy calculator: no block of a size the kernel cannot be launched with
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, bounded, 256, 0));
  EXPECT(resident == 0, "__launch_bounds__(128): %d resident blocks of 256 threads", resident);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, bounded, 128, 0));
  EXPECT(resident > 0, "__launch_bounds__(128): %d resident blocks of 128 threads", resident);
  bounded<<<1, 256>>>(d);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorLaunchOutOfResources);
  bounded<<<1, 64>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  fill<<<1, 64>>>(d, 1000);

  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) _exit(cudaMemset(d, 0, 64) == cudaErrorInitializationError ? 0 : 1);
  int status = 0;
  EXPECT(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "the forked child's cudaMemset did not return cudaErrorInitializationError (status %d)", status);
  int h[64];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));  // the parent's device is untouched
  EXPECT(h[5] == 1005, "d[5] = %d", h[5]);

  const cudaDeviceAttr attrs[] = {cudaDevAttrStreamPrioritiesSupported, cudaDevAttrMemoryPoolsSupported,
                                  cudaDevAttrGlobalL1CacheSupported, cudaDevAttrLocalL1CacheSupported,
                                  cudaDevAttrHostNativeAtomicSupported, cudaDevAttrTextureAlignment};
  for (cudaDeviceAttr a : attrs) {
    int v = -1;
    CHECK(cudaDeviceGetAttribute(&v, a, 0));
  }
  int prio = 0, pools = 1;
  CHECK(cudaDeviceGetAttribute(&prio, cudaDevAttrStreamPrioritiesSupported, 0));
  CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  EXPECT(prio == 1 && pools == 0, "stream priorities %d, memory pools %d", prio, pools);

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  std::printf("limits: events reused, pageable copies complete, wrapping sizes refused, launch bounds kept, fork child refused\n");
  return 0;
}
