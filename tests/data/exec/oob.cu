// Reads past its buffer: thread i loads in[i * stride]. For `gpuvp exec` error tests.
// nvcc -ptx -O3 -arch=sm_75 oob.cu -o oob.ptx
extern "C" __global__ void oob(const int* in, int* out, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(long long)i * stride];
}
