// Managed memory attached to the host or to one stream, on a GPU without concurrent managed access
// (the CUDA programming guide's rules for such GPUs): while a long kernel runs in stream `s`,
// - memory allocated with cudaMemAttachHost is the host's: the host writes it without a fault;
// - memory attached to another stream `p` (a created one, and cudaStreamPerThread) goes to the device
//   for p's kernel and comes back when p is synchronised, though `s` still runs: the host reads the
//   kernel's result, and s's kernel has not ended (cudaStreamQuery: cudaErrorNotReady);
// - a host function in p after p's kernel reads what that kernel wrote to memory attached to p;
// - mapped (zero-copy) memory a kernel wrote is what a host function after it in the stream reads.
// A host access to memory the device owns would end the program with SIGSEGV, failing the test.
#include "check.h"

__global__ void spin(int* out, int iters) {
  int acc = 0;
  for (int i = 0; i < iters; ++i) acc += i * 3 + (acc >> 3);  // each step needs the last
  out[0] = acc;
}

__global__ void fill(int* m, int n, int v) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) m[i] = v + i;
}

const int kN = 256, kSpin = 40000;
int* g_attached = nullptr;
int g_seen = -1;
void CUDART_CB look(void*) { g_seen = g_attached[kN - 1]; }
volatile int* g_mapped = nullptr;
int g_mapped_seen = -1;
void CUDART_CB look_mapped(void*) { g_mapped_seen = g_mapped[0]; }

// Memory attached to stream `p` while a long kernel runs in `s`.
void attached_to(cudaStream_t p, cudaStream_t s, int* busy, int v, const char* what) {
  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, kN * sizeof(int), cudaMemAttachHost));
  for (int i = 0; i < kN; ++i) m[i] = -1;
  CHECK(cudaStreamAttachMemAsync(p, m, 0, cudaMemAttachSingle));
  CHECK(cudaStreamSynchronize(p));
  spin<<<1, 1, 0, s>>>(busy, kSpin);
  CHECK(cudaGetLastError());
  fill<<<(kN + 127) / 128, 128, 0, p>>>(m, kN, v);
  CHECK(cudaGetLastError());
  g_attached = m, g_seen = -1;
  CHECK(cudaLaunchHostFunc(p, look, nullptr));
  CHECK(cudaStreamSynchronize(p));
  EXPECT(cudaStreamQuery(s) == cudaErrorNotReady, "%s: the kernel in s had ended before p's synchronisation", what);
  for (int i = 0; i < kN; ++i) EXPECT(m[i] == v + i, "%s: m[%d] = %d, not %d", what, i, m[i], v + i);
  EXPECT(g_seen == v + kN - 1, "%s: the host function read %d, not %d", what, g_seen, v + kN - 1);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(m));
}

int main() {
  int* busy = nullptr;
  CHECK(cudaMalloc(&busy, sizeof(int)));
  cudaStream_t s, p;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreate(&p));

  // Host-attached memory while a kernel runs.
  int* h = nullptr;
  CHECK(cudaMallocManaged(&h, kN * sizeof(int), cudaMemAttachHost));
  spin<<<1, 1, 0, s>>>(busy, kSpin);
  CHECK(cudaGetLastError());
  for (int i = 0; i < kN; ++i) h[i] = 3 * i;
  EXPECT(cudaStreamQuery(s) == cudaErrorNotReady, "the kernel in s ended before the host's writes");
  CHECK(cudaDeviceSynchronize());
  long sum = 0;
  for (int i = 0; i < kN; ++i) sum += h[i];
  EXPECT(sum == 3L * kN * (kN - 1) / 2, "host-attached memory sums to %ld", sum);

  attached_to(p, s, busy, 100, "a created stream");
  attached_to(cudaStreamPerThread, s, busy, 200, "cudaStreamPerThread");

  // Mapped memory a kernel wrote, read by a host function after it.
  int* mapped = nullptr;
  int* mapped_dev = nullptr;
  CHECK(cudaHostAlloc(&mapped, sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_dev), mapped, 0));
  mapped[0] = 0;
  g_mapped = mapped;
  fill<<<1, 1, 0, p>>>(mapped_dev, 1, 77);
  CHECK(cudaLaunchHostFunc(p, look_mapped, nullptr));
  CHECK(cudaDeviceSynchronize());
  EXPECT(g_mapped_seen == 77, "the host function read %d from mapped memory, not 77", g_mapped_seen);

  CHECK(cudaFreeHost(mapped));
  CHECK(cudaFree(h));
  CHECK(cudaFree(busy));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(p));
  std::printf("managed_streams: host-attached, stream-attached and mapped memory correct\n");
  return 0;
}
