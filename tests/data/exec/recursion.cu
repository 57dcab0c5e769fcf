// Recursive __device__ functions: every activation has its own frame on the thread's call stack
// (docs/isa-encoding.md, "Call stack"). Depths depend on the data, so the lanes of a warp recurse
// to different depths. References: tests/platform/exec/exec_recursion_test.cc (a CPU reference).
// nvcc -ptx -O3 -arch=sm_75 recursion.cu -o recursion.ptx
#include <cstdio>

extern "C" __device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Binomial coefficient by Pascal's rule (64-bit results).
extern "C" __device__ __noinline__ unsigned long long binom(unsigned n, unsigned r) {
  return r == 0 || r == n ? 1ull : binom(n - 1, r - 1) + binom(n - 1, r);
}

extern "C" __device__ __noinline__ int is_odd(int n);
extern "C" __device__ __noinline__ int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
extern "C" __device__ __noinline__ int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

// Sum of a[lo, hi) by halves.
extern "C" __device__ __noinline__ int tree_sum(const int* a, int lo, int hi) {
  if (hi - lo == 1) return a[lo];
  int mid = (lo + hi) / 2;
  return tree_sum(a, lo, mid) + tree_sum(a, mid, hi);
}

// Quicksort of a[lo..hi] (Lomuto partition).
extern "C" __device__ __noinline__ void quicksort(int* a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[hi], i = lo;
  for (int j = lo; j < hi; ++j)
    if (a[j] < p) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
    }
  int t = a[i];
  a[i] = a[hi];
  a[hi] = t;
  quicksort(a, lo, i - 1);
  quicksort(a, i + 1, hi);
}

// n[i] (0..) sets the depth of thread i: out[4i..] = fib, a binomial coefficient (low and high
// word), parity.
extern "C" __global__ void numbers(unsigned* out, const unsigned* n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned k = n[i];
  unsigned long long f = binom(k % 17, k % 17 / 3);
  out[4 * i] = fib(k % 16);
  out[4 * i + 1] = unsigned(f);
  out[4 * i + 2] = unsigned(f >> 32);
  out[4 * i + 3] = is_even(int(k)) ? 2 : 1;
}

// Each thread sorts its 12 values in a local array and sums them by halves: out[13i..] = the
// sorted values, then their sum.
extern "C" __global__ void sort_sum(int* out, const int* in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int a[12];
  for (int j = 0; j < 12; ++j) a[j] = in[12 * i + j];
  quicksort(a, 0, 11);
  int s = tree_sum(a, 0, 12);
  for (int j = 0; j < 12; ++j) out[13 * i + j] = a[j];
  out[13 * i + 12] = s;
}

// A chain of `depth` + 1 activations, each with a local array, that no compiler turns into a loop.
extern "C" __device__ __noinline__ unsigned chain(unsigned d, unsigned seed) {
  unsigned v[4];
  for (int j = 0; j < 4; ++j) v[j] = seed * (j + 3) + d;
  if (d == 0) return v[seed & 3];
  unsigned r = chain(d - 1, seed * 7 + 1);
  return (r * 31u) ^ v[(r + d) & 3];
}

extern "C" __global__ void deep(unsigned* out, unsigned depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = chain(depth, unsigned(i));
}

// Even threads count down from n[i], printing at every level on the way back up.
extern "C" __device__ __noinline__ int countdown(int t, int n) {
  if (n == 0) return 0;
  int below = countdown(t, n - 1);
  printf("thread %d level %d below %d\n", t, n, below);
  return below + n;
}

extern "C" __global__ void print_levels(int* out, const int* n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i % 2 ? -1 : countdown(i, n[i]);
}
