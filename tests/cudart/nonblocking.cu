// Non-blocking streams against the legacy default stream. CUDA's rules give every expectation: the
// legacy stream and a blocking stream (cudaStreamCreate) wait for each other's earlier work; a stream
// made with cudaStreamNonBlocking (cudaStreamCreateWithFlags or ...WithPriority) does neither. So, for
// two one-block kernels (the device has room for both) queued one after the other:
// - one in the created stream, then one in the legacy stream: they run at once iff the stream is
//   non-blocking;
// - one in the legacy stream, then one in the created stream: likewise;
// - a long kernel in the created stream, then a short one in the legacy stream: once the legacy stream
//   is synchronised, the created stream still runs iff it is non-blocking (cudaStreamQuery).
// Whether two kernels overlapped is told from simulated time (chain.h).
#include "chain.h"

struct Case {
  const char* name;
  cudaStream_t s;
  bool non_blocking;
};

// Two timed kernels, `first` then `second`, on d[0] and d[1]; returns whether they overlapped.
bool pair_overlaps(cudaStream_t first, cudaStream_t second, const cudaEvent_t* e, unsigned* const* d, unsigned seed,
                   double floor_ms) {
  timed_chain(first, e[0], e[1], d[0], seed);
  timed_chain(second, e[2], e[3], d[1], seed + 1);
  CHECK(cudaDeviceSynchronize());
  check_output(d[0], seed, "first kernel");
  check_output(d[1], seed + 1, "second kernel");
  return overlapped(e, floor_ms);
}

int main() {
  const double floor_ms = chain_floor_ms();
  unsigned* d[2];
  for (auto& p : d) CHECK(cudaMalloc(&p, kThreads * sizeof(unsigned)));
  cudaEvent_t e[4];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  Case cases[3] = {{"cudaStreamCreate", nullptr, false},
                   {"cudaStreamCreateWithFlags(cudaStreamNonBlocking)", nullptr, true},
                   {"cudaStreamCreateWithPriority(cudaStreamNonBlocking, -1)", nullptr, true}};
  CHECK(cudaStreamCreate(&cases[0].s));
  CHECK(cudaStreamCreateWithFlags(&cases[1].s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithPriority(&cases[2].s, cudaStreamNonBlocking, -1));
  unsigned seed = 1;
  for (const Case& c : cases) {
    unsigned flags = 9;
    CHECK(cudaStreamGetFlags(c.s, &flags));
    EXPECT(flags == (c.non_blocking ? cudaStreamNonBlocking : cudaStreamDefault), "%s: flags %u", c.name, flags);
    const bool after = pair_overlaps(c.s, cudaStreamLegacy, e, d, seed, floor_ms);
    EXPECT(after == c.non_blocking, "%s, then the legacy stream: %s kernel [0, %g] ms, the legacy one's [%g, %g] ms",
           c.name, c.name, since(e[0], e[1]), since(e[0], e[2]), since(e[0], e[3]));
    const bool before = pair_overlaps(cudaStreamLegacy, c.s, e, d, seed + 2, floor_ms);
    EXPECT(before == c.non_blocking, "the legacy stream, then %s: the legacy kernel [0, %g] ms, the other [%g, %g] ms",
           c.name, since(e[0], e[1]), since(e[0], e[2]), since(e[0], e[3]));
    seed += 4;

    // A kernel four times as long in the stream, a short one in the legacy stream after it.
    chain<<<1, kThreads, 0, c.s>>>(d[0], seed, 4 * kIters);
    chain<<<1, kThreads, 0, cudaStreamLegacy>>>(d[1], seed, kIters);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    check_output(d[1], seed, "the legacy stream's short kernel");
    const cudaError_t q = cudaStreamQuery(c.s);
    EXPECT(q == (c.non_blocking ? cudaErrorNotReady : cudaSuccess),
           "%s: cudaStreamQuery after the legacy stream's later kernel completed: %s", c.name, cudaGetErrorName(q));
    CHECK(cudaStreamSynchronize(c.s));
  }

  for (auto ev : e) CHECK(cudaEventDestroy(ev));
  for (const Case& c : cases) CHECK(cudaStreamDestroy(c.s));
  for (auto p : d) CHECK(cudaFree(p));
  std::printf("nonblocking: blocking and non-blocking streams ordered as CUDA orders them, kernels of %g ms at least\n",
              floor_ms);
  return 0;
}
