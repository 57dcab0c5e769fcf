// Device printf (CUDA's vprintf) of ints, unsigned, long long, doubles, floats, chars, strings and %%
// from the even threads of every block; each thread stores printf's return values (the number of
// arguments) in out[3 * i ..]. References: tests/platform/exec/exec_printf_test.cc.
// nvcc -ptx -O3 -arch=sm_75 printf.cu -o printf.ptx
#include <cstdio>

extern "C" __global__ void print_values(int* out) {
  int b = blockIdx.x, t = threadIdx.x, i = b * blockDim.x + t;
  if (t % 2) return;  // odd threads print nothing
  const char* names[] = {"zero", "one", "two"};
  out[3 * i] = printf("[%d.%d] int %d %+5i|%-4d| unsigned %u hex %#x %X oct %o\n", b, t, -7 * i - 1, i, i,
                      4000000000u - i, 255 * i + 1, 4096 * i + 10, 8 * i + 5);
  out[3 * i + 1] = printf("[%d.%d] ll %lld %llu %llx double %.3f %e %g float %8.2f char %c%c str %s|%-6s|%5.2s %% done\n",
                          b, t, -(1LL << 40) - i, 18446744073709551615ull - i, 0xABCDEF0123ull + i, 3.14159 * (i + 1),
                          1e-5 * (i + 1), 0.5 / (i + 1), 1.25f * i, 'A' + i, 'z', names[i % 3], "ab", "xyz");
  out[3 * i + 2] = t == 0 ? printf("block %s\n", b ? "one ends" : "zero ends") : printf("no arguments\n");
}
