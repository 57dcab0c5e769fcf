// Regression kernels from a review: signed 32-bit loads into 64-bit values, an atomic in flight when
// the simulation stops, and the lane named by an out-of-bounds byte load under coalescing.
extern "C" __global__ void addoff(long long* o, int k) { o[threadIdx.x] = threadIdx.x + (long long)k; }
extern "C" __global__ void widen(const int* a, long long* o) {
  __shared__ int s[32];
  int i = threadIdx.x;
  s[i] = a[i] * 3;
  __syncthreads();
  long long x = a[i];
  long long y = s[31 - i];
  o[2 * i] = x;
  o[2 * i + 1] = y;
}
extern "C" __global__ void spinwait(int* flag) {
  while (atomicAdd(flag, 0) == 0) {
  }
}
extern "C" __global__ void faultatom(int* c) {
  if (blockIdx.x == 0) {
    for (volatile int k = 0; k < 200; k++) {
    }
    __trap();
  }
  for (int k = 0; k < 100000; k++) atomicAdd(c, 1);
}
extern "C" __global__ void rd8(const unsigned char* a, int* o, int n) {
  int i = threadIdx.x;
  if (i < n) o[i] = a[i];
}
