// Microbenchmarks of the tk1/tx2 memory hierarchy and issue rate (docs/validation.md,
// "Microbenchmarks"). bench/microbench.py runs them through `gpuvp exec` and compares the figures
// with the public ones. Regenerate the PTX with:
//   nvcc -ptx -O3 -arch=sm_75 microbench.cu -o microbench.ptx

// Loads the compiler keeps in place and in order (volatile asm): plain global loads (cached in L1
// only where the preset caches them) and read-only loads (ld.global.nc, the texture/L1 path).
__device__ __forceinline__ unsigned ld_ca(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ unsigned ld_nc(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// Pointer chase: the block writes next[i] = (i + stride) mod n, then thread 0 walks the ring once to
// warm the caches and `steps` more loads timed with clock64. out[0] = timed cycles, out[1] = the
// index reached (keeps the chain live), out[2] = steps.
template <bool kNc>
__device__ void chase(unsigned* next, unsigned n, unsigned stride, unsigned steps, unsigned long long* out) {
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) next[i] = (i + stride) % n;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned j = 0;
  const unsigned ring = (n + stride - 1) / stride;
  for (unsigned k = 0; k < ring; ++k) j = kNc ? ld_nc(next + j) : ld_ca(next + j);
  const long long t0 = clock64();
  for (unsigned k = 0; k < steps; ++k) j = kNc ? ld_nc(next + j) : ld_ca(next + j);
  const long long t1 = clock64();
  out[0] = (unsigned long long)(t1 - t0);
  out[1] = j;
  out[2] = steps;
}
extern "C" __global__ void chase_ca(unsigned* next, unsigned n, unsigned stride, unsigned steps,
                                    unsigned long long* out) {
  chase<false>(next, n, stride, steps, out);
}
extern "C" __global__ void chase_nc(unsigned* next, unsigned n, unsigned stride, unsigned steps,
                                    unsigned long long* out) {
  chase<true>(next, n, stride, steps, out);
}

// Constant-cache chase: thread 0 walks `steps` dependent loads of a __constant__ table after 64 warm
// ones. The table is zero (a launch does not fill it), so every load reads word 0: the latency of a
// constant-cache hit, one address per warp.
__constant__ unsigned tab[2048];
extern "C" __global__ void chase_const(unsigned steps, unsigned long long* out) {
  if (threadIdx.x != 0) return;
  unsigned j = 0;
  for (unsigned k = 0; k < 64; ++k) j = tab[j & 2047];
  const long long t0 = clock64();
  for (unsigned k = 0; k < steps; ++k) j = tab[j & 2047];
  const long long t1 = clock64();
  out[0] = (unsigned long long)(t1 - t0);
  out[1] = j;
  out[2] = steps;
}

// FMA throughput: eight independent chains per thread, `iters` rounds of eight FMAs each.
extern "C" __global__ void fma8(float* out, int iters) {
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const float m = 0.999f, c = 0.5f;
  for (int k = 0; k < iters; ++k) {
    a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
    a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// Tiled transpose of an n x n matrix (n a multiple of 32), 32 x 8 threads per 32 x 32 tile, through
// shared memory padded against bank conflicts: the speed bench's large launch.
extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = in[(y0 + j) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x, ty0 = blockIdx.x * 32;
  for (int j = threadIdx.y; j < 32; j += 8) out[(ty0 + j) * n + tx] = tile[threadIdx.x][j];
}
