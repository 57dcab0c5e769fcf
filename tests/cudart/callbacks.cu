// Host functions in stream order (docs/cuda.md, "Host functions"), as the simpleCallback sample uses
// them. In stream s: a kernel fills d[i] = 2 i, a copy brings it to pinned host memory, and
// cudaLaunchHostFunc's function checks it there (the work before it has completed) and writes the
// next input, in[i] = d[i] + 7, into pinned memory; the copy of `in` queued after the function must
// see what it wrote (later work waits for it), and a second kernel adds 1. cudaStreamAddCallback's
// callback gets s and cudaSuccess and runs second. A CUDA call inside a host function gets
// cudaErrorNotPermitted. A host function on the NULL stream runs after the blocking stream's work.
#include <cstdio>

#include "check.h"

constexpr int kN = 256;

__global__ void fill(int* d, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) d[i] = 2 * i;
}

__global__ void add_one(const int* in, int* out, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

struct Shared {
  int* h_d;   // pinned: the first kernel's result
  int* h_in;  // pinned: written by the host function, copied to the device after it
  cudaStream_t stream;
  int order = 0;
  int host_fn_at = 0, callback_at = 0, null_fn_at = 0;
  bool saw_result = false, refused_call = false, callback_args = false;
};

void host_fn(void* p) {
  Shared& s = *static_cast<Shared*>(p);
  s.host_fn_at = ++s.order;
  s.saw_result = true;
  for (int i = 0; i < kN; ++i) s.saw_result &= s.h_d[i] == 2 * i;
  for (int i = 0; i < kN; ++i) s.h_in[i] = s.h_d[i] + 7;
  s.refused_call = cudaStreamQuery(s.stream) == cudaErrorNotPermitted;
}

void callback(cudaStream_t stream, cudaError_t status, void* p) {
  Shared& s = *static_cast<Shared*>(p);
  s.callback_at = ++s.order;
  s.callback_args = stream == s.stream && status == cudaSuccess;
}

void null_fn(void* p) {
  Shared& s = *static_cast<Shared*>(p);
  s.null_fn_at = ++s.order;
}

int main() {
  Shared s;
  int *d, *d_in, *d_out, *h_out;
  CHECK(cudaMallocHost(&s.h_d, kN * sizeof(int)));
  CHECK(cudaMallocHost(&s.h_in, kN * sizeof(int)));
  CHECK(cudaMallocHost(&h_out, kN * sizeof(int)));
  for (int i = 0; i < kN; ++i) s.h_in[i] = -1;
  CHECK(cudaMalloc(&d, kN * sizeof(int)));
  CHECK(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK(cudaMalloc(&d_out, kN * sizeof(int)));
  CHECK(cudaStreamCreate(&s.stream));
  fill<<<kN / 64, 64, 0, s.stream>>>(d, kN);
  CHECK(cudaMemcpyAsync(s.h_d, d, kN * sizeof(int), cudaMemcpyDeviceToHost, s.stream));
  CHECK(cudaLaunchHostFunc(s.stream, host_fn, &s));
  CHECK(cudaMemcpyAsync(d_in, s.h_in, kN * sizeof(int), cudaMemcpyHostToDevice, s.stream));
  add_one<<<kN / 64, 64, 0, s.stream>>>(d_in, d_out, kN);
  CHECK(cudaStreamAddCallback(s.stream, callback, &s, 0));
  CHECK(cudaMemcpyAsync(h_out, d_out, kN * sizeof(int), cudaMemcpyDeviceToHost, s.stream));
  CHECK(cudaLaunchHostFunc(0, null_fn, &s));
  CHECK(cudaDeviceSynchronize());
  EXPECT(s.host_fn_at == 1 && s.callback_at == 2 && s.null_fn_at == 3, "order %d %d %d (expected 1 2 3)", s.host_fn_at,
         s.callback_at, s.null_fn_at);
  EXPECT(s.saw_result, "the host function ran before the copy before it had completed");
  EXPECT(s.refused_call, "a CUDA call inside a host function was not refused with cudaErrorNotPermitted");
  EXPECT(s.callback_args, "the callback did not get its stream and cudaSuccess");
  for (int i = 0; i < kN; ++i)
    EXPECT(h_out[i] == 2 * i + 8, "out[%d] = %d, expected %d (the copy after the host function ran before it)", i,
           h_out[i], 2 * i + 8);
  EXPECT_ERROR(cudaLaunchHostFunc(s.stream, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaStreamAddCallback(s.stream, callback, &s, 1), cudaErrorInvalidValue);
  CHECK(cudaStreamDestroy(s.stream));
  for (int* p : {d, d_in, d_out}) CHECK(cudaFree(p));
  for (int* p : {s.h_d, s.h_in, h_out}) CHECK(cudaFreeHost(p));
  std::printf("callbacks: host function, callback and NULL-stream function in order, %d results correct\n", kN);
  return 0;
}
