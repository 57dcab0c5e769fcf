// RGB to gray on a 2-D grid of 2-D blocks: gray = 0.299 R + 0.587 G + 0.114 B, one pixel per
// thread, three separate 8-bit channel planes in, float plane out (row-major, width x height).
extern "C" __global__ void grayFilter(const unsigned char* r, const unsigned char* g, const unsigned char* b,
                                      float* gray, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    int i = y * width + x;
    gray[i] = 0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i];
  }
}
