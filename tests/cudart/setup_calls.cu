// The setup calls common programs make (docs/cuda.md, "Setup calls"): device flags, limits, cache
// preferences, the profiler's range, device choice, a kernel's dynamic shared memory limit, the memory
// attributes CUDA 13 answers only through cudaDeviceGetAttribute, pitched memory and 2D copies; a memset
// through cudaGetSymbolAddress's address; warpSize in a kernel (PTX's WARP_SZ). Runs on the tx2 preset
// (its values below: docs/configuration.md).
#include <cuda_profiler_api.h>

#include <cstring>

#include "check.h"

__device__ int table[8];

// nvcc compiles warpSize to `mov.u32 %r, WARP_SZ` and divides by it.
__global__ void warp_facts(int* out) {
  const int t = threadIdx.x;
  out[t] = warpSize * 1000 + t / warpSize * 100 + t % warpSize;
}

__global__ void rows(float* p, size_t pitch, int width) {
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(p) + blockIdx.x * pitch);
  if (threadIdx.x < width) row[threadIdx.x] = blockIdx.x * 100.0f + threadIdx.x;
}

__global__ void reverse32(int* out) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn[31 - threadIdx.x];
}

static int attribute(cudaDeviceAttr a) {
  int v = -1;
  CHECK(cudaDeviceGetAttribute(&v, a, 0));
  return v;
}

static void check_warp_size() {
  int* d = nullptr;
  int h[64];
  CHECK(cudaMalloc(&d, sizeof h));
  warp_facts<<<1, 64>>>(d);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t) EXPECT(h[t] == 32000 + t / 32 * 100 + t % 32, "thread %d: %d", t, h[t]);
  CHECK(cudaFree(d));
}

// tx2: L2 512 KiB in 2 slices, so a 2 x 64-bit bus; 58.4 GB/s = 2 x clock x 16 bytes: 1825 MHz.
static void check_attributes() {
  EXPECT(attribute(cudaDevAttrL2CacheSize) == 512 * 1024, "L2 %d", attribute(cudaDevAttrL2CacheSize));
  EXPECT(attribute(cudaDevAttrGlobalMemoryBusWidth) == 128, "bus %d", attribute(cudaDevAttrGlobalMemoryBusWidth));
  EXPECT(attribute(cudaDevAttrMemoryClockRate) == 1825000, "clock %d", attribute(cudaDevAttrMemoryClockRate));
  EXPECT(attribute(cudaDevAttrGpuOverlap) == 1, "overlap");  // tx2's copy engine runs beside kernels
  EXPECT(attribute(cudaDevAttrKernelExecTimeout) == 0, "timeout");
  EXPECT(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin) == 49152, "optin");
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  EXPECT(p.l2CacheSize == 512 * 1024 && p.memoryBusWidth == 128 && p.memPitch == 2147483647u, "props %d %d %zu",
         p.l2CacheSize, p.memoryBusWidth, p.memPitch);
}

static void check_flags_limits() {
  CHECK(cudaProfilerStart());
  CHECK(cudaProfilerStop());
  unsigned f = 0;
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  CHECK(cudaGetDeviceFlags(&f));
  EXPECT(f == 0x0c, "flags %#x", f);
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
  CHECK(cudaGetDeviceFlags(&f));
  EXPECT(f == 0x09, "flags %#x (MapHost is implicit)", f);
  EXPECT_ERROR(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
  size_t v = 0;
  CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
  EXPECT(v == 1024, "stack %zu", v);  // sm.stack_bytes
  CHECK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
  EXPECT(v == 1 << 20, "printf FIFO %zu", v);  // host.printf_fifo_bytes
  CHECK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  EXPECT(v == 8 << 20, "heap %zu", v);
  CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 3 << 20));
  CHECK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
  EXPECT(v == 3 << 20, "printf FIFO %zu after setting it", v);
  EXPECT_ERROR(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
  cudaFuncCache c = cudaFuncCachePreferNone;
  CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
  CHECK(cudaDeviceGetCacheConfig(&c));
  EXPECT(c == cudaFuncCachePreferL1, "cache configuration %d", c);
  CHECK(cudaFuncSetCacheConfig(rows, cudaFuncCachePreferShared));
  EXPECT_ERROR(cudaFuncSetCacheConfig(rows, static_cast<cudaFuncCache>(7)), cudaErrorInvalidValue);
  EXPECT_ERROR(cudaFuncSetCacheConfig(reinterpret_cast<const void*>(&attribute), cudaFuncCachePreferL1),
               cudaErrorInvalidDeviceFunction);
  int dev = -1;
  cudaDeviceProp want{};
  want.major = 7;
  CHECK(cudaChooseDevice(&dev, &want));
  EXPECT(dev == 0, "device %d", dev);
  EXPECT_ERROR(cudaChooseDevice(&dev, nullptr), cudaErrorInvalidValue);
  cudaGetLastError();
}

// The limit is honoured: launches within it run, a larger one is refused.
static void check_dynamic_shared() {
  EXPECT_ERROR(cudaFuncSetAttribute(reverse32, cudaFuncAttributeMaxDynamicSharedMemorySize, 49153),
               cudaErrorInvalidValue);
  EXPECT_ERROR(cudaFuncSetAttribute(reverse32, cudaFuncAttributePreferredSharedMemoryCarveout, 101),
               cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaFuncSetAttribute(reverse32, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
  CHECK(cudaFuncSetAttribute(reverse32, cudaFuncAttributeMaxDynamicSharedMemorySize, 256));
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, reverse32));
  EXPECT(a.maxDynamicSharedSizeBytes == 256, "maxDynamicSharedSizeBytes %d", a.maxDynamicSharedSizeBytes);
  int* d = nullptr;
  int h[32];
  CHECK(cudaMalloc(&d, sizeof h));
  reverse32<<<1, 32, 128>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t) EXPECT(h[t] == 31 - t, "reverse32[%d] = %d", t, h[t]);
  reverse32<<<1, 32, 512>>>(d);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  CHECK(cudaFree(d));
}

// 10 floats a row (40 bytes): a 512-byte pitch; four rows written by the kernel, read back with a 2D copy.
static void check_pitched() {
  float* p = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&p), &pitch, 10 * sizeof(float), 4));
  EXPECT(p != nullptr && pitch == 512, "pitch %zu", pitch);
  rows<<<4, 32>>>(p, pitch, 10);
  float h[4][10];
  CHECK(cudaMemcpy2D(h, sizeof h[0], p, pitch, sizeof h[0], 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 10; ++c) EXPECT(h[r][c] == r * 100 + c, "row %d column %d: %g", r, c, h[r][c]);
  // Back the other way, shifted by a row, then asynchronously out on a stream.
  CHECK(cudaMemcpy2D(reinterpret_cast<char*>(p) + pitch, pitch, h, sizeof h[0], sizeof h[0], 3, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  float g[4][10];
  CHECK(cudaMemcpy2DAsync(g, sizeof g[0], p, pitch, sizeof g[0], 4, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int r = 1; r < 4; ++r)
    for (int c = 0; c < 10; ++c) EXPECT(g[r][c] == (r - 1) * 100 + c, "shifted row %d column %d: %g", r, c, g[r][c]);
  EXPECT_ERROR(cudaMemcpy2D(h, 8, p, pitch, sizeof h[0], 4, cudaMemcpyDeviceToHost), cudaErrorInvalidPitchValue);
  cudaGetLastError();
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(p));
}

// A __device__ variable's address is device memory for memset as it is for memcpy.
static void check_symbol_memset() {
  int* t = nullptr;
  CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&t), table));
  CHECK(cudaMemset(t, 0xff, sizeof table));
  CHECK(cudaMemset(t + 1, 0, sizeof(int)));
  int h[8];
  CHECK(cudaMemcpyFromSymbol(h, table, sizeof h));
  for (int i = 0; i < 8; ++i) EXPECT(h[i] == (i == 1 ? 0 : -1), "table[%d] = %d", i, h[i]);
  EXPECT_ERROR(cudaMemset(t, 0, sizeof table + 4), cudaErrorInvalidValue);  // beyond the variable
  cudaGetLastError();
}

int main() {
  check_warp_size();
  check_attributes();
  check_flags_limits();
  check_dynamic_shared();
  check_pitched();
  check_symbol_memset();
  std::printf("setup_calls: correct\n");
  return 0;
}
