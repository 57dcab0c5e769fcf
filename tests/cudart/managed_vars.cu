// Several __managed__ variables of one module share host pages, which the library closes while the
// device holds them: each variable's bytes must still go to the device and come back whole, launch
// after launch, and the host's writes between launches must reach the next one.
#include "check.h"

__managed__ int a = 1;
__managed__ int b = 2;
__managed__ float table[3] = {0.5f, 1.5f, 2.5f};

__global__ void bump(int round) {
  a += 10 * round;
  b += 20 * round;
  table[threadIdx.x] *= 2.0f;
}

int main() {
  bump<<<1, 3>>>(1);
  CHECK(cudaDeviceSynchronize());
  EXPECT(a == 11 && b == 22, "after launch 1: a %d, b %d", a, b);
  EXPECT(table[0] == 1.0f && table[1] == 3.0f && table[2] == 5.0f, "table %g %g %g", table[0], table[1], table[2]);
  a = 100;  // the host's write, between launches
  bump<<<1, 3>>>(2);
  CHECK(cudaDeviceSynchronize());
  EXPECT(a == 120 && b == 62, "after launch 2: a %d, b %d", a, b);
  EXPECT(table[2] == 10.0f, "table[2] %g", table[2]);
  std::printf("managed_vars: correct\n");
  return 0;
}
