// A 3 x 3 image filter: out(y, x) = sum over (dy, dx) of w[(dy + 1) * 3 + dx + 1] * in(y + dy, x + dx),
// the image clamped at its borders; every thread reads the nine weights (a small object every warp
// shares). Block 16 x 16, one thread per pixel.
extern "C" __global__ void conv3x3(float* out, const float* in, const float* w, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    int yy = min(max(y + dy, 0), height - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), width - 1);
      acc += w[(dy + 1) * 3 + dx + 1] * in[yy * width + xx];
    }
  }
  out[y * width + x] = acc;
}
