// Containers and their entries (layout in docs/fatbin.md), and the registration wrapper.
#include <fmt/format.h>

#include <cstring>

#include "sw/fatbin/bytes.h"
#include "sw/fatbin/fatbin.h"

namespace gpuvp::fatbin {

namespace {

constexpr uint32_t kContainerHeader = 16;
constexpr uint32_t kEntryHeaderMin = 64;  // the fixed fields; identifier and options follow inside
// nvcc writes -rdc modules into a NULL-terminated list; a list longer than this is garbage, not a program.
constexpr size_t kMaxPrelinked = 1 << 16;

// A string the header locates by (offset, length) inside itself.
std::string header_string(const Bytes& h, uint32_t off, uint32_t len, const char* field) {
  if (len == 0) return {};
  return h.str(off, len, field);
}

// The options record {u32 offset, u32 length} at `rec` inside the header (0: none). nvcc pads the
// string with spaces and NULs; the NULs go.
std::string header_options(const Bytes& h, uint32_t rec) {
  if (rec == 0) return {};
  std::string s = header_string(h, h.u32(rec, "options offset"), h.u32(rec + 4, "options length"), "options");
  return s.substr(0, s.find('\0'));
}

// The header of the entry at `off` of container `c` (at `base` in the bytes read).
Entry entry_header(const Bytes& c, uint64_t off, size_t base, const std::string& at) {
  if (c.size() - off < kEntryHeaderMin)
    throw FatbinError(fmt::format("{}: truncated {}: {} bytes left in the container, a header takes {}", c.what(), at,
                                  c.size() - off, kEntryHeaderMin));
  Entry e;
  e.offset = base + off;
  e.kind = c.u16(off, at + ": kind");
  e.header_size = c.u32(off + 0x04, at + ": header size");
  if (e.header_size < kEntryHeaderMin)
    throw FatbinError(fmt::format("{}: {}: header size {} is below {}", c.what(), at, e.header_size, kEntryHeaderMin));
  Bytes h = c.sub(off, e.header_size, at + ": header", fmt::format("{}, {} header", c.what(), at));
  e.padded_size = h.u64(0x08, "padded size");
  e.compressed_size = h.u32(0x10, "compressed size");
  e.version_minor = h.u16(0x18, "version");
  e.version_major = h.u16(0x1A, "version");
  e.arch = h.u32(0x1C, "arch");
  e.identifier = header_string(h, h.u32(0x20, "identifier offset"), h.u32(0x24, "identifier length"), "identifier");
  e.flags = h.u64(0x28, "flags");
  e.uncompressed_size = h.u64(0x38, "uncompressed size");
  e.options = header_options(h, h.u32(0x14, "options record"));
  return e;
}

// The entry with its stored payload. Flags are judged only when the payload is decoded, so an entry
// compressed in a way unknown here does not hide the others.
Entry parse_entry(const Bytes& c, uint64_t off, size_t base) {
  std::string at = fmt::format("entry at {:#x}", base + off);
  Entry e = entry_header(c, off, base, at);
  uint64_t stored = e.compressed_size != 0 ? e.compressed_size : e.padded_size;  // plain entries store 0
  if (stored > e.padded_size)
    throw FatbinError(fmt::format("{}: {}: compressed size {} exceeds the padded size {}", c.what(), at,
                                  e.compressed_size, e.padded_size));
  uint64_t payload = off + e.header_size;
  c.need(payload, e.padded_size, at + ": payload (padded size)");
  e.payload = c.str(payload, stored, at + ": payload");
  return e;
}

// The container header at `off` of `b`, checked; returns the payload size.
uint64_t container_payload(const Bytes& b, uint64_t off) {
  std::string at = fmt::format("container at {:#x}", off);
  uint32_t magic = b.u32(off, at + ": magic");
  if (magic != kContainerMagic)
    throw FatbinError(fmt::format("{}: {}: magic {:#010x} is not a fat binary's ({:#010x})", b.what(), at, magic,
                                  kContainerMagic));
  uint16_t version = b.u16(off + 4, at + ": version");
  uint16_t header = b.u16(off + 6, at + ": header size");
  if (version != 1 || header != kContainerHeader)
    throw FatbinError(fmt::format("{}: {}: version {} with a {}-byte header, expected version 1 with 16", b.what(),
                                  at, version, header));
  return b.u64(off + 8, at + ": payload size");
}

// The container at `off` of `b`; appends its entries and returns its size.
uint64_t parse_container(const Bytes& b, uint64_t off, std::vector<Entry>& out) {
  std::string at = fmt::format("container at {:#x}", off);
  uint64_t payload = container_payload(b, off);
  b.need(off + kContainerHeader, payload, at + ": payload");
  Bytes c = b.sub(off, kContainerHeader + payload, at, b.what());
  for (uint64_t p = kContainerHeader; p < c.size();) {
    out.push_back(parse_entry(c, p, off));
    p += out.back().header_size + out.back().padded_size;  // both checked inside c: no overflow
  }
  return kContainerHeader + payload;
}

}  // namespace

FatBinary parse_containers(const void* data, size_t size, const std::string& what) {
  Bytes b(data, size, what);
  FatBinary fb;
  unsigned containers = 0;
  for (uint64_t off = 0;; ++containers) {
    while (off < size && b.at(off) == 0) ++off;  // alignment between containers
    if (off >= size) break;
    off += parse_container(b, off, fb.entries);
  }
  if (containers == 0) throw FatbinError(fmt::format("{}: no container in {} bytes", what, size));
  return fb;
}

namespace {

// A container in this process's memory: its header says how long it is.
void read_container_in_memory(const void* p, const std::string& what, std::vector<Entry>& out) {
  if (!p) throw FatbinError(what + ": null container pointer");
  uint64_t payload = container_payload(Bytes(p, kContainerHeader, what), 0);
  FatBinary one = parse_containers(p, size_t(kContainerHeader + payload), what);
  out.insert(out.end(), one.entries.begin(), one.entries.end());
}

}  // namespace

FatBinary read_wrapper(const Wrapper& w) {
  if (w.magic != kWrapperMagic)
    throw FatbinError(fmt::format("fat binary wrapper: magic {:#010x} is not {:#010x}", w.magic, kWrapperMagic));
  if (w.version != 1 && w.version != 2)
    throw FatbinError(fmt::format("fat binary wrapper: version {} (1 or 2 expected)", w.version));
  FatBinary fb;
  read_container_in_memory(w.data, "fat binary wrapper data", fb.entries);
  if (w.version == 2 && w.filename_or_fatbins) {
    auto list = static_cast<const void* const*>(w.filename_or_fatbins);
    for (size_t i = 0; list[i]; ++i) {
      if (i == kMaxPrelinked) throw FatbinError("fat binary wrapper: prelinked list without its NULL end");
      read_container_in_memory(list[i], fmt::format("fat binary wrapper prelinked module {}", i), fb.entries);
    }
  }
  return fb;
}

FatBinary read_wrapper(const void* wrapper) {
  if (!wrapper) throw FatbinError("fat binary wrapper: null pointer");
  // {int magic; int version; const unsigned long long* data; void* filename_or_fatbins} (fatbinary_section.h)
  struct Raw {
    int32_t magic, version;
    const void* data;
    const void* filename_or_fatbins;
  } r;
  std::memcpy(&r, wrapper, sizeof r);
  return read_wrapper(Wrapper{uint32_t(r.magic), uint32_t(r.version), r.data, r.filename_or_fatbins});
}

}  // namespace gpuvp::fatbin
