// Device printf with pointers the kernel is given: a format (`print_fmt`) or a %s string
// (`print_str`) at a bad address is a device error naming it; a null format prints nothing and
// returns -1 (CUDA's documented value). References: tests/platform/exec/exec_printf_test.cc.
// nvcc -ptx -O3 -arch=sm_75 printf_bad.cu -o printf_bad.ptx
#include <cstdio>

extern "C" __global__ void print_fmt(const char* fmt, int* out) {
  out[threadIdx.x] = printf(fmt, threadIdx.x);
}

extern "C" __global__ void print_str(const char* s) { printf("[%s]\n", s); }
