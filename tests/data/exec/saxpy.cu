// y = a * x + y. Not part of the kernel library: tests/platform/exec runs it through `gpuvp exec`.
// nvcc -ptx -O3 -arch=sm_75 saxpy.cu -o saxpy.ptx
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
