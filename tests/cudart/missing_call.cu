// Calls cudaGraphCreate (graphs are not supported), which the library does not export: the dynamic
// loader stops the program at that call, naming the symbol and its version (docs/cuda.md, "Calls the
// library does not have").
#include "check.h"

int main() {
  int* p = nullptr;
  CHECK(cudaMalloc(&p, 4));
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  return 0;
}
