// Small kernels exercising the PTX features the gpuvp toolchain must accept.
__constant__ float c_coef[4] = {1.0f, 2.0f, 0.5f, -3.0f};
__device__ int g_counter = 7;
__device__ unsigned g_table[3] = {10, 20, 30};

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] * c_coef[i & 3];
}

__global__ void reduce(const int* in, int* out, int n) {
  __shared__ int tile[256];
  __shared__ double dtile[8];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? in[i] : 0;
  if (t < 8) dtile[t] = t;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  int v = tile[t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if (t == 0) {
    atomicAdd(out, v + (int)dtile[1]);
    atomicAdd(&g_counter, 1);
  }
}

__device__ __noinline__ float poly(float x, int k) {
  return x * c_coef[k & 3] + __sinf(x) + sqrtf(fabsf(x));
}

__global__ void mathk(float* out, const int* idx, unsigned long long* t) {
  int i = threadIdx.x;
  float local[16];
  for (int j = 0; j < 16; ++j) local[j] = out[j] * j;
  float r = poly(local[idx[i] & 15], i);
  r += expf(r) / (1.0f + r);
  out[i] = r;
  unsigned b = __ballot_sync(0xffffffff, r > 0.0f);
  if (i == 0) {
    t[0] = clock64();
    t[1] = __popc(b) + __brev(b) + __clz(b) + g_table[b % 3];
    atomicMax((unsigned long long*)&t[2], (unsigned long long)b);
    atomicCAS((unsigned*)&t[3], 0u, b);
  }
}

extern __shared__ float dyn[];
__global__ void dynshared(float* out, double d) {
  dyn[threadIdx.x] = threadIdx.x * d;
  __syncthreads();
  out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x] + (float)__double2int_rz(d);
}
