// Untrusted bytes: every truncation and a few thousand seeded byte flips of a container (crafted, and
// nvcc's when it is installed) and of an ELF object either read or fail with a FatbinError; any
// other exception fails the test, a crash or hang fails it under ctest.
#include <random>

#include "fatbin_util.h"

using namespace fbtest;
using namespace gpuvp::fatbin;

namespace {

constexpr int kFlips = 3000;

struct Outcomes {
  int read = 0, refused = 0;
};

// Reads `b` fully (entries and decoded PTX); only a FatbinError may stop it.
template <typename Read>
void attempt(const Buf& b, Read read, Outcomes& o) {
  try {
    read(b).ptx();
    ++o.read;
  } catch (const FatbinError&) {
    ++o.refused;
  }
}

template <typename Read>
Outcomes mutate(const Buf& good, Read read, uint32_t seed) {
  Outcomes o;
  for (size_t n = 0; n < good.size(); ++n) attempt(good.substr(0, n), read, o);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pos(0, good.size() - 1);
  std::uniform_int_distribution<int> byte(1, 255), count(1, 3);
  for (int i = 0; i < kFlips; ++i) {
    Buf b = good;
    for (int k = count(rng); k > 0; --k) b[pos(rng)] ^= char(byte(rng));
    attempt(b, read, o);
  }
  INFO("read " << o.read << ", refused " << o.refused);
  CHECK(o.read + o.refused == int(good.size()) + kFlips);
  CHECK(o.refused >= int(good.size()));  // no truncation is a whole fat binary
  return o;
}

FatBinary as_container(const Buf& b) { return parse_containers(b.data(), b.size()); }
FatBinary as_elf(const Buf& b) { return read_elf_bytes(b.data(), b.size(), "fuzzed"); }

// The first container in an nvcc object's bytes: its magic, then its header's size.
Buf first_container(const Buf& file) {
  size_t at = file.find(std::string("\x50\xed\x55\xba", 4));
  REQUIRE(at != std::string::npos);
  uint64_t payload = 0;
  for (int i = 7; i >= 0; --i) payload = (payload << 8) | uint8_t(file[at + 8 + size_t(i)]);
  return file.substr(at, 16 + payload);
}

}  // namespace

TEST_CASE("fatbin fuzz: truncations and byte flips of a crafted container are read or refused", "[fatbin][fuzz]") {
  std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n";
  for (int i = 0; i < 20; ++i) text += fmt::format("mov.u32 %r{}, {};\n", i, i * 3);
  Buf good = container({sass(75), entry({1, 75, 0x11, text + '\0', 0, "--compile-only  "}), lz4_ptx(text, 80),
                        zstd_ptx(text, 86)});
  REQUIRE(as_container(good).ptx().size() == 3);
  Outcomes o = mutate(good, as_container, 1);
  CHECK(o.read > 0);  // flips in the PTX text itself still read
}

TEST_CASE("fatbin fuzz: truncations and byte flips of nvcc's containers and object are read or refused",
          "[fatbin][fuzz][nvcc]") {
  FATBIN_NEEDS_NVCC();
  for (const char* mode : {"speed", "balance"}) {
    INFO("--compress-mode=" << mode);
    Buf file = gpuvp::test::slurp(nvcc_build(fmt::format("-c -arch=sm_75 --compress-mode={}", mode), "o"));
    Buf c = first_container(file);
    REQUIRE(as_container(c).ptx().size() == 1);
    mutate(c, as_container, 2);
    REQUIRE(as_elf(file).ptx().size() == 1);
    mutate(file, as_elf, 3);
  }
}
