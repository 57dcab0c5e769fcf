// The wrappers a real nvcc-built library passes to __cudaRegisterFatBinary when it is loaded: this test
// program defines the registration entry points (exported: test_fatbin links with ENABLE_EXPORTS),
// loads a shared library nvcc built from tests/data/fatbin/kernels.cu with `-cudart none`, and reads
// every wrapper it receives: version 1 for the module, version 2 with the prelinked list for -rdc.
#include <dlfcn.h>

#include "fatbin_util.h"

using namespace fbtest;
using namespace gpuvp::fatbin;

namespace {

std::vector<const void*> g_wrappers;
void* g_handle = nullptr;

}  // namespace

// What the library's constructors call; only the wrapper matters here, the rest accept and ignore.
extern "C" {
void** __cudaRegisterFatBinary(void* wrapper) {
  g_wrappers.push_back(wrapper);
  return &g_handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction() {}
void __cudaRegisterVar() {}
void __cudaInitModule() {}
void __cudaGetKernel() {}
void __cudaLaunchKernel() {}
void __cudaPopCallConfiguration() {}
}

namespace {

const char* kArch = "-arch=sm_75";

// Loads the library (kept loaded: the wrappers point into it) and returns the wrappers it registered.
std::vector<const void*> registered(const std::string& so) {
  g_wrappers.clear();
  void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO(so << ": " << (lib ? "" : ::dlerror()));
  REQUIRE(lib);
  return g_wrappers;
}

int version_of(const void* wrapper) { return static_cast<const int*>(wrapper)[1]; }

std::string reference_ptx() {
  return fatbin_stripped(gpuvp::test::slurp(nvcc_build(fmt::format("-ptx {}", kArch), "ptx")));
}

}  // namespace

TEST_CASE("fatbin register: a loaded nvcc library's wrappers give its PTX, nvcc -ptx's once stripped",
          "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  std::string so = nvcc_build(fmt::format("-shared -Xcompiler -fPIC -cudart none {}", kArch), "so");
  FatBinary all;
  bool module = false;
  for (const void* w : registered(so)) {
    module |= version_of(w) == 1;
    auto one = read_wrapper(w);
    all.entries.insert(all.entries.end(), one.entries.begin(), one.entries.end());
  }
  CHECK(module);
  auto ptx = all.ptx();
  REQUIRE(ptx.size() == 1);
  CHECK(ptx[0].arch_name == "sm_75");
  CHECK(ptx[0].text == reference_ptx());
  CHECK(read_elf(so).ptx().at(0).text == ptx[0].text);
}

TEST_CASE("fatbin register: -rdc=true registers a version 2 wrapper whose prelinked list holds the PTX",
          "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  std::string dc = nvcc_build(fmt::format("-dc -Xcompiler -fPIC {}", kArch), "o");
  std::string so = built(dc + " shared", "so", [&](const std::string& out) {
    return fmt::format("nice {0} -dlink -Xcompiler -fPIC {1} {2} -o {3}.dlink.o && nice {0} -shared -cudart none "
                       "{2} {3}.dlink.o -o {3} && rm {3}.dlink.o",
                       nvcc(), kArch, dc, out);
  });
  auto wrappers = registered(so);
  REQUIRE(wrappers.size() == 1);
  REQUIRE(version_of(wrappers[0]) == 2);
  auto ptx = read_wrapper(wrappers[0]).ptx();
  REQUIRE(ptx.size() == 1);
  CHECK(ptx[0].text.find(".entry _Z4vaddPKfS0_Pfi") != std::string::npos);
  CHECK(ptx[0].text == read_elf(so).ptx().at(0).text);  // the file's __nv_relfatbin holds the same
}
