// The replacement runtime called as nvcc's generated code calls it, without nvcc: fat binaries crafted
// around sw/kernels' vectorAdd PTX (plain, LZ4, zstd, SASS only), registration, launches, copies and
// error codes. Each test case runs in a process of its own (one platform per process).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <vector>

#include "cudart/cuda_types.h"
#include "sw/fatbin/fatbin_util.h"

using gpuvp::cudart::dim3;

extern "C" {
void** __cudaRegisterFatBinary(void* wrapper);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name, int,
                            void*, void*, void*, void*, int*);
int cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared, void* stream);
int cudaMalloc(void** p, size_t n);
int cudaFree(void* p);
int cudaMemcpy(void* dst, const void* src, size_t n, int kind);
int cudaDeviceSynchronize();
int cudaGetLastError();
int cudaMallocManaged(void** p, size_t n, unsigned flags);
}

namespace {

std::string vector_add_ptx() {
  std::ifstream in(std::string(GPUVP_TEST_DATA) + "/../../sw/kernels/vectorAdd.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE(!ss.str().empty());
  return ss.str();
}

// Registers `container` as nvcc's constructor does, with `host_fun` standing for the kernel's stub.
void register_module(const std::string& container, const void* host_fun) {
  static std::vector<std::unique_ptr<std::string>> keep;  // the wrapper's data lives as long as a program's
  keep.push_back(std::make_unique<std::string>(container));
  static std::vector<std::unique_ptr<fbtest::Buf>> wrappers;
  fbtest::Buf w;
  fbtest::put(w, 0, gpuvp::fatbin::kWrapperMagic, 4);
  fbtest::put(w, 4, 1, 4);
  fbtest::put(w, 8, reinterpret_cast<uintptr_t>(keep.back()->data()), 8);
  fbtest::put(w, 16, 0, 8);
  wrappers.push_back(std::make_unique<fbtest::Buf>(w));
  void** h = __cudaRegisterFatBinary(wrappers.back()->data());
  static char name[] = "vectorAdd";
  __cudaRegisterFunction(h, static_cast<const char*>(host_fun), name, name, -1, nullptr, nullptr, nullptr, nullptr,
                         nullptr);
  __cudaRegisterFatBinaryEnd(h);
}

// c = a + b on the platform, compared with the CPU's sums.
void check_vector_add(const void* host_fun) {
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = 0.5f * float(i) + 1.f;
  void *da, *db, *dc;
  for (void** p : {&da, &db, &dc}) REQUIRE(cudaMalloc(p, n * sizeof(float)) == 0);
  REQUIRE(cudaMemcpy(da, a.data(), n * sizeof(float), gpuvp::cudart::kHostToDevice) == 0);
  REQUIRE(cudaMemcpy(db, b.data(), n * sizeof(float), gpuvp::cudart::kHostToDevice) == 0);
  int count = n;
  void* args[] = {&da, &db, &dc, &count};
  REQUIRE(cudaLaunchKernel(host_fun, {(n + 127) / 128, 1, 1}, {128, 1, 1}, args, 0, nullptr) == 0);
  REQUIRE(cudaMemcpy(c.data(), dc, n * sizeof(float), gpuvp::cudart::kDeviceToHost) == 0);
  for (int i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  for (void* p : {da, db, dc}) REQUIRE(cudaFree(p) == 0);
}

int stub;  // the address nvcc's code registers a kernel under: any host object's

}  // namespace

TEST_CASE("cudart: a plain PTX fat binary runs its kernel") {
  register_module(fbtest::container({fbtest::plain_ptx(vector_add_ptx())}), &stub);
  check_vector_add(&stub);
}

TEST_CASE("cudart: LZ4 PTX among SASS entries runs its kernel") {
  register_module(fbtest::container({fbtest::sass(75), fbtest::lz4_ptx(vector_add_ptx())}), &stub);
  check_vector_add(&stub);
}

TEST_CASE("cudart: zstd PTX runs its kernel") {
  register_module(fbtest::container({fbtest::zstd_ptx(vector_add_ptx())}), &stub);
  check_vector_add(&stub);
}

TEST_CASE("cudart: of several PTX entries, the one for compute capability 7.5 runs") {
  // The compute_90 entry is not PTX the assembler takes: chosen, it would fail the launch.
  register_module(fbtest::container({fbtest::plain_ptx(vector_add_ptx(), 75), fbtest::plain_ptx("not PTX", 90)}),
                  &stub);
  check_vector_add(&stub);
}

TEST_CASE("cudart: a SASS-only fat binary is refused at launch, the rest goes on") {
  register_module(fbtest::container({fbtest::sass(75)}), &stub);
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, 16) == 0);
  void* args[] = {&p, &p, &p, &p};
  CHECK(cudaLaunchKernel(&stub, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr) == gpuvp::cudart::kErrorNoKernelImageForDevice);
  CHECK(cudaGetLastError() == gpuvp::cudart::kErrorNoKernelImageForDevice);
  CHECK(cudaGetLastError() == 0);
  CHECK(cudaDeviceSynchronize() == 0);  // not sticky
}

TEST_CASE("cudart: an unregistered kernel and a bad copy return CUDA's codes") {
  void* args[] = {nullptr};
  CHECK(cudaLaunchKernel(&stub, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr) ==
        gpuvp::cudart::kErrorInvalidDeviceFunction);
  int host = 0;
  CHECK(cudaMemcpy(&host, &host, 4, gpuvp::cudart::kDeviceToHost) == gpuvp::cudart::kErrorInvalidValue);
  CHECK(cudaMemcpy(&host, &host, 4, 9) == gpuvp::cudart::kErrorInvalidMemcpyDirection);
}

TEST_CASE("cudart: managed memory written by the host, summed by a kernel, read after cudaDeviceSynchronize") {
  register_module(fbtest::container({fbtest::plain_ptx(vector_add_ptx())}), &stub);
  const int n = 777;
  float *a, *b, *c;
  for (float** p : {&a, &b, &c}) REQUIRE(cudaMallocManaged(reinterpret_cast<void**>(p), n * sizeof(float), 1) == 0);
  CHECK(a == reinterpret_cast<float*>(reinterpret_cast<uintptr_t>(a) & ~uintptr_t(4095)));  // whole pages
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < n; ++i) a[i] = float(i * round), b[i] = 2.f, c[i] = -1.f;
    int count = n;
    void* args[] = {&a, &b, &c, &count};
    REQUIRE(cudaLaunchKernel(&stub, {(n + 127) / 128, 1, 1}, {128, 1, 1}, args, 0, nullptr) == 0);
    REQUIRE(cudaDeviceSynchronize() == 0);
    for (int i = 0; i < n; ++i) REQUIRE(c[i] == float(i * round) + 2.f);
  }
  for (float* p : {a, b, c}) REQUIRE(cudaFree(p) == 0);
  CHECK(cudaMallocManaged(reinterpret_cast<void**>(&a), 0, 1) == gpuvp::cudart::kErrorInvalidValue);
}
