// __noinline__ device functions: scalar, struct-by-value, struct return, pointer argument, nested
// calls, early returns, calls under divergence followed by a shuffle and a barrier.
// nvcc -ptx -O3 -arch=sm_75 devcall.cu -o devcall.ptx
struct Pair {
  int a;
  float b;
  double c;
};

__device__ __noinline__ int leaf(int x, int y) {
  if (x < 0) return -x;  // early return
  int s = 0;
  for (int i = 0; i < (y & 7); ++i) s += x ^ i;
  return s;
}

__device__ __noinline__ double mix(Pair p, double w) { return p.a * w + p.b - p.c; }

__device__ __noinline__ Pair make(int t) {
  Pair p;
  p.a = leaf(t - 16, t);  // nested call
  p.b = t * 0.5f;
  p.c = t * 0.25;
  return p;
}

__device__ __noinline__ void accumulate(int* out, int t, int v) {
  if (t & 1) return;
  out[t] += v;
}

extern "C" __global__ void devcall(int* out, double* dout, int* sout) {
  __shared__ int sh[256];
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  int r = 0;
  if (t % 3 == 0)
    r = leaf(t - 10, t);  // divergent calls
  else if (t % 3 == 1)
    r = leaf(t, t + 1) * 2;
  r += __shfl_xor_sync(0xffffffffu, r, 1);  // after reconvergence
  sh[threadIdx.x] = r;
  __syncthreads();
  int nb = sh[(threadIdx.x + 1) % blockDim.x];
  Pair p = make(t);
  dout[t] = mix(p, 1.5);
  accumulate(out, t, nb);
  sout[t] = r;
}
