// Shared by the CUDA test programs that tell from simulated time whether two kernels ran at once:
// a one-block kernel whose threads run `iters` dependent steps takes at least iters / clockRate
// (floor_ms), so two of them one after the other end at least that much apart.
#pragma once
#include "check.h"

__global__ void chain(unsigned* out, unsigned seed, int iters) {
  unsigned x = seed + threadIdx.x;
  for (int k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;  // each step needs the last
  out[threadIdx.x] = x;
}

const int kThreads = 32, kIters = 100000;

unsigned reference(unsigned x) {
  for (int k = 0; k < kIters; ++k) x = x * 1664525u + 1013904223u;
  return x;
}

// The shortest run of a chain of kIters steps (ms).
double chain_floor_ms() {
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  return double(kIters) / khz;
}

// One kernel between two events, all in `s`.
void timed_chain(cudaStream_t s, cudaEvent_t before, cudaEvent_t after, unsigned* out, unsigned seed) {
  CHECK(cudaEventRecord(before, s));
  chain<<<1, kThreads, 0, s>>>(out, seed, kIters);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(after, s));
}

float since(cudaEvent_t a, cudaEvent_t b) {
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// Whether the second kernel (between e[2] and e[3]) ran while the first (e[0], e[1]) did: it ended less
// than its shortest run time after the first one's end. Run one after the other, it would end at least
// that late.
bool overlapped(const cudaEvent_t* e, double floor_ms) { return since(e[0], e[3]) < since(e[0], e[1]) + floor_ms; }

void check_output(const unsigned* d, unsigned seed, const char* what) {
  unsigned h[kThreads];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kThreads; ++i) EXPECT(h[i] == reference(seed + i), "%s: out[%d] = %u", what, i, h[i]);
}
