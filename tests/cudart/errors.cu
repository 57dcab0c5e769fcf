// Calls with bad arguments return CUDA's codes, cudaGetLastError clears them and cudaPeekAtLastError
// does not; a kernel's illegal address is sticky: every later call returns it.
#include <string>

#include "check.h"

__global__ void store(int* p, int v) { p[threadIdx.x] = v; }

int main() {
  int* d = nullptr;
  int host[4] = {0, 0, 0, 0};
  CHECK(cudaMalloc(&d, sizeof host));
  EXPECT_ERROR(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_ERROR(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaMemcpy(host, host, sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaMemcpy(d, host, 2 * sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue);  // past the end
  EXPECT_ERROR(cudaMemcpy(host, d, sizeof host, cudaMemcpyKind(7)), cudaErrorInvalidMemcpyDirection);
  EXPECT_ERROR(cudaFree(host), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaMemcpyToSymbol(host, host, 4), cudaErrorInvalidSymbol);
  EXPECT_ERROR(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(host)), cudaErrorInvalidResourceHandle);
  int attr = 0;
  EXPECT_ERROR(cudaDeviceGetAttribute(&attr, cudaDevAttrWarpSize, 3), cudaErrorInvalidDevice);
  cudaEvent_t never;
  CHECK(cudaEventCreate(&never));
  float ms;
  EXPECT_ERROR(cudaEventElapsedTime(&ms, never, never), cudaErrorInvalidResourceHandle);
  // The last error: the most recent failure, until cudaGetLastError reads it.
  EXPECT_ERROR(cudaPeekAtLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_ERROR(cudaGetLastError(), cudaSuccess);
  // A block beyond the device's limit: the launch fails, the context goes on.
  store<<<1, 4096>>>(d, 1);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidConfiguration);
  store<<<1, 4>>>(d, 7);
  CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 7 && host[3] == 7, "store wrote %d %d", host[0], host[3]);
  EXPECT(std::string(cudaGetErrorName(cudaErrorInvalidValue)) == "cudaErrorInvalidValue", "name");
  EXPECT(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument", "string");
  // An illegal address: sticky.
  store<<<1, 4>>>(reinterpret_cast<int*>(0x10), 1);
  EXPECT_ERROR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_ERROR(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorIllegalAddress);
  std::printf("errors: every code as expected\n");
  return 0;
}
