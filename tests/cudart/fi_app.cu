// The application of the campaign tests (tests/cudart/fi_app_campaign.py): it does not check its
// results, it writes them, as a program under fault injection does. c[i] = a[i] + b[i] with a[i] = i
// and b[i] = 1000 for 64 elements; the sums go to the file argv[1], one a line, and their total to
// stdout. Options after it: "wait": the host waits for c[0] to hold 1000 before it writes anything, as
// a program polling for a flag does: a fault in a[0] before the kernel makes it spin for ever (the
// campaign's hang); "cd": it works in a subfolder "sub" it makes before its first CUDA call (argv[1] is
// then relative to it), as a program that changes directory does; "nochld": it ignores SIGCHLD, as
// programs that never wait for their children do; "pid": the file's first line is its process id, as
// a program whose output is not reproducible has (a campaign refuses it). stderr says where a is in device memory (the tests
// aim their faults there).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void add(const int* a, const int* b, int* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fi_app OUTPUT_FILE [wait] [cd] [nochld] [pid]\n");
    return 2;
  }
  bool spin = false, pid = false;
  for (int k = 2; k < argc; ++k) {
    spin |= std::strcmp(argv[k], "wait") == 0;
    pid |= std::strcmp(argv[k], "pid") == 0;
    if (std::strcmp(argv[k], "nochld") == 0) ::signal(SIGCHLD, SIG_IGN);
    if (std::strcmp(argv[k], "cd") == 0 && (::mkdir("sub", 0755) != 0 || ::chdir("sub") != 0)) return 4;
  }
  const int n = 64;
  int a[n], b[n], c[n];
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 1000;
  int *da, *db, *dc;
  CHECK(cudaMalloc(&da, sizeof a));
  CHECK(cudaMalloc(&db, sizeof b));
  CHECK(cudaMalloc(&dc, sizeof c));
  std::fprintf(stderr, "fi_app: a at %p\n", static_cast<void*>(da));
  CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
  add<<<1, n>>>(da, db, dc, n);
  CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
  if (spin)
    while (*static_cast<volatile int*>(&c[0]) != 1000) {
    }
  FILE* f = std::fopen(argv[1], "w");
  if (!f) return 3;
  if (pid) std::fprintf(f, "%010d\n", static_cast<int>(::getpid()));  // fixed width: pids differ in bytes, not size
  long total = 0;
  for (int i = 0; i < n; ++i) std::fprintf(f, "%d\n", c[i]), total += c[i];
  std::fclose(f);
  std::printf("fi_app: total %ld\n", total);
  for (int* p : {da, db, dc}) CHECK(cudaFree(p));
  return 0;
}
