// y = A x: A is M x N, column-major (element (i, j) at A[j * M + i]) so that a warp's rows are read
// coalesced; every thread reads all of x (a small vector every warp shares). One thread per row.
extern "C" __global__ void matVec(float* y, const float* A, const float* x, int M, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M) return;
  float acc = 0.0f;
  for (int j = 0; j < N; ++j) acc += A[j * M + i] * x[j];
  y[i] = acc;
}
