// Microbenchmarks of the tk1/tx2 memory hierarchy and issue rate (docs/validation.md,
// "Microbenchmarks"). bench/microbench.py runs them through `gpuvp exec` and compares the figures
// with the public ones. Regenerate the PTX with:
//   nvcc -ptx -O3 -arch=sm_75 microbench.cu -o microbench.ptx

// Loads the compiler keeps in place and in order (volatile asm): plain global loads (cached in L1
// only where the preset caches them) and read-only loads (ld.global.nc, the texture/L1 path). The
// ring holds absolute addresses, so each load's address is the previous load's value: the chain is
// load to load, as in the published pointer-chase measurements (the loop counter is independent).
typedef unsigned long long u64;
__device__ __forceinline__ u64 ld_ca(u64 p) {
  u64 v;
  asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ u64 ld_nc(u64 p) {
  u64 v;
  asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

// Pointer chase: the block writes ring[i] = &ring[(i + stride) mod n] (n 8-byte words), then thread
// 0 walks the ring once to warm the caches and `steps` more loads timed with clock64. out[0] = timed
// cycles, out[1] = the address reached (keeps the chain live), out[2] = steps.
template <bool kNc>
__device__ void chase(u64* ring, unsigned n, unsigned stride, unsigned steps, u64* out) {
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) ring[i] = (u64)(ring + (i + stride) % n);
  __syncthreads();
  if (threadIdx.x != 0) return;
  u64 p = (u64)ring;
  const unsigned loop = (n + stride - 1) / stride;
  for (unsigned k = 0; k < loop; ++k) p = kNc ? ld_nc(p) : ld_ca(p);
  const long long t0 = clock64();
  for (unsigned k = 0; k < steps; ++k) p = kNc ? ld_nc(p) : ld_ca(p);
  const long long t1 = clock64();
  out[0] = (u64)(t1 - t0);
  out[1] = p;
  out[2] = steps;
}
extern "C" __global__ void chase_ca(u64* ring, unsigned n, unsigned stride, unsigned steps, u64* out) {
  chase<false>(ring, n, stride, steps, out);
}
extern "C" __global__ void chase_nc(u64* ring, unsigned n, unsigned stride, unsigned steps, u64* out) {
  chase<true>(ring, n, stride, steps, out);
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
