// Device properties, attributes, occupancy and function attributes agree with each other; the
// occupancy of a kernel that needs few registers and no shared memory is limited by threads and blocks.
#include "check.h"

__global__ void tiny(int* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  int count = 0, dev = -1;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count == 1, "%d devices", count);
  CHECK(cudaSetDevice(0));
  CHECK(cudaGetDevice(&dev));
  EXPECT(dev == 0, "device %d", dev);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int v = 0;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  EXPECT(v == p.multiProcessorCount && v > 0, "SMs %d vs %d", v, p.multiProcessorCount);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
  EXPECT(v == 32 && p.warpSize == 32, "warp size %d", v);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0));
  EXPECT(v == cudaComputeModeDefault, "compute mode %d", v);
  int khz = 0;  // CUDA 13's cudaDeviceProp has no clock rate: the attribute gives it
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  EXPECT(khz > 0, "clock %d kHz", khz);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0));
  EXPECT(v == p.maxThreadsPerBlock, "threads per block %d", v);
  // What occupancy code reads beside the limits: registration works, nothing reserved or persisting.
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrHostRegisterSupported, 0));
  EXPECT(v == 1, "host register supported %d", v);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, 0));
  EXPECT(v == 0, "reserved shared memory per block %d", v);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxPersistingL2CacheSize, 0));
  EXPECT(v == 0, "persisting L2 %d", v);
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 128, 0));
  const int by_threads = p.maxThreadsPerMultiProcessor / 128;
  const int expected = by_threads < p.maxBlocksPerMultiProcessor ? by_threads : p.maxBlocksPerMultiProcessor;
  EXPECT(blocks == expected, "occupancy %d blocks of 128 threads, expected %d", blocks, expected);
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, tiny));
  EXPECT(fa.sharedSizeBytes == 0 && fa.numRegs > 0 && fa.maxThreadsPerBlock > 0 && fa.ptxVersion >= 90,
         "attributes: shared %zu regs %d threads %d ptx %d", fa.sharedSizeBytes, fa.numRegs, fa.maxThreadsPerBlock,
         fa.ptxVersion);
  int runtime = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  EXPECT(runtime == 13000, "runtime version %d", runtime);
  std::printf("device_query: %s, %d SMs at %d kHz, %d blocks of 128 threads per SM\n", p.name, p.multiProcessorCount, khz,
              blocks);
  return 0;
}
