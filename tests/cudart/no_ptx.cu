// Built for sm_75 SASS only: the platform runs PTX, so the launch fails with
// cudaErrorNoKernelImageForDevice (the library prints how to keep the PTX).
#include "check.h"

__global__ void k(int* p) { *p = 1; }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 4));
  k<<<1, 1>>>(d);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
  std::printf("no_ptx: refused as expected\n");
  return 0;
}
