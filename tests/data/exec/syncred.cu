// __syncthreads_count / __syncthreads_and / __syncthreads_or (bar.red.popc.u32, bar.red.and.pred,
// bar.red.or.pred). Threads from `live` on return first (whole warps: the test passes multiples of
// 32) and take no part. References: tests/platform/exec/exec_syncred_test.cc.
// nvcc -ptx -O3 -arch=sm_75 syncred.cu -o syncred.ptx
extern "C" __global__ void syncred(const int* v, int* out, int live) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x >= live) return;
  int x = v[i];
  int count = __syncthreads_count(x > 0);
  int all = __syncthreads_and(x & 1);
  int any = __syncthreads_or(x > 1000);
  out[i] = count * 4 + all * 2 + any;
}
