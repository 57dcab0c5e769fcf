// How a program may end and misuse the edges of the library, one case per argument (tests/cudart/exits.py):
//   hostfn      exit(3) inside a host function of a stream, after one kernel completed
//   unwaited    a kernel that never ends, launched and not waited for, after one that completed
//   sleep       a CUDA call, then 2 s asleep, then a file written: what killing `gpuvp cuda` leaves running
//   thread_exit another thread calls exit(35) while this one waits for a kernel that never ends
//   edges       libsmctrl and memset edge cases and the names in the library's messages
//   status      one kernel, then returns 42, writing nothing to stderr
//   turn_signal a thread waits for its turn behind a call served for ever; a signal handler calls exit(9)
//   sync_at_exit main returns 14 while another thread waits in cudaDeviceSynchronize on an endless kernel
//   error_at_exit a kernel reading outside memory left unwaited; returns 0
//   hostfn_at_exit a host function calling exit(7) left queued; returns 0
//   usr1        a SIGUSR1 handler calls exit(9); says "ready", then sleeps
#include <libsmctrl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include "check.h"

__global__ void add_one(int* a) { a[threadIdx.x] += 1; }
__global__ void spin(volatile int* a) {
  while (a[0] == 0) {
  }
}

void CUDART_CB exit_three(void*) {
  std::fflush(stdout);
  std::exit(3);
}
void CUDART_CB exit_seven(void*) { std::exit(7); }
void exit_nine(int) { std::exit(9); }
__global__ void read_outside(int* a) { a[0] = *reinterpret_cast<volatile int*>(16); }

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 4096));
  CHECK(cudaMemset(d, 0, 4096));
  if (!std::strcmp(what, "hostfn")) {
    add_one<<<1, 32>>>(d);
    CHECK(cudaLaunchHostFunc(0, exit_three, nullptr));
    cudaDeviceSynchronize();
    std::printf("exits: hostfn: the program went on after exit\n");
    return 1;
  }
  if (!std::strcmp(what, "unwaited")) {
    add_one<<<1, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    spin<<<1, 1>>>(d + 64);
    std::printf("exits: unwaited: returning\n");
    return 0;
  }
  if (!std::strcmp(what, "thread_exit")) {
    // Another thread exits while this one waits in a CUDA call: this one goes no further.
    std::thread([] {
      usleep(300000);
      std::exit(35);
    }).detach();
    spin<<<1, 1>>>(d + 64);
    cudaDeviceSynchronize();
    std::printf("exits: thread_exit: the program went on after exit\n");
    return 0;
  }
  if (!std::strcmp(what, "sleep") && argc > 2) {
    std::printf("exits: sleeping\n");
    std::fflush(stdout);
    sleep(2);
    if (FILE* f = std::fopen(argv[2], "w")) std::fclose(f);
    return 0;
  }
  if (!std::strcmp(what, "edges")) {
    // A CUDA error left as the last one; libsmctrl's calls are not CUDA calls and leave it.
    void* huge = nullptr;
    EXPECT_ERROR(cudaMalloc(&huge, ~size_t{0} / 2), cudaErrorMemoryAllocation);
    EXPECT(libsmctrl_get_tpc_info(nullptr, 0) != 0, "a NULL result pointer refused");
    uint32_t n = 77;
    EXPECT(libsmctrl_get_tpc_info_cuda(&n, 5) != 0 && n == 77, "device 5 refused, n untouched: %u", n);
    libsmctrl_set_stream_mask(reinterpret_cast<void*>(0x1234), 0x1);
    EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation, "the last error is still cudaMalloc's");
    EXPECT(libsmctrl_get_tpc_info(&n, 0) == 0 && n > 0, "TPCs %u", n);
    // CUDA sets no bytes, whatever the pointer, when the count is 0.
    CHECK(cudaMemset(nullptr, 0, 0));
    CHECK(cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyDefault));
    // A registration overlapping one from its start's left, and cudaMallocHost memory, are registered already.
    static int buf[4096];
    CHECK(cudaHostRegister(buf + 1024, 1024 * sizeof(int), 0));
    EXPECT_ERROR(cudaHostRegister(buf, 2048 * sizeof(int), 0), cudaErrorHostMemoryAlreadyRegistered);
    int* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, 4096));
    EXPECT_ERROR(cudaHostRegister(pinned, 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaHostUnregister(buf + 1024));
    CHECK(cudaFreeHost(pinned));
    // Refusals named by the entry point the program called, not the one serving it.
    EXPECT(cudaStreamCreate(nullptr) == cudaErrorInvalidValue, "cudaStreamCreate(NULL)");
    EXPECT(cudaMallocHost(nullptr, 16) == cudaErrorInvalidValue, "cudaMallocHost(NULL)");
    EXPECT(cudaEventCreate(nullptr) == cudaErrorInvalidValue, "cudaEventCreate(NULL)");
    cudaGetLastError();
    std::printf("exits: edges as expected\n");
    return 0;
  }
  if (!std::strcmp(what, "status")) {
    add_one<<<1, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    return 42;
  }
  if (!std::strcmp(what, "turn_signal")) {
    signal(SIGALRM, exit_nine);
    std::thread([d] {
      spin<<<1, 1>>>(d + 64);
      cudaDeviceSynchronize();  // served for ever: this thread holds the turn
    }).detach();
    usleep(300000);
    alarm(1);  // while the memset below waits for its turn
    cudaMemset(d, 0, 4);
    std::printf("exits: turn_signal: the memset was served\n");
    return 1;
  }
  if (!std::strcmp(what, "sync_at_exit")) {
    std::thread([d] {
      spin<<<1, 1>>>(d + 64);
      cudaDeviceSynchronize();
    }).detach();
    usleep(300000);
    return 14;
  }
  if (!std::strcmp(what, "error_at_exit")) {
    add_one<<<1, 32>>>(d);
    read_outside<<<1, 1>>>(d);
    return 0;
  }
  if (!std::strcmp(what, "hostfn_at_exit")) {
    add_one<<<1, 32>>>(d);
    CHECK(cudaLaunchHostFunc(0, exit_seven, nullptr));
    return 0;
  }
  if (!std::strcmp(what, "usr1")) {
    signal(SIGUSR1, exit_nine);
    std::printf("ready\n");
    std::fflush(stdout);
    sleep(5);
    return 1;
  }
  std::fprintf(stderr, "exits: unknown case '%s'\n", what);
  return 1;
}
