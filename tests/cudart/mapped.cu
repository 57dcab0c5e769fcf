// Mapped (zero-copy) host memory: cudaHostAlloc with cudaHostAllocMapped and cudaHostRegister with
// cudaHostRegisterMapped, their device pointers from cudaHostGetDevicePointer; a kernel writes them
// and the host reads the results after the synchronisation. The error codes of misuse.
#include <vector>

#include "check.h"

__global__ void square(const int* in, int* out, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

int main() {
  int v = -1;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrCanMapHostMemory, 0));
  EXPECT(v == 1, "canMapHostMemory %d", v);
  const int n = 1000;
  int* in = nullptr;
  CHECK(cudaHostAlloc(&in, n * sizeof(int), cudaHostAllocMapped));
  for (int i = 0; i < n; ++i) in[i] = i - 500;
  std::vector<int> out(n, -1);
  CHECK(cudaHostRegister(out.data(), n * sizeof(int), cudaHostRegisterMapped));
  EXPECT_ERROR(cudaHostRegister(out.data(), n * sizeof(int), cudaHostRegisterMapped),
               cudaErrorHostMemoryAlreadyRegistered);
  cudaGetLastError();
  int *din = nullptr, *dout = nullptr;
  CHECK(cudaHostGetDevicePointer((void**)&din, in, 0));
  CHECK(cudaHostGetDevicePointer((void**)&dout, out.data(), 0));
  int local = 0;
  EXPECT_ERROR(cudaHostGetDevicePointer((void**)&din, &local, 0), cudaErrorInvalidValue);
  cudaGetLastError();
  square<<<(n + 255) / 256, 256>>>(din, dout, n);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(out[i] == (i - 500) * (i - 500), "out[%d] = %d", i, out[i]);
  // Second round: the host changes the input in place; the next launch sees it.
  for (int i = 0; i < n; ++i) in[i] = 3;
  square<<<(n + 255) / 256, 256>>>(din, dout, n);
  CHECK(cudaDeviceSynchronize());
  EXPECT(out[0] == 9 && out[n - 1] == 9, "second round: %d %d", out[0], out[n - 1]);
  CHECK(cudaHostUnregister(out.data()));
  EXPECT_ERROR(cudaHostUnregister(out.data()), cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();
  CHECK(cudaFreeHost(in));
  // Pinned-only registration: copies from it as from any host memory.
  std::vector<int> pinned(n, 7);
  CHECK(cudaHostRegister(pinned.data(), n * sizeof(int), cudaHostRegisterDefault));
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpyAsync(d, pinned.data(), n * sizeof(int), cudaMemcpyHostToDevice, 0));
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(out[n - 1] == 7, "pinned copy: %d", out[n - 1]);
  CHECK(cudaHostUnregister(pinned.data()));
  CHECK(cudaFree(d));
  std::printf("mapped: %d squares correct\n", n);
  return 0;
}
