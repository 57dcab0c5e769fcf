// Mandelbrot iteration counts, one pixel per thread (divergence-heavy). Pixel (x, y) is
// c = (x0 + x*dx, y0 + y*dy); out = the number of steps z <- z^2 + c taken from z = 0 while
// |z|^2 <= 4, at most maxIter. Explicitly rounded intrinsics keep nvcc from contracting to FMA,
// so the result is bit-reproducible by a plain IEEE single-precision CPU reference.
extern "C" __global__ void mandelbrot(int* out, int width, int height, float x0, float y0, float dx, float dy,
                                      int maxIter) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float cx = __fadd_rn(x0, __fmul_rn((float)x, dx));
  float cy = __fadd_rn(y0, __fmul_rn((float)y, dy));
  float zx = 0.0f, zy = 0.0f;
  int it = 0;
  while (it < maxIter) {
    float x2 = __fmul_rn(zx, zx);
    float y2 = __fmul_rn(zy, zy);
    if (__fadd_rn(x2, y2) > 4.0f) break;
    float xy = __fmul_rn(zx, zy);
    zy = __fadd_rn(__fadd_rn(xy, xy), cy);
    zx = __fadd_rn(__fsub_rn(x2, y2), cx);
    ++it;
  }
  out[y * width + x] = it;
}
