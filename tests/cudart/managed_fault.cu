// A host read of managed memory while the kernel that writes it may still run: on a GPU without
// concurrent managed access the program faults; `gpuvp cuda` says which memory and why.
#include "check.h"

__global__ void set(int* p) { p[0] = 1; }

int main() {
  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, sizeof(int)));
  set<<<1, 1>>>(m);
  CHECK(cudaGetLastError());
  std::printf("read %d without a synchronisation: no fault\n", m[0]);
  return 0;
}
