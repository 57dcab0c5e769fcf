// Each block spins until %globaltimer has advanced by spin_ns[blockIdx.x] nanoseconds, sleeping
// up to sleep_ns inside the loop (never past the end of the spin, so that the block ends when its time
// is up, not up to a sleep later); thread 0 records the block's start and end times and its SM id.
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
    const unsigned long long left = wait - (t - t0);
    __nanosleep(left < sleep_ns ? (unsigned int)left : sleep_ns);
    t = globaltimer();
  }
  if (threadIdx.x == 0) {
    start[blockIdx.x] = t0;
    end[blockIdx.x] = t;
    sm[blockIdx.x] = smid();
  }
}
