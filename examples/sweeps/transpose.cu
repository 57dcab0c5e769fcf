// Naive matrix transpose: out[x][y] = in[y][x] for a rows x cols float matrix. Each warp reads a row
// segment (consecutive addresses) and writes a column segment (addresses cols * 4 bytes apart): the
// writes are not coalesced, so the kernel is bound by global-memory transactions, the opposite of
// matrixMul's compute-heavy tiles.
extern "C" __global__ void transpose(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
