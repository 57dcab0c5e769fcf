// Extended-precision integer arithmetic: nvcc builds 128-bit additions, subtractions and products
// from the carry chain (add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi), and double-precision sin/cos
// use it in their argument reduction. References: tests/platform/exec/exec_extprec_test.cc.
// nvcc -ptx -O3 -arch=sm_75 extprec.cu -o extprec.ptx
__device__ unsigned __int128 load128(const unsigned long long* p, int i) {
  return (unsigned __int128)p[2 * i + 1] << 64 | p[2 * i];
}

extern "C" __global__ void addsub128(const unsigned long long* a, const unsigned long long* b,
                                     unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned __int128 x = load128(a, i), y = load128(b, i);
  unsigned __int128 s = x + y, d = x - y;
  out[4 * i] = (unsigned long long)s;
  out[4 * i + 1] = (unsigned long long)(s >> 64);
  out[4 * i + 2] = (unsigned long long)d;
  out[4 * i + 3] = (unsigned long long)(d >> 64);
}

extern "C" __global__ void mul128(const unsigned long long* a, const unsigned long long* b,
                                  unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned __int128 x = load128(a, i), y = load128(b, i);
  unsigned __int128 p = x * y;
  out[2 * i] = (unsigned long long)p;
  out[2 * i + 1] = (unsigned long long)(p >> 64);
}

extern "C" __global__ void dsincos(const double* x, double* s, double* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[i] = sin(x[i]);
  c[i] = cos(x[i]);
}
