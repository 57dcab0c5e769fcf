// Host copies of 2, 4 and 8 bytes start at any byte, as CUDA's do: a struct __device__ variable placed
// after an int (so not 8-aligned) read and written whole through its symbol, and plain copies of each
// size at every offset 0..7 of a device buffer, both ways (on the batch mode's host bus too:
// cudart:unaligned:flexgrip).
#include <cstring>

#include "check.h"

struct Pair {
  int a, b;
};
__device__ int before = 7;
__device__ Pair pair = {11, 22};

int main() {
  Pair h{};
  CHECK(cudaMemcpyFromSymbol(&h, pair, sizeof h));
  EXPECT(h.a == 11 && h.b == 22, "pair read as %d, %d", h.a, h.b);
  h = {33, 44};
  CHECK(cudaMemcpyToSymbol(pair, &h, sizeof h));
  int b = 0;
  CHECK(cudaMemcpyFromSymbol(&b, pair, sizeof b, offsetof(Pair, b)));
  EXPECT(b == 44, "pair.b read as %d", b);

  unsigned char* d;
  CHECK(cudaMalloc(&d, 64));
  unsigned char pattern[64], back[64];
  for (int i = 0; i < 64; ++i) pattern[i] = static_cast<unsigned char>(3 * i + 1);
  CHECK(cudaMemcpy(d, pattern, 64, cudaMemcpyHostToDevice));
  for (size_t size : {2, 4, 8})
    for (size_t off = 0; off < 8; ++off) {
      unsigned char v[8] = {};
      CHECK(cudaMemcpy(v, d + off, size, cudaMemcpyDeviceToHost));
      EXPECT(std::memcmp(v, pattern + off, size) == 0, "%zu bytes read at offset %zu", size, off);
      for (size_t i = 0; i < size; ++i) v[i] = static_cast<unsigned char>(~v[i]);
      CHECK(cudaMemcpy(d + 16 + off, v, size, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(back, d + 16 + off, size, cudaMemcpyDeviceToHost));
      EXPECT(std::memcmp(back, v, size) == 0, "%zu bytes written at offset %zu", size, 16 + off);
    }
  CHECK(cudaFree(d));
  std::printf("unaligned: every copy correct\n");
  return 0;
}
