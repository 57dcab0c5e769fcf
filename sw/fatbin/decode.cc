// Entry payloads: decompression (LZ4 block, zstd frame) and the PTX a fat binary holds.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <climits>

#include "sw/fatbin/fatbin.h"

namespace gpuvp::fatbin {

namespace {

// No PTX is near this; a larger claim is a corrupt header, refused before allocating for it.
constexpr uint64_t kMaxUncompressed = uint64_t(1) << 30;

std::string where(const Entry& e) {
  std::string kind = e.is_ptx() ? "PTX" : "kind " + std::to_string(e.kind);
  return fmt::format("fat binary entry at {:#x} ({} {})", e.offset, kind, e.arch_name());
}

std::string strip_nul(std::string s) {
  s.erase(s.find_last_not_of('\0') + 1);
  return s;
}

void check_size(const Entry& e, uint64_t limit) {
  if (e.uncompressed_size == 0 || e.uncompressed_size > limit)
    throw FatbinError(fmt::format("{}: uncompressed size {} is not in 1..{}", where(e), e.uncompressed_size, limit));
}

std::string lz4(const Entry& e) {
  // An LZ4 block expands each input byte to at most 255 output bytes: a bound on a believable size.
  check_size(e, std::min<uint64_t>(kMaxUncompressed, uint64_t(e.payload.size()) * 255));
  std::string out(size_t(e.uncompressed_size), '\0');
  int n = LZ4_decompress_safe(e.payload.data(), out.data(), int(e.payload.size()), int(out.size()));
  if (n < 0 || uint64_t(n) != e.uncompressed_size)
    throw FatbinError(fmt::format("{}: LZ4 decompression failed ({} of {} bytes)", where(e), n, e.uncompressed_size));
  return out;
}

std::string zstd(const Entry& e) {
  check_size(e, kMaxUncompressed);
  unsigned long long framed = ZSTD_getFrameContentSize(e.payload.data(), e.payload.size());
  if (framed != e.uncompressed_size)  // also catches an unknown or unreadable frame size
    throw FatbinError(fmt::format("{}: zstd frame holds {} bytes, the header says {}", where(e),
                                  framed >= ZSTD_CONTENTSIZE_ERROR ? std::string("an unknown number of")
                                                                   : std::to_string(framed),
                                  e.uncompressed_size));
  std::string out(size_t(e.uncompressed_size), '\0');
  size_t n = ZSTD_decompress(out.data(), out.size(), e.payload.data(), e.payload.size());
  if (ZSTD_isError(n))
    throw FatbinError(fmt::format("{}: zstd decompression failed: {}", where(e), ZSTD_getErrorName(n)));
  if (n != e.uncompressed_size)
    throw FatbinError(fmt::format("{}: zstd gave {} bytes, the header says {}", where(e), n, e.uncompressed_size));
  return out;
}

}  // namespace

Compression Entry::compression() const {
  uint64_t c = flags & kFlagCompressionMask;
  if (c == 0) return Compression::None;
  if (c == kFlagLz4) return Compression::Lz4;
  if (c == kFlagZstd) return Compression::Zstd;
  throw FatbinError(fmt::format("{}: unknown compression flag {:#x} (flags {:#x}; known: {:#x} LZ4, {:#x} zstd)",
                                where(*this), c, flags, kFlagLz4, kFlagZstd));
}

std::string Entry::arch_name() const {
  const char* suffix = (flags & kFlagArchSpecific) ? "a" : (flags & kFlagArchFamily) ? "f" : "";
  return fmt::format("sm_{}{}", arch, suffix);
}

std::string decode(const Entry& e) {
  Compression c = e.compression();
  if (c != Compression::None && e.compressed_size == 0)
    throw FatbinError(fmt::format("{}: compressed (flags {:#x}) with a compressed size of 0", where(e), e.flags));
  switch (c) {
    case Compression::Lz4: return strip_nul(lz4(e));
    case Compression::Zstd: return strip_nul(zstd(e));
    case Compression::None: break;
  }
  return strip_nul(e.payload);
}

std::vector<Ptx> FatBinary::ptx() const {
  std::vector<Ptx> out;
  std::vector<std::string> others;
  for (const Entry& e : entries) {
    if (e.is_ptx())
      out.push_back(Ptx{e.arch, e.arch_name(), e.version_major, e.version_minor, decode(e)});
    else if (std::find(others.begin(), others.end(), e.arch_name()) == others.end())
      others.push_back(e.arch_name());
  }
  if (!out.empty()) return out;
  if (others.empty()) throw FatbinError("no PTX in this fat binary: it holds no entries");
  std::string xx = std::to_string(std::min_element(entries.begin(), entries.end(), [](auto& a, auto& b) {
                                    return a.arch < b.arch;
                                  })->arch);
  throw FatbinError(fmt::format("no PTX in this fat binary: it holds only SASS for {}; build with PTX kept (e.g. "
                                "-arch=compute_{} or -gencode arch=compute_{},code=compute_{}, CMake "
                                "CUDA_ARCHITECTURES {}-virtual or {})",
                                fmt::join(others, ", "), xx, xx, xx, xx, xx));
}

const Ptx& pick_ptx(const std::vector<Ptx>& ptx, unsigned max_arch) {
  const Ptx* best = nullptr;
  for (const Ptx& p : ptx)
    if (p.arch <= max_arch && (!best || p.arch > best->arch)) best = &p;
  if (best) return *best;
  std::vector<std::string> names;
  for (const Ptx& p : ptx) names.push_back(p.arch_name);
  throw FatbinError(fmt::format("no PTX for an architecture up to sm_{}: the fat binary has PTX for {}", max_arch,
                                names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
}

}  // namespace gpuvp::fatbin
