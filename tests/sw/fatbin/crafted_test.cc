// Fat binaries crafted from bytes (no nvcc needed): each compression read back, the registration
// wrapper in both versions, the ELF section reader, and every malformed input refused with a
// FatbinError naming what is wrong.
#include "fatbin_util.h"

using namespace fbtest;
using namespace gpuvp::fatbin;
using Catch::Matchers::Contains;

namespace {

const std::string kPtx = ".version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry k()\n{\nret;\n}\n";

FatBinary parse(const Buf& b) { return parse_containers(b.data(), b.size()); }

std::vector<Ptx> ptx_of(const Buf& b) { return parse(b).ptx(); }

}  // namespace

TEST_CASE("fatbin: plain, LZ4 and zstd PTX entries give the same text with their arch and ISA version", "[fatbin]") {
  Buf c = container({sass(75), plain_ptx(kPtx, 75), lz4_ptx(kPtx, 80), zstd_ptx(kPtx, 86)});
  FatBinary fb = parse(c);
  REQUIRE(fb.entries.size() == 4);
  CHECK(fb.entries[0].kind == uint16_t(Kind::Elf));
  CHECK(fb.entries[1].compression() == Compression::None);
  CHECK(fb.entries[2].compression() == Compression::Lz4);
  CHECK(fb.entries[3].compression() == Compression::Zstd);
  auto ptx = fb.ptx();
  REQUIRE(ptx.size() == 3);
  for (auto& p : ptx) {
    CHECK(p.text == kPtx);
    CHECK(p.isa_major == 9);
    CHECK(p.isa_minor == 0);
  }
  CHECK(ptx[0].arch_name == "sm_75");
  CHECK(ptx[2].arch == 86);
}

TEST_CASE("fatbin: pick_ptx takes the highest arch, or the highest up to a limit", "[fatbin]") {
  auto ptx = ptx_of(container({plain_ptx(kPtx, 86), plain_ptx(kPtx, 75), plain_ptx(kPtx, 80)}));
  CHECK(pick_ptx(ptx).arch == 86);
  CHECK(pick_ptx(ptx, 85).arch == 80);
  CHECK(pick_ptx(ptx, 75).arch == 75);
  CHECK_THROWS_WITH(pick_ptx(ptx, 70), Contains("no PTX for an architecture up to sm_70") &&
                                           Contains("sm_86, sm_75, sm_80"));
}

TEST_CASE("fatbin: the arch suffixes, identifier and ptxas options are read from the header", "[fatbin]") {
  Buf a = entry({1, 90, 0x100011, kPtx + '\0', 0, "--compile-only  "});
  Buf f = entry({1, 100, 0x200011, kPtx + '\0', 0, ""});
  FatBinary fb = parse(container({a, f}));
  CHECK(fb.entries[0].arch_name() == "sm_90a");
  CHECK(fb.entries[0].options == "--compile-only  ");
  CHECK(fb.entries[0].header_size == 96);
  CHECK(fb.entries[1].arch_name() == "sm_100f");
  CHECK(fb.entries[1].options.empty());
}

TEST_CASE("fatbin: SASS only gets the no-PTX message naming its archs and how to keep PTX", "[fatbin]") {
  auto fb = parse(container({sass(86), sass(75), sass(86)}));
  CHECK_THROWS_AS(fb.ptx(), FatbinError);
  CHECK_THROWS_WITH(fb.ptx(), Contains("no PTX in this fat binary: it holds only SASS for sm_86, sm_75;") &&
                                  Contains("-arch=compute_75") && Contains("code=compute_75") &&
                                  Contains("CUDA_ARCHITECTURES 75-virtual or 75"));
}

TEST_CASE("fatbin: the registration wrapper, version 1 and version 2 with its prelinked list", "[fatbin]") {
  Buf linked = container({sass(75)}), m1 = container({zstd_ptx(kPtx, 75)}), m2 = container({lz4_ptx(kPtx, 86)});
  const void* list[] = {m1.data(), m2.data(), nullptr};
  struct {
    int magic, version;
    const void* data;
    const void* fatbins;
  } raw{int(kWrapperMagic), 2, linked.data(), list};
  auto ptx = read_wrapper(&raw).ptx();
  REQUIRE(ptx.size() == 2);
  CHECK(ptx[1].arch == 86);
  CHECK(ptx[1].text == kPtx);
  auto one = read_wrapper(Wrapper{kWrapperMagic, 1, m1.data(), "k.cu"}).ptx();  // v1: a file name, not read
  REQUIRE(one.size() == 1);
  CHECK(one[0].text == kPtx);
  CHECK_THROWS_WITH(read_wrapper(Wrapper{0x12345678, 1, m1.data(), nullptr}), Contains("magic 0x12345678"));
  CHECK_THROWS_WITH(read_wrapper(Wrapper{kWrapperMagic, 3, m1.data(), nullptr}), Contains("version 3"));
  CHECK_THROWS_WITH(read_wrapper(Wrapper{kWrapperMagic, 1, nullptr, nullptr}), Contains("null container"));
  CHECK_THROWS_WITH(read_wrapper(Wrapper{kWrapperMagic, 1, kPtx.data(), nullptr}), Contains("magic"));
}

TEST_CASE("fatbin: the ELF reader finds .nv_fatbin and __nv_relfatbin among other sections", "[fatbin]") {
  Buf elf = elf_with({{".text", "code"}, {".nv_fatbin", container({sass(75)})},
                      {"__nv_relfatbin", container({zstd_ptx(kPtx, 75)})}});
  auto ptx = read_elf_bytes(elf.data(), elf.size(), "app").ptx();
  REQUIRE(ptx.size() == 1);
  CHECK(ptx[0].text == kPtx);
  Buf none = elf_with({{".text", "code"}});
  CHECK_THROWS_WITH(read_elf_bytes(none.data(), none.size(), "app"), Contains("app: no .nv_fatbin"));
  Buf text = "not an elf file at all, just text";
  CHECK_THROWS_WITH(read_elf_bytes(text.data(), text.size(), "notes.txt"), Contains("notes.txt: not an ELF file"));
  CHECK_THROWS_WITH(read_elf("/nonexistent/app"), Contains("/nonexistent/app: cannot open"));
}

TEST_CASE("fatbin: malformed containers are refused with a message naming what is wrong", "[fatbin]") {
  Buf good = container({plain_ptx(kPtx), zstd_ptx(kPtx)});
  SECTION("bad magic") {
    Buf b = good;
    b[0] = 'X';
    CHECK_THROWS_WITH(parse(b), Contains("container at 0x0: magic") && Contains("not a fat binary's (0xba55ed50)"));
  }
  SECTION("bad version and header size") {
    Buf b = good;
    put(b, 4, 2, 2);
    CHECK_THROWS_WITH(parse(b), Contains("version 2 with a 16-byte header, expected version 1 with 16"));
  }
  SECTION("truncated container header") {
    CHECK_THROWS_WITH(parse(good.substr(0, 10)), Contains("payload size at offset 0x8 (8 bytes) reaches past the end"));
  }
  SECTION("payload size beyond the buffer") {
    CHECK_THROWS_WITH(parse(good.substr(0, good.size() - 8)), Contains("container at 0x0: payload") &&
                                                                  Contains("reaches past the end"));
  }
  SECTION("truncated entry header") {
    Buf b = container({plain_ptx(kPtx), Buf(40, 'x')});
    CHECK_THROWS_WITH(parse(b), Contains("truncated entry at") && Contains("40 bytes left in the container"));
  }
  SECTION("entry payload beyond the container") {
    Buf b = good;
    put(b, 16 + 8, 1u << 20, 8);  // first entry's padded size
    CHECK_THROWS_WITH(parse(b), Contains("entry at 0x10: payload (padded size)") && Contains("reaches past the end"));
  }
  SECTION("entry header size below 64 or beyond the container") {
    Buf b = good;
    put(b, 16 + 4, 8, 4);
    CHECK_THROWS_WITH(parse(b), Contains("header size 8 is below 64"));
    put(b, 16 + 4, 1u << 30, 4);
    CHECK_THROWS_WITH(parse(b), Contains("entry at 0x10: header at offset"));
  }
  SECTION("options string outside the header") {
    Buf b = good;
    put(b, 16 + 68, 1000, 4);  // options length
    CHECK_THROWS_WITH(parse(b), Contains("options at offset 0x48 (1000 bytes) reaches past the end"));
  }
  SECTION("compressed size beyond the padded size") {
    Buf b = container({zstd_ptx(kPtx)});
    put(b, 16 + 0x10, 1u << 20, 4);
    CHECK_THROWS_WITH(parse(b), Contains("compressed size 1048576 exceeds the padded size"));
  }
  SECTION("unknown compression flag") {
    Buf b = good;
    put(b, 16 + 0x28, 0x1011, 8);
    CHECK_THROWS_WITH(ptx_of(b), Contains("entry at 0x10 (PTX sm_75): unknown compression flag 0x1000 (flags 0x1011"));
    put(b, 16 + 0x28, 0xA011, 8);  // LZ4 and zstd at once
    CHECK_THROWS_WITH(ptx_of(b), Contains("unknown compression flag 0xa000"));
    Buf sass_only = container({sass(75)});
    put(sass_only, 16 + 0x28, 0x4011, 8);  // on an entry never decoded: no error
    CHECK(parse(sass_only).entries.at(0).flags == 0x4011);
  }
  SECTION("a compression flag without a compressed size") {
    Buf b = container({plain_ptx(kPtx)});
    put(b, 16 + 0x28, 0x8011, 8);
    CHECK_THROWS_WITH(ptx_of(b), Contains("compressed (flags 0x8011) with a compressed size of 0"));
  }
  SECTION("zero bytes only") { CHECK_THROWS_WITH(parse(Buf(64, '\0')), Contains("no container in 64 bytes")); }
}

TEST_CASE("fatbin: corrupt compressed payloads are decompression errors, never crashes", "[fatbin]") {
  std::string big;
  for (int i = 0; i < 200; ++i) big += fmt::format("add.s32 %r{}, %r{}, {};\n", i, i + 1, i * 7);
  SECTION("zstd") {
    Buf b = container({zstd_ptx(big)});
    size_t payload = 16 + 80;
    for (size_t i = payload + 20; i < payload + 40; ++i) b[i] = char(b[i] ^ 0x5a);
    CHECK_THROWS_WITH(ptx_of(b), Contains("zstd decompression failed"));
    put(b, 16 + 0x38, big.size() + 5, 8);  // the header disagrees with the frame
    CHECK_THROWS_WITH(ptx_of(b), Contains("zstd frame holds") && Contains("the header says"));
  }
  SECTION("LZ4") {
    Buf b = container({lz4_ptx(big)});
    size_t payload = 16 + 80;
    for (size_t i = payload + 5; i < payload + 60; ++i) b[i] = char(0xff);
    CHECK_THROWS_WITH(ptx_of(b), Contains("LZ4 decompression failed"));
  }
  SECTION("uncompressed sizes that cannot be") {
    Buf b = container({lz4_ptx(big)});
    put(b, 16 + 0x38, uint64_t(1) << 40, 8);
    CHECK_THROWS_WITH(ptx_of(b), Contains("uncompressed size 1099511627776 is not in 1.."));
    put(b, 16 + 0x38, 0, 8);
    CHECK_THROWS_WITH(ptx_of(b), Contains("uncompressed size 0 is not in 1.."));
  }
}
