// Per-block inclusive prefix sum of integers: warp scans with shuffles in a __noinline__ device
// function, warp totals through shared memory, a second warp scan, then a fix-up. Also a 1-D
// 3-point stencil with a halo in shared memory.
// nvcc -ptx -O3 -arch=sm_75 scan.cu -o scan.ptx
__device__ __noinline__ int warp_scan(int v) {
  int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    int o = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += o;
  }
  return v;
}

extern "C" __global__ void block_scan(const int* in, int* out, int n) {
  __shared__ int warp_tot[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = i < n ? in[i] : 0;
  v = warp_scan(v);
  if (lane == 31) warp_tot[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < (blockDim.x >> 5) ? warp_tot[lane] : 0;
    t = warp_scan(t);
    warp_tot[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += warp_tot[warp - 1];
  if (i < n) out[i] = v;
}

extern "C" __global__ void stencil3(const float* in, float* out, int n, float c0, float c1) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = threadIdx.x + 1;
  tile[t] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) tile[t + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = c0 * tile[t] + c1 * (tile[t - 1] + tile[t + 1]);
}
