// Sum reduction: each thread adds a grid-strided slice of `in`, warps reduce with __shfl_down_sync,
// warp sums meet in shared memory and the first warp reduces them; out[blockIdx.x] is the block's
// partial sum. blockDim.x: a multiple of 32, at most 1024.
extern "C" __global__ void reduction(const float* in, float* out, int n) {
  __shared__ float warpSums[32];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  if (lane == 0) warpSums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) >> 5;
    sum = lane < nwarps ? warpSums[lane] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) out[blockIdx.x] = sum;
  }
}
