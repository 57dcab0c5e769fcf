// Device-function calls, local arrays and warp intrinsics.
__device__ __noinline__ int clampadd(int a, int b) { return min(max(a + b, -100), 100); }
__device__ __noinline__ float scale(float x) { return x * 0.25f; }

__global__ void calls(int* out, const float* in, int n) {
  int buf[8];
  int t = threadIdx.x;
  for (int j = 0; j < 8; ++j) buf[j] = in[(t + j) % n] > 0.0f ? j : -j;
  int r = clampadd(buf[t & 7], t);
  r += (int)scale((float)r);
  unsigned any = __any_sync(0xffffffffu, r > 3);
  unsigned act = __activemask();
  out[t] = r + any + act + __shfl_xor_sync(0xffffffffu, r, 1) + __shfl_sync(0xffffffffu, r, 0);
  __threadfence();
}
