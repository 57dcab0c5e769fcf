// Each block spins until %globaltimer has advanced by spin_ns[blockIdx.x] nanoseconds, sleeping
// sleep_ns inside the loop; thread 0 records the block's start and end times and its SM id.
__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned int smid() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

extern "C" __global__ void timerSpin(unsigned long long* start, unsigned long long* end, unsigned int* sm,
                                     const unsigned long long* spin_ns, unsigned int sleep_ns) {
  unsigned long long t0 = globaltimer();
  unsigned long long wait = spin_ns[blockIdx.x];
  unsigned long long t = t0;
  while (t - t0 < wait) {
    __nanosleep(sleep_ns);
    t = globaltimer();
  }
  if (threadIdx.x == 0) {
    start[blockIdx.x] = t0;
    end[blockIdx.x] = t;
    sm[blockIdx.x] = smid();
  }
}
