// cudaStreamWaitEvent waits for the event's most recent record before the call, that one only:
// - recorded after a slow kernel in A, then again in idle B, then waited for by C: C's short kernel
//   need not wait for A's slow one (it used to wait for every record made so far);
// - waited for by D between the two records: D's kernel waits for the slow kernel in A, although the
//   record in B made after the wait has completed.
#include "check.h"

__global__ void slow(int* p, int iters) {
  int acc = 0;
  for (int k = 0; k < iters; ++k) acc = acc * 1103515245 + 12345 + k;
  p[threadIdx.x] = acc;
}

int main() {
  int *a, *c, *d;
  CHECK(cudaMalloc(&a, 128));
  CHECK(cudaMalloc(&c, 128));
  CHECK(cudaMalloc(&d, 128));
  cudaStream_t A, B, C, D;
  for (cudaStream_t* s : {&A, &B, &C, &D}) CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
  cudaEvent_t ev, t0, ta, tc, td;
  for (cudaEvent_t* e : {&ev, &t0, &ta, &tc, &td}) CHECK(cudaEventCreate(e));
  CHECK(cudaEventRecord(t0, A));
  slow<<<1, 32, 0, A>>>(a, 20000);
  CHECK(cudaEventRecord(ev, A));  // record 1: after the slow kernel
  CHECK(cudaEventRecord(ta, A));
  CHECK(cudaStreamWaitEvent(D, ev, 0));  // record 1's
  CHECK(cudaEventRecord(ev, B));  // record 2: B is idle, it completes at once
  CHECK(cudaStreamWaitEvent(C, ev, 0));  // record 2's
  slow<<<1, 32, 0, C>>>(c, 100);
  CHECK(cudaEventRecord(tc, C));
  slow<<<1, 32, 0, D>>>(d, 100);
  CHECK(cudaEventRecord(td, D));
  CHECK(cudaDeviceSynchronize());
  float ms_a, ms_c, ms_d;
  CHECK(cudaEventElapsedTime(&ms_a, t0, ta));
  CHECK(cudaEventElapsedTime(&ms_c, t0, tc));
  CHECK(cudaEventElapsedTime(&ms_d, t0, td));
  EXPECT(ms_c < 0.5f * ms_a, "C's kernel ended at %.4f ms, A's slow one at %.4f ms: C waited for the older record", ms_c, ms_a);
  EXPECT(ms_d > ms_a, "D's kernel ended at %.4f ms, before A's slow one at %.4f ms: D missed its record", ms_d, ms_a);
  std::printf("rerecord: each wait waited for its own record\n");
  return 0;
}
