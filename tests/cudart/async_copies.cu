// Asynchronous copies from pinned memory, as simpleMultiCopy does: the data goes in chunks over two
// streams, each chunk copied in, scaled by a kernel and copied back in its stream, so that one
// stream's copies can overlap the other stream's kernel. The results are checked against the CPU.
#include "check.h"

__global__ void scale(const float* in, float* out, int n, float k) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + 1.f;
}

int main() {
  const int n = 1 << 13, chunks = 4, per = n / chunks, threads = 128;
  const size_t bytes = n * sizeof(float), chunk_bytes = per * sizeof(float);
  float *h_in, *h_out, *d_in, *d_out;
  CHECK(cudaMallocHost(&h_in, bytes));
  CHECK(cudaMallocHost(&h_out, bytes));
  for (int i = 0; i < n; ++i) h_in[i] = float(i) * 0.25f, h_out[i] = -1.f;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  cudaStream_t s[2];
  for (auto& st : s) CHECK(cudaStreamCreate(&st));
  for (int c = 0; c < chunks; ++c) {
    const int off = c * per;
    cudaStream_t st = s[c % 2];
    CHECK(cudaMemcpyAsync(d_in + off, h_in + off, chunk_bytes, cudaMemcpyHostToDevice, st));
    scale<<<per / threads, threads, 0, st>>>(d_in + off, d_out + off, per, 3.f);
    CHECK(cudaMemcpyAsync(h_out + off, d_out + off, chunk_bytes, cudaMemcpyDeviceToHost, st));
  }
  CHECK(cudaDeviceSynchronize());
  // i / 4 * 3 + 1 is exact in float for these i: the comparison is exact.
  for (int i = 0; i < n; ++i) EXPECT(h_out[i] == h_in[i] * 3.f + 1.f, "out[%d] = %g", i, h_out[i]);
  for (auto st : s) CHECK(cudaStreamDestroy(st));
  for (float* p : {d_in, d_out}) CHECK(cudaFree(p));
  for (float* p : {h_in, h_out}) CHECK(cudaFreeHost(p));
  std::printf("async_copies: %d elements correct in %d chunks\n", n, chunks);
  return 0;
}
