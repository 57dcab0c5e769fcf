// Fat binaries nvcc builds from tests/data/fatbin/kernels.cu (skipped with a warning without nvcc):
// every compression mode carries the same PTX, the PTX `nvcc -ptx` makes once the fatbinary tool's
// stripping is applied; real-only builds get the no-PTX message; several virtual archs and -rdc.
#include "fatbin_util.h"

using namespace fbtest;
using namespace gpuvp::fatbin;
using Catch::Matchers::Contains;

namespace {

const char* kArch = "-arch=sm_75";  // SASS and PTX for sm_75

std::string object(const std::string& flags) { return nvcc_build(fmt::format("-c {}", flags), "o"); }

}  // namespace

TEST_CASE("fatbin nvcc: every compression mode gives byte-identical PTX, nvcc -ptx's once stripped", "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  std::string reference = fatbin_stripped(gpuvp::test::slurp(nvcc_build(fmt::format("-ptx {}", kArch), "ptx")));
  REQUIRE(reference.find(".entry _Z4vaddPKfS0_Pfi") != std::string::npos);
  REQUIRE(reference.find(".const .align 4 .b8 taps[32]") != std::string::npos);
  struct Mode {
    const char* flags;
    Compression ptx_stored;
  };
  for (Mode m : {Mode{"--compress-mode=none", Compression::None}, Mode{"-no-compress", Compression::None},
                 Mode{"--compress-mode=speed", Compression::Lz4}, Mode{"--compress-mode=balance", Compression::Zstd},
                 Mode{"--compress-mode=size", Compression::Zstd}, Mode{"", Compression::Zstd}}) {
    INFO("nvcc -c " << kArch << " " << m.flags);
    FatBinary fb = read_elf(object(fmt::format("{} {}", kArch, m.flags)));
    REQUIRE(fb.entries.size() == 2);  // sm_75 SASS, then sm_75 PTX
    CHECK(fb.entries[0].kind == uint16_t(Kind::Elf));
    CHECK(fb.entries[1].compression() == m.ptx_stored);
    auto ptx = fb.ptx();
    REQUIRE(ptx.size() == 1);
    CHECK(ptx[0].arch_name == "sm_75");
    CHECK(ptx[0].text.find(fmt::format("\n.version {}.{}\n", ptx[0].isa_major, ptx[0].isa_minor)) != std::string::npos);
    CHECK(ptx[0].text == reference);
  }
}

TEST_CASE("fatbin nvcc: a real-only build gets the no-PTX message naming its SASS archs", "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  FatBinary fb = read_elf(object("-gencode arch=compute_75,code=sm_75 -gencode arch=compute_86,code=sm_86"));
  CHECK_THROWS_WITH(fb.ptx(), Contains("no PTX in this fat binary: it holds only SASS for sm_75, sm_86;") &&
                                  Contains("-arch=compute_75") && Contains("CUDA_ARCHITECTURES 75-virtual or 75"));
}

TEST_CASE("fatbin nvcc: several virtual archs give every PTX, and pick_ptx the highest", "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  auto ptx =
      read_elf(object("-gencode arch=compute_75,code=compute_75 -gencode arch=compute_86,code=compute_86")).ptx();
  REQUIRE(ptx.size() == 2);
  CHECK(ptx[0].arch_name == "sm_75");
  CHECK(ptx[1].arch_name == "sm_86");
  CHECK(ptx[0].text.find(".target sm_75") != std::string::npos);
  CHECK(ptx[1].text.find(".target sm_86") != std::string::npos);
  CHECK(pick_ptx(ptx).arch == 86);
  CHECK(pick_ptx(ptx, 80).arch == 75);
}

TEST_CASE("fatbin nvcc: an -rdc=true object keeps its PTX in __nv_relfatbin with its ptxas options", "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  FatBinary fb = read_elf(object(fmt::format("-rdc=true {}", kArch)));
  auto ptx = fb.ptx();
  REQUIRE(ptx.size() == 1);
  CHECK(ptx[0].text.find(".entry _Z3firPKfPfi") != std::string::npos);
  bool compile_only = false;
  for (auto& e : fb.entries) compile_only |= e.is_ptx() && e.options.find("--compile-only") != std::string::npos;
  CHECK(compile_only);
}

TEST_CASE("fatbin nvcc: -lineinfo records the source name and ptxas option in the headers", "[fatbin][nvcc]") {
  FATBIN_NEEDS_NVCC();
  FatBinary fb = read_elf(object(fmt::format("-lineinfo {}", kArch)));
  REQUIRE(fb.entries.size() == 2);
  CHECK(fb.entries[0].identifier == kernels_cu());  // the source as named on nvcc's command line
  CHECK(fb.entries[1].identifier == kernels_cu());
  CHECK(fb.entries[1].options.find("--generate-line-info") != std::string::npos);
  CHECK(fb.ptx()[0].text.find(".loc") != std::string::npos);
}
