// Fat binary tests (tests/sw/fatbin): a vector add and a filter reading a __constant__ table, built by
// the tests with nvcc in each compression mode; only the PTX they carry is compared.
__constant__ float taps[8];

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void fir(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = 0; k < 8; ++k) s += (i >= k ? x[i - k] : 0.f) * taps[k];
  y[i] = s;
}
