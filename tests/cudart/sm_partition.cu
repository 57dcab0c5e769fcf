// SM partitions through libsmctrl (docs/cuda.md, "SM partitions"), as a program for a real Jetson
// writes them: two streams masked to disjoint SMs, a global mask for the others, a next mask for one
// launch. Every block records its %smid; each kernel's blocks must lie on the SMs its mask leaves
// (a set bit disables that SM), and the two streams' kernels must run side by side. Needs 4 SMs
// (tx2 with --set sm.count=4). On a GPU without concurrent kernels (the batch mode) the masks are
// ignored with a warning: the program then checks only that every block ran.
#include <cstdint>
#include <vector>

#include "check.h"
#include "libsmctrl.h"

__device__ void spin_and_record(unsigned* sm, unsigned long long* span, unsigned ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(ns / 4);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  if (threadIdx.x == 0) {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    sm[blockIdx.x] = id;
    span[2 * blockIdx.x] = t0;
    span[2 * blockIdx.x + 1] = t;
  }
}

// One kernel per role, so that the timeline names what each block was launched as (sm_partition.py).
extern "C" __global__ void stream_a(unsigned* sm, unsigned long long* span, unsigned ns) { spin_and_record(sm, span, ns); }
extern "C" __global__ void stream_b(unsigned* sm, unsigned long long* span, unsigned ns) { spin_and_record(sm, span, ns); }
extern "C" __global__ void unmasked(unsigned* sm, unsigned long long* span, unsigned ns) { spin_and_record(sm, span, ns); }
extern "C" __global__ void next_only(unsigned* sm, unsigned long long* span, unsigned ns) { spin_and_record(sm, span, ns); }

constexpr int kBlocks = 8;
constexpr unsigned kSpinNs = 200000;

struct Run {
  unsigned* sm = nullptr;
  unsigned long long* span = nullptr;
  std::vector<unsigned> sms = std::vector<unsigned>(kBlocks);
  std::vector<unsigned long long> spans = std::vector<unsigned long long>(2 * kBlocks);
};

void alloc(Run& r) {
  CHECK(cudaMalloc(&r.sm, kBlocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&r.span, 2 * kBlocks * sizeof(unsigned long long)));
}

void fetch(Run& r) {
  CHECK(cudaMemcpy(r.sms.data(), r.sm, kBlocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(r.spans.data(), r.span, 2 * kBlocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
}

// Every block on an SM of `allowed` (bit i: SM i); `partitions` false: any SM of the GPU's `n`.
void expect_on(const Run& r, uint64_t allowed, const char* what, bool partitions, unsigned n) {
  for (int b = 0; b < kBlocks; ++b) {
    const unsigned sm = r.sms[b];
    EXPECT(sm < n && (!partitions || (allowed >> sm & 1)), "%s: block %d ran on SM %u, outside mask %#llx", what, b, sm,
           (unsigned long long)allowed);
  }
}

unsigned long long first_start(const Run& r) {
  unsigned long long t = ~0ull;
  for (int b = 0; b < kBlocks; ++b) t = r.spans[2 * b] < t ? r.spans[2 * b] : t;
  return t;
}

unsigned long long last_end(const Run& r) {
  unsigned long long t = 0;
  for (int b = 0; b < kBlocks; ++b) t = r.spans[2 * b + 1] > t ? r.spans[2 * b + 1] : t;
  return t;
}

int main() {
  int sms = 0, concurrent = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentKernels, 0));
  uint32_t tpcs = 0;
  EXPECT(libsmctrl_get_tpc_info(&tpcs, 0) == 0 && tpcs == unsigned(sms), "%u TPCs, %d SMs: one SM per TPC", tpcs, sms);
  const bool partitions = concurrent != 0;
  EXPECT(!partitions || sms >= 4, "%d SMs: the test needs 4 (--set sm.count=4)", sms);
  cudaStream_t a, b;
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreate(&b));
  libsmctrl_set_global_mask(0x8);           // every launch without a mask of its own: not SM 3
  libsmctrl_set_stream_mask(a, ~0x1ull);    // stream a: SM 0 only
  libsmctrl_set_stream_mask(b, ~0x6ull);    // stream b: SMs 1 and 2
  Run ra, rb, ru, rn, ra2;
  for (Run* r : {&ra, &rb, &ru, &rn, &ra2}) alloc(*r);
  stream_a<<<kBlocks, 64, 0, a>>>(ra.sm, ra.span, kSpinNs);
  stream_b<<<kBlocks, 64, 0, b>>>(rb.sm, rb.span, kSpinNs);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unmasked<<<kBlocks, 64>>>(ru.sm, ru.span, kSpinNs);
  libsmctrl_set_next_mask(~0x8ull);         // the next launch only: SM 3
  next_only<<<kBlocks, 64, 0, a>>>(rn.sm, rn.span, kSpinNs);
  stream_a<<<kBlocks, 64, 0, a>>>(ra2.sm, ra2.span, kSpinNs);  // stream a's own mask again
  CHECK(cudaGetLastError());
  if (partitions) {                          // a mask leaving no SM: the launch is refused
    libsmctrl_set_next_mask(~0ull);
    stream_a<<<1, 64, 0, a>>>(ra2.sm, ra2.span, kSpinNs);
    EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  }
  CHECK(cudaDeviceSynchronize());
  for (Run* r : {&ra, &rb, &ru, &rn, &ra2}) fetch(*r);
  expect_on(ra, 0x1, "stream a", partitions, sms);
  expect_on(rb, 0x6, "stream b", partitions, sms);
  expect_on(ru, 0x7, "default stream (global mask)", partitions, sms);
  expect_on(rn, 0x8, "next mask", partitions, sms);
  expect_on(ra2, 0x1, "stream a after the next mask", partitions, sms);
  // Side by side: each stream's kernel started before the other's ended.
  EXPECT(!partitions || (first_start(ra) < last_end(rb) && first_start(rb) < last_end(ra)),
         "the two streams' kernels did not overlap");
  std::printf("sm_partition: %s\n", partitions ? "every block on its partition" : "masks ignored, every block ran");
  return 0;
}
