// SIMD byte absolute differences: __vabsdiffu4 (vabsdiff4.u32.u32.u32), __vsadu4
// (vabsdiff4.u32.u32.u32.add) and __vabsdiffs4. References: tests/platform/exec/exec_vabsdiff_test.cc.
// nvcc -ptx -O3 -arch=sm_75 vabsdiff.cu -o vabsdiff.ptx
extern "C" __global__ void vabsdiff(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[3 * i] = __vabsdiffu4(a[i], b[i]);
  out[3 * i + 1] = __vsadu4(a[i], b[i]);
  out[3 * i + 2] = __vabsdiffs4(a[i], b[i]);
}
