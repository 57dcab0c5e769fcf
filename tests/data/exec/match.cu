// __match_any_sync / __match_all_sync on 32- and 64-bit values (match.{any,all}.sync.{b32,b64}).
// References: tests/platform/exec/exec_match_test.cc.
// nvcc -ptx -O3 -arch=sm_75 match.cu -o match.ptx
extern "C" __global__ void match(const int* v, const long long* w, unsigned* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int all32, all64;
  out[6 * i] = __match_any_sync(0xffffffffu, v[i]);
  out[6 * i + 1] = __match_all_sync(0xffffffffu, v[i], &all32);
  out[6 * i + 2] = all32;
  out[6 * i + 3] = __match_any_sync(0xffffffffu, w[i]);
  out[6 * i + 4] = __match_all_sync(0xffffffffu, w[i], &all64);
  out[6 * i + 5] = all64;
}
