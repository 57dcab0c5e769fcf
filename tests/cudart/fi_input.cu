// The application of the working-directory tests (tests/cudart/app_workdir.py): it reads its input
// from a file named relative to its working directory, as programs with data files do, and uses it up.
//
//   fi_input INPUT OUTPUT
//
// INPUT holds 64 integers a[i]; the device computes c[i] = a[i] + 1000; the sums go to OUTPUT, one a
// line, and their total to stdout. Before writing OUTPUT the program reads INPUT again (it must be as it
// was) and then overwrites it with "consumed": a run that finds its input consumed, at the start or
// after its kernel, exits 5. So a run that shared its input file with an earlier run (the golden run's,
// or the run forked before it) fails where one with a copy of its own does not. stderr says where a is
// in device memory (the tests aim their faults there).
#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void add(const int* a, const int* b, int* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

constexpr int kN = 64;

// Reads the 64 integers of `path`; exits 5 if an earlier run consumed it, 3 if it cannot be read.
void read_input(const char* path, int* a) {
  FILE* f = std::fopen(path, "r");
  if (!f) {
    std::fprintf(stderr, "fi_input: cannot open %s\n", path);
    std::exit(3);
  }
  char first[16] = {};
  if (std::fscanf(f, "%15s", first) == 1 && std::strcmp(first, "consumed") == 0) {
    std::fprintf(stderr, "fi_input: %s was consumed by another run\n", path);
    std::exit(5);
  }
  std::rewind(f);
  for (int i = 0; i < kN; ++i)
    if (std::fscanf(f, "%d", &a[i]) != 1) {
      std::fprintf(stderr, "fi_input: %s: value %d missing\n", path, i);
      std::exit(3);
    }
  std::fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fi_input INPUT OUTPUT\n");
    return 2;
  }
  int a[kN], again[kN], b[kN], c[kN];
  read_input(argv[1], a);
  for (int i = 0; i < kN; ++i) b[i] = 1000;
  int *da, *db, *dc;
  CHECK(cudaMalloc(&da, sizeof a));
  CHECK(cudaMalloc(&db, sizeof b));
  CHECK(cudaMalloc(&dc, sizeof c));
  std::fprintf(stderr, "fi_input: a at %p\n", static_cast<void*>(da));
  CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
  add<<<1, kN>>>(da, db, dc, kN);
  CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
  read_input(argv[1], again);
  if (std::memcmp(a, again, sizeof a) != 0) {
    std::fprintf(stderr, "fi_input: %s changed while the program ran\n", argv[1]);
    return 6;
  }
  FILE* in = std::fopen(argv[1], "w");
  if (!in || std::fputs("consumed\n", in) < 0 || std::fclose(in) != 0) return 3;
  FILE* f = std::fopen(argv[2], "w");
  if (!f) return 3;
  long total = 0;
  for (int i = 0; i < kN; ++i) std::fprintf(f, "%d\n", c[i]), total += c[i];
  std::fclose(f);
  std::printf("fi_input: total %ld\n", total);
  for (int* p : {da, db, dc}) CHECK(cudaFree(p));
  return 0;
}
