#pragma once
// Helpers for the fat binary tests: containers and ELF files crafted from bytes (the layout of
// docs/fatbin.md), and objects nvcc builds from tests/data/fatbin/kernels.cu when it is installed.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "common/subprocess.h"
#include "sw/fatbin/fatbin.h"

namespace fbtest {

using Buf = std::string;  // bytes

inline void put(Buf& b, size_t off, uint64_t v, unsigned width) {
  if (b.size() < off + width) b.resize(off + width, '\0');
  for (unsigned i = 0; i < width; ++i) b[off + i] = char((v >> (8 * i)) & 0xff);
}

inline Buf pad8(Buf b) {
  b.resize((b.size() + 7) / 8 * 8, '\0');
  return b;
}

// One entry as nvcc 13 writes it: a 64-byte header, then (PTX) an options record and its string.
struct EntrySpec {
  uint16_t kind = 1;
  unsigned arch = 75;
  uint64_t flags = 0x11;
  Buf stored;                  // the payload as stored (already compressed if flags say so)
  uint64_t uncompressed = 0;   // 0 for a plain entry
  std::string options;         // PTX entries only
};

inline Buf entry(const EntrySpec& s) {
  Buf h;
  uint32_t header = 64;
  if (s.kind == 1) {
    put(h, 64, 72, 4);  // options record at 64: {string offset 72, length}
    put(h, 68, s.options.size(), 4);
    h.resize(72);
    h += s.options;
    header = uint32_t(pad8(h + std::string(8, '\0')).size());
    h.resize(header, '\0');
  }
  Buf payload = pad8(s.stored);
  bool compressed = (s.flags & 0xF000) != 0;
  put(h, 0x00, s.kind, 2);
  put(h, 0x02, 0x0101, 2);
  put(h, 0x04, header, 4);
  put(h, 0x08, payload.size(), 8);
  put(h, 0x10, compressed ? s.stored.size() : 0, 4);
  put(h, 0x14, s.kind == 1 ? 64 : 0, 4);
  put(h, 0x18, s.kind == 1 ? 0 : 8, 2);  // PTX ISA 9.0; ELF entries carry 1.8
  put(h, 0x1A, s.kind == 1 ? 9 : 1, 2);
  put(h, 0x1C, s.arch, 4);
  put(h, 0x28, s.flags, 8);
  put(h, 0x38, s.uncompressed, 8);
  h.resize(header, '\0');
  return h + payload;
}

inline Buf container(const std::vector<Buf>& entries) {
  Buf body;
  for (auto& e : entries) body += e;
  Buf h;
  put(h, 0, 0xBA55ED50, 4);
  put(h, 4, 1, 2);
  put(h, 6, 16, 2);
  put(h, 8, body.size(), 8);
  return h + body;
}

inline Buf zstd_of(const std::string& s) {
  Buf out(ZSTD_compressBound(s.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3);
  REQUIRE(!ZSTD_isError(n));
  out.resize(n);
  return out;
}

inline Buf lz4_of(const std::string& s) {
  Buf out(size_t(LZ4_compressBound(int(s.size()))), '\0');
  int n = LZ4_compress_default(s.data(), out.data(), int(s.size()), int(out.size()));
  REQUIRE(n > 0);
  out.resize(size_t(n));
  return out;
}

// PTX entries as nvcc stores them: the text with its terminating NUL, plain or compressed.
inline Buf plain_ptx(const std::string& text, unsigned arch = 75) {
  return entry({1, arch, 0x11, text + '\0', 0, ""});
}
inline Buf zstd_ptx(const std::string& text, unsigned arch = 75) {
  return entry({1, arch, 0x8011, zstd_of(text + '\0'), text.size() + 1, ""});
}
inline Buf lz4_ptx(const std::string& text, unsigned arch = 75) {
  return entry({1, arch, 0x2011, lz4_of(text + '\0'), text.size() + 1, ""});
}
inline Buf sass(unsigned arch) { return entry({2, arch, 0x11, "\x7f" "ELF not really", 0, ""}); }

// A minimal ELF64 little-endian file: a null section, the section name table, then `sections`.
inline Buf elf_with(const std::vector<std::pair<std::string, Buf>>& sections) {
  Buf names("\0.shstrtab\0", 11), data;
  std::vector<std::pair<uint32_t, uint64_t>> at;  // name offset, data offset
  for (auto& [name, bytes] : sections) {
    at.push_back({uint32_t(names.size()), 64 + data.size()});
    names += name + '\0';
    data += pad8(bytes);
  }
  uint64_t strtab_off = 64 + data.size(), shoff = strtab_off + pad8(names).size();
  Buf f("\x7f" "ELF\x02\x01\x01", 7);
  put(f, 0x28, shoff, 8);
  put(f, 0x3A, 64, 2);
  put(f, 0x3C, sections.size() + 2, 2);
  put(f, 0x3E, 1, 2);
  f.resize(64, '\0');
  f += data + pad8(names);
  auto section = [&](uint32_t name, uint32_t type, uint64_t off, uint64_t size) {
    Buf s(64, '\0');
    put(s, 0, name, 4);
    put(s, 4, type, 4);
    put(s, 0x18, off, 8);
    put(s, 0x20, size, 8);
    f += s;
  };
  section(0, 0, 0, 0);
  section(1, 3, strtab_off, names.size());
  for (size_t i = 0; i < sections.size(); ++i) section(at[i].first, 1, at[i].second, sections[i].second.size());
  return f;
}

// ---- nvcc ----

inline std::string nvcc() {
  const char* home = std::getenv("CUDA_HOME");
  return std::string(home && *home ? home : "/usr/local/cuda") + "/bin/nvcc";
}
inline bool have_nvcc() { return ::access(nvcc().c_str(), X_OK) == 0; }

// Skips the rest of a test case (with a message) when nvcc is not installed.
#define FATBIN_NEEDS_NVCC()                                                                     \
  do {                                                                                          \
    if (!fbtest::have_nvcc()) {                                                                 \
      WARN("nvcc not found at " << fbtest::nvcc() << " (set CUDA_HOME): test skipped");         \
      SUCCEED();                                                                                \
      return;                                                                                   \
    }                                                                                           \
  } while (0)

inline std::string kernels_cu() { return std::string(GPUVP_TEST_DATA) + "/fatbin/kernels.cu"; }

// The file `command(out)` writes, built once into the build directory and cached by `key` (ctest
// runs every TEST_CASE as its own process; the rename makes concurrent builders safe).
inline std::string built(const std::string& key, const std::string& ext,
                         const std::function<std::string(const std::string& out)>& command) {
  std::string dir = GPUVP_FATBIN_WORK;
  ::mkdir(dir.c_str(), 0755);
  std::string out = fmt::format("{}/kernels_{:016x}.{}", dir, std::hash<std::string>{}(key), ext);
  if (::access(out.c_str(), R_OK) == 0) return out;
  std::string tmp = fmt::format("{}.{}.tmp", out, ::getpid());
  auto r = gpuvp::test::run_cmd(command(tmp));
  INFO(command(tmp) << "\n" << r.err);
  REQUIRE(r.status == 0);
  REQUIRE(std::rename(tmp.c_str(), out.c_str()) == 0);
  return out;
}

// nvcc `flags` on tests/data/fatbin/kernels.cu; `ext` is the output's extension (o, ptx, so).
inline std::string nvcc_build(const std::string& flags, const std::string& ext) {
  std::string src = gpuvp::test::slurp(kernels_cu());
  REQUIRE(!src.empty());
  return built(src + flags, ext, [&](const std::string& out) {
    return fmt::format("nice {} {} {} -o {}", nvcc(), flags, kernels_cu(), out);
  });
}

// What the fatbinary tool does to PTX text before storing it (docs/fatbin.md): each line loses its
// `//` comment, runs of blanks become one space, and the line is trimmed; lines stay where they were.
inline std::string fatbin_stripped(const std::string& ptx) {
  std::string out, line;
  for (size_t i = 0; i <= ptx.size(); ++i) {
    if (i < ptx.size() && ptx[i] != '\n') {
      line += ptx[i];
      continue;
    }
    line = line.substr(0, line.find("//"));
    std::string squeezed;
    for (char c : line) {
      bool blank = c == ' ' || c == '\t';
      if (blank && (squeezed.empty() || squeezed.back() == ' ')) continue;
      squeezed += blank ? ' ' : c;
    }
    if (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
    out += squeezed;
    if (i < ptx.size()) out += '\n';
    line.clear();
  }
  return out;
}

}  // namespace fbtest
