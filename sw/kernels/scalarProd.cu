// Scalar products of vector pairs, after the CUDA SDK scalarProd but simpler: block b computes the
// dot products of vectors b, b + gridDim.x, ... Each thread accumulates a strided partial sum, then
// the block reduces the partial sums with a shared-memory tree. blockDim.x: a power of two <= 512.
#define SP_MAX_THREADS 512

extern "C" __global__ void scalarProd(float* d_C, const float* d_A, const float* d_B, int vectorN,
                                      int elementN) {
  __shared__ float accum[SP_MAX_THREADS];
  for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
    int base = vec * elementN;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < elementN; i += blockDim.x) sum += d_A[base + i] * d_B[base + i];
    accum[threadIdx.x] = sum;
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      if (threadIdx.x < stride) accum[threadIdx.x] += accum[threadIdx.x + stride];
    }
    if (threadIdx.x == 0) d_C[vec] = accum[0];
    __syncthreads();  // accum is reused by the next vector
  }
}
