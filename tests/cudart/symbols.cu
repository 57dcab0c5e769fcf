// __constant__ and __device__ variables: cudaMemcpyToSymbol/FromSymbol (+Async), cudaGetSymbolAddress,
// cudaGetSymbolSize. The FIR taps change between two launches: the second must see the new ones.
#include <vector>

#include "check.h"

constexpr int kTaps = 8;
__constant__ float taps[kTaps];
__device__ unsigned long long processed;
__device__ int bias = 3;  // initialised: the module's data

__global__ void fir(const float* in, float* out, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) return;
  float acc = float(bias);
  for (int k = 0; k < kTaps; ++k) acc += taps[k] * (i - k >= 0 ? in[i - k] : 0.f);
  out[i] = acc;
  atomicAdd(&processed, 1ull);
}

std::vector<float> reference(const std::vector<float>& in, const float* t, int bias) {
  std::vector<float> out(in.size());
  for (int i = 0; i < int(in.size()); ++i) {
    float acc = float(bias);
    for (int k = 0; k < kTaps; ++k) acc += t[k] * (i - k >= 0 ? in[i - k] : 0.f);
    out[i] = acc;
  }
  return out;
}

void run(const float* d_in, float* d_out, const std::vector<float>& in, const float* t, int b) {
  const int n = int(in.size());
  fir<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> ref = reference(in, t, b);
  for (int i = 0; i < n; ++i) EXPECT(out[i] == ref[i], "out[%d] = %g, expected %g", i, out[i], ref[i]);
}

int main() {
  const int n = 1000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = float(i % 17) - 8.f;
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const float t1[kTaps] = {0.5f, 0.25f, 0.125f, 1, 2, -1, 0, 4};
  CHECK(cudaMemcpyToSymbol(taps, t1, sizeof t1));
  run(d_in, d_out, in, t1, 3);
  // New taps, half of them at an offset, asynchronously in the default stream.
  float t2[kTaps] = {1, 1, 1, 1, -2, -2, -2, -2};
  CHECK(cudaMemcpyToSymbol(taps, t2, 4 * sizeof(float)));
  CHECK(cudaMemcpyToSymbolAsync(taps, t2 + 4, 4 * sizeof(float), 4 * sizeof(float), cudaMemcpyHostToDevice, 0));
  const int b2 = -5;
  CHECK(cudaMemcpyToSymbol(bias, &b2, sizeof b2));
  run(d_in, d_out, in, t2, b2);

  float back[kTaps];
  CHECK(cudaMemcpyFromSymbol(back, taps, sizeof back));
  for (int k = 0; k < kTaps; ++k) EXPECT(back[k] == t2[k], "taps[%d] read back %g", k, back[k]);
  unsigned long long count = 0;
  CHECK(cudaMemcpyFromSymbolAsync(&count, processed, sizeof count, 0, cudaMemcpyDeviceToHost, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT(count == 2ull * n, "processed = %llu, expected %d", count, 2 * n);
  // The address of a __device__ variable is device memory for cudaMemcpy and for kernels.
  void* p = nullptr;
  size_t size = 0;
  CHECK(cudaGetSymbolAddress(&p, processed));
  CHECK(cudaGetSymbolSize(&size, taps));
  EXPECT(size == sizeof t1, "sizeof taps = %zu", size);
  const unsigned long long zero = 0;
  CHECK(cudaMemcpy(p, &zero, sizeof zero, cudaMemcpyHostToDevice));
  run(d_in, d_out, in, t2, b2);
  CHECK(cudaMemcpy(&count, p, sizeof count, cudaMemcpyDeviceToHost));
  EXPECT(count == unsigned(n), "processed after reset = %llu", count);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  std::printf("symbols: correct\n");
  return 0;
}
