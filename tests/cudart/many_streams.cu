// A program that creates and destroys a stream per batch goes past the 65,535 stream ids the
// dispatcher keeps (16 bits): ids of destroyed streams are handed out again, so the 65,536th stream,
// non-blocking, still runs beside the legacy stream's kernel (before, it aliased the legacy stream and
// waited for it). Run in the single-thread mode (cudart:many_streams:single_thread): 131,070 calls.
#include "check.h"

__global__ void slow(int* p, int iters) {
  int acc = 0;
  for (int k = 0; k < iters; ++k) acc = acc * 1103515245 + 12345 + k;
  p[threadIdx.x] = acc;
}

int main() {
  for (int i = 0; i < 65535; ++i) {
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamDestroy(s));
  }
  int *a, *b;
  CHECK(cudaMalloc(&a, 128));
  CHECK(cudaMalloc(&b, 128));
  cudaStream_t x;
  CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, f0, f1;
  for (cudaEvent_t* e : {&e0, &e1, &f0, &f1}) CHECK(cudaEventCreate(e));
  CHECK(cudaEventRecord(e0, 0));
  slow<<<1, 32>>>(a, 5000);
  CHECK(cudaEventRecord(e1, 0));
  CHECK(cudaEventRecord(f0, x));
  slow<<<1, 32, 0, x>>>(b, 5000);
  CHECK(cudaEventRecord(f1, x));
  CHECK(cudaDeviceSynchronize());
  float legacy_ms, x_ms, span_ms;
  CHECK(cudaEventElapsedTime(&legacy_ms, e0, e1));
  CHECK(cudaEventElapsedTime(&x_ms, f0, f1));
  CHECK(cudaEventElapsedTime(&span_ms, e0, f1));
  // Side by side: both done well before the two kernels' times added (serialised: at least their sum).
  EXPECT(span_ms < 0.75f * (legacy_ms + x_ms), "legacy %.4f ms, non-blocking %.4f ms, both done after %.4f ms", legacy_ms,
         x_ms, span_ms);
  std::printf("many_streams: the 65,536th stream runs beside the legacy stream\n");
  return 0;
}
