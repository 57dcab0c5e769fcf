// Managed memory as the CUDA programming guide's examples use it: cudaMallocManaged memory written by
// the host, updated by kernels, read by the host after cudaDeviceSynchronize; a __managed__ variable
// with an initialiser; prefetch and advice; copies and memsets of managed memory; a host access while
// a kernel may still run faults, as on GPUs without concurrent managed access.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

__managed__ int counters[4] = {10, 20, 30, 40};

__global__ void scale(float* x, int n, float a) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + 1.f;
  if (i < 4) atomicAdd(&counters[i], i + 1);
}

int main() {
  int v = -1;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, 0));
  EXPECT(v == 1, "managedMemory %d", v);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, 0));
  EXPECT(v == 0, "concurrentManagedAccess %d", v);

  const int n = 3000;
  float* x = nullptr;
  CHECK(cudaMallocManaged(&x, n * sizeof(float)));
  for (int i = 0; i < n; ++i) x[i] = float(i);
  const int threads = 128, blocks = (n + threads - 1) / threads;
  scale<<<blocks, threads>>>(x, n, 2.f);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(x[i] == 2.f * i + 1.f, "x[%d] = %g after one launch", i, x[i]);
  // counters: the module's initial values plus what one launch adds (10+1, 20+2, 30+3, 40+4).
  EXPECT(counters[0] == 11 && counters[3] == 44, "counters %d %d", counters[0], counters[3]);

  // The host's writes between launches reach the next launch.
  for (int i = 0; i < n; ++i) x[i] = 1.f;
  counters[0] = 100;
  CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, 0));
  CHECK(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, cudaMemLocation{cudaMemLocationTypeDevice, 0}));
  scale<<<blocks, threads>>>(x, n, 3.f);
  CHECK(cudaStreamSynchronize(0));  // the only stream: the device is idle after it
  for (int i = 0; i < n; ++i) EXPECT(x[i] == 4.f, "x[%d] = %g after the second launch", i, x[i]);
  EXPECT(counters[0] == 101 && counters[1] == 24, "counters %d %d", counters[0], counters[1]);

  // Copies and memsets treat managed memory as both sides do; the device's latest bytes are copied.
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  scale<<<blocks, threads>>>(x, n, 0.5f);  // 3 everywhere, still on the device at the copy
  CHECK(cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyDefault));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  EXPECT(x[7] == 0.f, "memset: x[7] = %g", x[7]);
  CHECK(cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(x[0] == 3.f && x[n - 1] == 3.f, "copied back: %g %g", x[0], x[n - 1]);

  // Not managed memory: a prefetch is refused as CUDA refuses it.
  EXPECT_ERROR(cudaMemPrefetchAsync(d, 4, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, 0), cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "the refusal is the last error");
  EXPECT_ERROR(cudaMallocManaged(&x, 0), cudaErrorInvalidValue);
  cudaGetLastError();

  // While a kernel may run, managed pages are the device's: a host access faults (a child tries).
  scale<<<blocks, threads>>>(x, n, 1.f);
  pid_t child = fork();
  if (child == 0) {
    volatile float f = x[0];
    (void)f;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "the child's access did not fault (status %#x)", status);
  CHECK(cudaDeviceSynchronize());
  EXPECT(x[0] == 4.f, "x[0] = %g after the last launch", x[0]);
  CHECK(cudaFree(x));
  CHECK(cudaFree(d));

  // The migration at a launch is timed as the explicit copy it replaces: event to event, a launch on
  // managed memory takes what cudaMemcpy of the same bytes followed by the launch takes.
  const int m = 16384;
  float *h = new float[m], *dm = nullptr, *mm = nullptr;
  for (int i = 0; i < m; ++i) h[i] = 1.f;
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  CHECK(cudaMalloc(&dm, m * sizeof(float)));
  CHECK(cudaEventRecord(t0));
  CHECK(cudaMemcpy(dm, h, m * sizeof(float), cudaMemcpyHostToDevice));
  scale<<<m / 256, 256>>>(dm, m, 1.f);
  CHECK(cudaEventRecord(t1));
  float explicit_ms = 0, managed_ms = 0;
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaEventElapsedTime(&explicit_ms, t0, t1));
  CHECK(cudaMallocManaged(&mm, m * sizeof(float)));
  for (int i = 0; i < m; ++i) mm[i] = 1.f;
  CHECK(cudaEventRecord(t0));
  scale<<<m / 256, 256>>>(mm, m, 1.f);
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaEventElapsedTime(&managed_ms, t0, t1));
  EXPECT(managed_ms > 0.99f * explicit_ms && managed_ms < 1.01f * explicit_ms,
         "a launch migrating 64 KiB: %g ms; cudaMemcpy and launch: %g ms", managed_ms, explicit_ms);
  CHECK(cudaDeviceSynchronize());
  EXPECT(mm[m - 1] == 2.f, "mm[m-1] = %g", mm[m - 1]);
  std::printf("managed: %d elements and 4 counters correct\n", n);
  return 0;
}
