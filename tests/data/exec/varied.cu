// nvcc -O3 output of common kernel shapes: templates, 8/16-bit arithmetic, double precision,
// dynamically indexed local arrays, switch statements, warp shuffles/votes, shared-memory atomics,
// __ldg and vector loads. Reference implementations: tests/platform/exec/exec_varied_test.cc.
// nvcc -ptx -O3 -arch=sm_75 varied.cu -o varied.ptx
template <typename T>
__global__ void axpb(const T* x, T* y, T a, T b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
template __global__ void axpb<int>(const int*, int*, int, int, int);
template __global__ void axpb<float>(const float*, float*, float, float, int);
template __global__ void axpb<double>(const double*, double*, double, double, int);
template __global__ void axpb<unsigned short>(const unsigned short*, unsigned short*, unsigned short, unsigned short, int);

extern "C" __global__ void bytes(const unsigned char* a, const unsigned char* b, unsigned char* d8, short* d16,
                                 signed char* s8, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned char x = a[i], y = b[i];
  unsigned char diff = x > y ? x - y : y - x;
  d8[i] = (unsigned char)((x + y) >> 1) ^ diff;
  short m = (short)(x * y) - (short)(y << 7);
  d16[i] = m / 3 + (short)(x % 7);
  signed char sx = (signed char)x;
  s8[i] = (signed char)(sx >> 2) - (signed char)(y & 0x3f);
}

extern "C" __global__ void dprec(const double* x, const double* y, double* out, long long* iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i] * 100.0 - 50.0, b = y[i] + 0.5;
  double r = fma(a, b, sqrt(b)) / (b + 1.0);
  r = fmax(r, -20.0) + floor(a) - ceil(b * 3.0);
  out[i] = r;
  iout[i] = (long long)(a * 1e12) + (long long)trunc(b);
}

extern "C" __global__ void localarr(const int* in, const int* idx, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int buf[16];
  for (int j = 0; j < 16; ++j) buf[j] = in[(i + j * 5) % n];
  for (int j = 0; j < 4; ++j) buf[(idx[i] + j) & 15] += j;
  out[i] = buf[idx[i] & 15] * 3 + buf[(i * 7) & 15] - buf[15 - (idx[i] & 15)];
}

extern "C" __global__ void switchy(const int* op, const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], r;
  switch (op[i] & 7) {
    case 0: r = x + 17; break;
    case 1: r = x * 3; break;
    case 2: r = x ^ 0x5a5a; break;
    case 3: r = x >> 3; break;
    case 4: r = -x; break;
    case 5: r = x & (x - 1); break;
    case 6: r = x | 0x100; break;
    default: r = 42; break;
  }
  out[i] = r;
}

extern "C" __global__ void warpops(const int* in, int* sum, int* scan, unsigned* ballot, int* bcast) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int s = v;
  for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
  int lane = threadIdx.x & 31;
  int c = v;
  for (int d = 1; d < 32; d <<= 1) {
    int o = __shfl_up_sync(0xffffffffu, c, d);
    if (lane >= d) c += o;
  }
  unsigned b = __ballot_sync(0xffffffffu, v & 1);
  int any = __any_sync(0xffffffffu, v > 1000000), all = __all_sync(0xffffffffu, v >= 0);
  if (lane == 0) sum[i >> 5] = s;
  scan[i] = c;
  ballot[i] = b + __popc(b) + any * 2 + all * 4;
  bcast[i] = __shfl_sync(0xffffffffu, v, (lane * 7) & 31) + __shfl_xor_sync(0xffffffffu, v, 5, 16);
}

extern "C" __global__ void shatomic(const unsigned* in, unsigned* hist, int* mx, int n) {
  __shared__ unsigned h[64];
  __shared__ int m;
  if (threadIdx.x < 64) h[threadIdx.x] = 0;
  if (threadIdx.x == 0) m = -2147483647 - 1;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned v = in[i];
    atomicAdd(&h[v & 63], 1u);
    atomicMax(&m, (int)(v >> 1) - 1000);
  }
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
  if (threadIdx.x == 0) atomicMax(mx, m);
}

extern "C" __global__ void ldg(const float4* __restrict__ v, const float* __restrict__ w, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 q = __ldg(&v[i]);
  float s = __ldg(&w[i % 17]);
  out[i] = (q.x + q.y) * s - q.z * q.w;
}
