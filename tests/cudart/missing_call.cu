// Calls cudaMallocManaged, which the library does not export: the dynamic loader stops the program at
// that call, naming the symbol and its version.
#include "check.h"

int main() {
  int* p = nullptr;
  CHECK(cudaMalloc(&p, 4));
  CHECK(cudaMallocManaged(&p, 4));
  return 0;
}
