// Mapped (zero-copy) memory written by the host while the device holds it, as CUDA allows: a kernel
// launched after the host's writes sees them, and the host's writes made while a kernel runs survive the
// synchronisation beside the kernel's own writes (to other bytes).
#include "check.h"

__global__ void slow(int* p, int iters) {
  int acc = 0;
  for (int k = 0; k < iters; ++k) acc = acc * 1103515245 + 12345 + k;
  if (threadIdx.x == 0) p[0] = acc;
}
__global__ void twice(const int* in, int* out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}

int main() {
  const int n = 64;
  int *in, *out, *dslow;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&in, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&out, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaMalloc(&dslow, 4));
  for (int i = 0; i < n; ++i) in[i] = 1, out[i] = 0;
  slow<<<1, 32>>>(dslow, 1000);             // the device takes the mapped buffers
  for (int i = 0; i < n; ++i) in[i] = 5;    // the host writes the input meanwhile
  twice<<<1, n / 2>>>(in, out, n / 2);      // launched after the writes: out[0..31] = 10
  for (int i = n / 2; i < n; ++i) out[i] = 7;  // the host writes the other half while it runs
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += in[i] != 5 || out[i] != (i < n / 2 ? 10 : 7);
  EXPECT(bad == 0, "%d wrong: in[0]=%d (5) out[0]=%d (10) out[%d]=%d (7)", bad, in[0], out[0], n - 1, out[n - 1]);
  // Again after the synchronisation: the host's bytes are the device's at the next launch.
  for (int i = 0; i < n; ++i) in[i] = i;
  twice<<<1, n>>>(in, out, n);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) bad += out[i] != 2 * i;
  EXPECT(bad == 0, "%d wrong after the second round", bad);
  std::printf("mapped_pipe: correct\n");
  return 0;
}
