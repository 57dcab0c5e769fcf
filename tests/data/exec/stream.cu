// Streaming copy and independent/dependent loads for the scoreboard (docs/sm.md, "Scoreboard").
// Not part of the kernel library: tests/platform/exec and docs/validation.md run it through `gpuvp exec`.
// nvcc -ptx -O3 -arch=sm_75 stream.cu -o stream.ptx

// dst[i] = src[i] over a grid-stride loop, four independent elements per thread per iteration.
extern "C" __global__ void copy4(int n, const float* __restrict__ src, float* __restrict__ dst) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i + 3 * stride < n; i += 4 * stride) {
    float a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
}

// A global load the compiler keeps in place (volatile asm: PTX order is issue order in gpuvp).
__device__ __forceinline__ unsigned ldg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// out[t] = p[t] + p[t + 64] + ... : eight independent loads per thread, issued before their sum.
extern "C" __global__ void indep8(const unsigned* p, unsigned* out) {
  const int t = threadIdx.x;
  unsigned v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) v[k] = ldg(p + t + 64 * k);
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += v[k];
  out[t] = s;
}

// out[t] = the index reached after eight steps of i = next[i] from t: each load needs the last.
extern "C" __global__ void chase8(const unsigned* next, unsigned* out) {
  unsigned i = threadIdx.x;
#pragma unroll
  for (int k = 0; k < 8; ++k) i = ldg(next + i);
  out[threadIdx.x] = i;
}
