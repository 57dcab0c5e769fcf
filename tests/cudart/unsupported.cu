// The calls the platform does not support exist (docs/cuda.md, "Calls the platform does not support"):
// every function of the real libcudart.so.13's export list (argv[1], cudart/exports.txt) is found in
// the loaded library; an unsupported one returns cudaErrorNotSupported, records it as the last error
// and names itself on stderr; one returning a struct or a pointer returns zeros. Then what
// cudaPointerGetAttributes and cudaHostGetFlags report for each kind of memory (CUDA's documented
// values for a device without unified addressing). Last, a module with kernels the assembler refuses
// (a texture fetch, a device assert) still runs its other kernels; the refused ones fail at their launch,
// naming themselves and the construct.
#include <dlfcn.h>
#include <unistd.h>

#include <cassert>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"

__device__ int counter;

__global__ void good(int* p) { p[threadIdx.x] = threadIdx.x * 3; }
__global__ void fetch(cudaTextureObject_t t, float* out) { out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x); }
__global__ void asserting(int* p) { assert(p[threadIdx.x] == 0); }

// Every listed name is in the library that serves this program (the project's: it exports sc_main).
static void check_exports(const char* list) {
  void* lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  EXPECT(lib != nullptr && dlsym(lib, "sc_main") != nullptr, "the platform's libcudart.so.13 is not loaded");
  std::ifstream in(list);
  EXPECT(in.good(), "cannot read %s", list);
  int found = 0, missing = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find(' '));
    if (dlsym(lib, name.c_str())) ++found;
    else std::fprintf(stderr, "missing export: %s\n", name.c_str()), ++missing;
  }
  EXPECT(missing == 0 && found > 400, "%d exports found, %d missing", found, missing);
  std::printf("unsupported: %d exports found\n", found);
}

// What a call writes on stderr (fd 2, where the library prints), captured through a temporary file.
template <typename F>
static std::string stderr_of(F&& f) {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(tmp);
  std::stringstream text;
  for (int c; (c = std::fgetc(tmp)) != EOF;) text << char(c);
  std::fclose(tmp);
  return text.str();
}

static void check_unsupported() {
  cudaGraph_t g = nullptr;
  cudaError_t e = cudaSuccess;
  const std::string said = stderr_of([&] { e = cudaGraphCreate(&g, 0); });
  EXPECT(e == cudaErrorNotSupported, "cudaGraphCreate returned %s", cudaGetErrorName(e));
  EXPECT(said == "gpuvp cudart: cudaGraphCreate is not supported by the platform\n", "stderr: '%s'", said.c_str());
  EXPECT_ERROR(cudaPeekAtLastError(), cudaErrorNotSupported);
  EXPECT_ERROR(cudaGetLastError(), cudaErrorNotSupported);
  EXPECT_ERROR(cudaGetLastError(), cudaSuccess);
  // A struct returned through memory: zeros, and the caller's frame intact.
  volatile int guard = 12345;
  cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  EXPECT(d.x == 0 && d.y == 0 && d.z == 0 && d.w == 0 && d.f == 0 && guard == 12345, "cudaCreateChannelDesc: %d %d",
         d.x, guard);
  // A pointer-returning entry point (declared in no header): NULL.
  auto proc = reinterpret_cast<void* (*)(const char*)>(dlsym(RTLD_DEFAULT, "__cudaGetProcAddress"));
  EXPECT(proc != nullptr && proc("cuInit") == nullptr, "__cudaGetProcAddress");
  std::printf("unsupported: cudaGraphCreate refused\n");
}

static cudaPointerAttributes attributes(const void* p) {
  cudaPointerAttributes a;
  std::memset(&a, 0xff, sizeof a);  // every field, the reserved words too, must be written
  CHECK(cudaPointerGetAttributes(&a, p));
  for (long r : a.reserved) EXPECT(r == 0, "reserved word %ld", r);
  return a;
}

static void expect_attributes(const void* p, cudaMemoryType type, int device, const void* dptr, const void* hptr) {
  const cudaPointerAttributes a = attributes(p);
  EXPECT(a.type == type && a.device == device && a.devicePointer == dptr && a.hostPointer == hptr,
         "%p: type %d device %d devicePointer %p hostPointer %p, expected %d %d %p %p", p, a.type, a.device,
         a.devicePointer, a.hostPointer, type, device, dptr, hptr);
}

static unsigned host_flags(void* p) {
  unsigned f = 0xdead;
  CHECK(cudaHostGetFlags(&f, p));
  return f;
}

static void expect_no_host_flags(void* p) {
  unsigned f = 0;
  EXPECT_ERROR(cudaHostGetFlags(&f, p), cudaErrorInvalidValue);
  cudaGetLastError();
}

static void check_pointers() {
  char *d = nullptr, *pinned = nullptr, *wc = nullptr, *mapped = nullptr, *managed = nullptr, *dvar = nullptr;
  CHECK(cudaMalloc(&d, 256));
  expect_attributes(d + 10, cudaMemoryTypeDevice, 0, d + 10, nullptr);
  CHECK(cudaGetSymbolAddress((void**)&dvar, counter));
  expect_attributes(dvar, cudaMemoryTypeDevice, 0, dvar, nullptr);
  CHECK(cudaMallocHost(&pinned, 100));  // pinned, not mapped: no device alias without unified addressing
  expect_attributes(pinned + 99, cudaMemoryTypeHost, 0, nullptr, pinned + 99);
  EXPECT(host_flags(pinned) == cudaHostAllocDefault && host_flags(pinned + 99) == 0, "cudaMallocHost flags");
  CHECK(cudaHostAlloc(&wc, 64, cudaHostAllocPortable | cudaHostAllocWriteCombined));
  EXPECT(host_flags(wc) == 5, "cudaHostAlloc(Portable|WriteCombined) flags %u", host_flags(wc));
  CHECK(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped));
  void* alias = nullptr;
  CHECK(cudaHostGetDevicePointer(&alias, mapped, 0));
  expect_attributes(mapped + 8, cudaMemoryTypeHost, 0, (char*)alias + 8, mapped + 8);
  EXPECT(host_flags(mapped + 8) == cudaHostAllocMapped, "mapped flags %u", host_flags(mapped + 8));
  std::vector<char> reg(1000), pin(1000);
  CHECK(cudaHostRegister(reg.data(), reg.size(), cudaHostRegisterMapped));
  CHECK(cudaHostGetDevicePointer(&alias, reg.data(), 0));
  expect_attributes(reg.data() + 1, cudaMemoryTypeHost, 0, (char*)alias + 1, reg.data() + 1);
  expect_attributes((char*)alias + 1, cudaMemoryTypeHost, 0, (char*)alias + 1, reg.data() + 1);
  CHECK(cudaHostRegister(pin.data(), pin.size(), cudaHostRegisterDefault));
  expect_attributes(pin.data(), cudaMemoryTypeHost, 0, nullptr, pin.data());
  CHECK(cudaMallocManaged(&managed, 512));
  expect_attributes(managed + 511, cudaMemoryTypeManaged, 0, managed + 511, managed + 511);
  int local = 0;  // ordinary host memory: unregistered, on cudaInvalidDeviceId (-2), success since CUDA 11
  expect_attributes(&local, cudaMemoryTypeUnregistered, -2, nullptr, &local);
  for (void* p : {(void*)d, (void*)managed, (void*)reg.data(), (void*)pin.data(), (void*)&local})
    expect_no_host_flags(p);
  EXPECT_ERROR(cudaPointerGetAttributes(nullptr, d), cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaHostUnregister(reg.data()));
  CHECK(cudaHostUnregister(pin.data()));
  expect_attributes(pin.data(), cudaMemoryTypeUnregistered, -2, nullptr, pin.data());
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(wc));
  CHECK(cudaFreeHost(mapped));
  CHECK(cudaFree(managed));
  CHECK(cudaFree(d));
  std::printf("unsupported: pointer attributes correct\n");
}

// A refused kernel's launch: cudaErrorInvalidPtx, not sticky, and a stderr line naming the kernel and why.
template <typename F>
static void expect_refused(F&& launch, const char* kernel, const char* why) {
  const std::string said = stderr_of([&] { launch(); });
  EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidPtx);
  EXPECT(said.find(std::string("kernel ") + kernel + " cannot run on the platform") != std::string::npos &&
             said.find(why) != std::string::npos,
         "stderr: '%s'", said.c_str());
  CHECK(cudaDeviceSynchronize());
}

static void check_refused_kernels() {
  int* d = nullptr;
  int h[32];
  CHECK(cudaMalloc(&d, sizeof h));
  good<<<1, 32>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) EXPECT(h[i] == 3 * i, "good[%d] = %d", i, h[i]);
  expect_refused([&] { fetch<<<1, 32>>>(0, reinterpret_cast<float*>(d)); }, "_Z5fetchyPf",
                 "textures are not supported ('tex')");
  expect_refused([&] { asserting<<<1, 32>>>(d); }, "_Z9assertingPi", "device-side assert() (a call of '__assertfail')");
  cudaFuncAttributes a;
  EXPECT_ERROR(cudaFuncGetAttributes(&a, fetch), cudaErrorInvalidPtx);
  CHECK(cudaMemset(d, 0, sizeof h));
  good<<<1, 32>>>(d);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT(h[31] == 93, "good after the refusals: %d", h[31]);
  CHECK(cudaFree(d));
  std::printf("unsupported: refused kernels named, the module's others run\n");
}

int main(int argc, char** argv) {
  EXPECT(argc == 2, "usage: unsupported EXPORTS.txt");
  check_exports(argv[1]);
  check_unsupported();
  check_pointers();
  check_refused_kernels();
  return 0;
}
