// 256-bin histogram of bytes: per-block bins in shared memory (atomicAdd), then merged into the
// global bins with one atomicAdd per non-empty bin. `bins` must be zeroed before the launch.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int s[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    unsigned int v = s[i];
    if (v != 0) atomicAdd(&bins[i], v);
  }
}
