// The fat binary sections of an ELF64 little-endian file (host executable, shared library or object
// built by nvcc): just enough of the section header table to find them by name; no libelf.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>

#include "sw/fatbin/bytes.h"
#include "sw/fatbin/fatbin.h"

namespace gpuvp::fatbin {

namespace {

// Reads [off, off + len) of the file or buffer, refusing a range past its end.
using ReadAt = std::function<std::string(uint64_t off, uint64_t len, const std::string& field)>;

constexpr uint32_t kShtNobits = 8;        // a section without bytes in the file (.bss)
constexpr uint16_t kShnXindex = 0xffff;   // the string table's index is in section 0's sh_link
constexpr uint64_t kMaxSections = uint64_t(1) << 32;  // ELF's own limit; keeps count * entsize in range
constexpr const char* kSections[] = {".nv_fatbin", "__nv_relfatbin"};

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0;
};

Bytes view(const std::string& s, const std::string& what) { return Bytes(s.data(), s.size(), what); }

// Where the section header table is, from the ELF header (and section 0 for extended numbering).
struct Table {
  uint64_t offset = 0, count = 0;
  uint16_t entsize = 0;
  uint32_t names = 0;  // index of the section name table
};

Table table_of(const ReadAt& read, const std::string& what) {
  std::string magic;
  try {
    magic = read(0, 4, "ELF magic");
  } catch (const FatbinError&) {  // shorter than a magic: not an ELF file either
  }
  if (magic != "\x7f" "ELF") throw FatbinError(what + ": not an ELF file");
  std::string eh = read(0, 64, "ELF header");
  Bytes h = view(eh, what);
  if (h.at(4) != 2 || h.at(5) != 1) throw FatbinError(what + ": not a 64-bit little-endian ELF file");
  Table t{h.u64(0x28, "e_shoff"), h.u16(0x3C, "e_shnum"), h.u16(0x3A, "e_shentsize"), h.u16(0x3E, "e_shstrndx")};
  if (t.offset == 0) throw FatbinError(what + ": no section header table");
  if (t.entsize < 64) throw FatbinError(fmt::format("{}: section header size {} is below 64", what, t.entsize));
  std::string first = read(t.offset, 64, "section header 0");
  if (t.count == 0) t.count = view(first, what).u64(0x20, "section count (sh_size of section 0)");
  if (t.names == kShnXindex) t.names = view(first, what).u32(0x28, "name table index (sh_link of section 0)");
  if (t.count > kMaxSections) throw FatbinError(fmt::format("{}: {} sections", what, t.count));
  if (t.names >= t.count)
    throw FatbinError(fmt::format("{}: section name table index {} of {}", what, t.names, t.count));
  return t;
}

std::vector<Section> section_headers(const ReadAt& read, const std::string& what) {
  Table t = table_of(read, what);
  std::string table = read(t.offset, t.count * t.entsize, "section header table");
  Bytes b = view(table, what);
  std::vector<Section> out(t.count);
  std::vector<uint32_t> names(t.count);
  for (uint64_t i = 0; i < t.count; ++i) {
    uint64_t o = i * t.entsize;
    names[i] = b.u32(o, "sh_name");
    out[i].type = b.u32(o + 4, "sh_type");
    out[i].offset = b.u64(o + 0x18, "sh_offset");
    out[i].size = b.u64(o + 0x20, "sh_size");
  }
  std::string strtab = read(out[t.names].offset, out[t.names].size, "section name table");
  for (uint64_t i = 0; i < t.count; ++i)
    if (names[i] < strtab.size()) out[i].name = strtab.c_str() + names[i];  // others cannot be ours
  return out;
}

FatBinary read_sections(const ReadAt& read, const std::string& what) {
  FatBinary fb;
  bool found = false;
  for (const Section& s : section_headers(read, what)) {
    bool wanted = std::find(std::begin(kSections), std::end(kSections), s.name) != std::end(kSections);
    if (!wanted || s.type == kShtNobits) continue;
    found = true;
    std::string bytes = read(s.offset, s.size, "section " + s.name);
    FatBinary one = parse_containers(bytes.data(), bytes.size(), what + ", section " + s.name);
    fb.entries.insert(fb.entries.end(), one.entries.begin(), one.entries.end());
  }
  if (!found)
    throw FatbinError(what + ": no .nv_fatbin or __nv_relfatbin section (not built by nvcc with device code?)");
  return fb;
}

}  // namespace

FatBinary read_elf_bytes(const void* data, size_t size, const std::string& what) {
  Bytes b(data, size, what);
  return read_sections([&](uint64_t off, uint64_t len, const std::string& field) { return b.str(off, len, field); },
                       what);
}

FatBinary read_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw FatbinError(path + ": cannot open");
  uint64_t size = uint64_t(in.tellg());
  auto read = [&](uint64_t off, uint64_t len, const std::string& field) {
    need_range(path, field, off, len, size);
    std::string s(size_t(len), '\0');
    in.seekg(std::streamoff(off));
    if (!in.read(s.data(), std::streamsize(len))) throw FatbinError(path + ": read error in " + field);
    return s;
  };
  return read_sections(read, path);
}

}  // namespace gpuvp::fatbin
