#pragma once
// Reader of nvcc fat binaries (docs/fatbin.md): the wrapper passed to __cudaRegisterFatBinary, the
// containers it points to, and the `.nv_fatbin`/`__nv_relfatbin` sections of an ELF file built by
// nvcc. It yields every entry's header and the PTX text of the PTX entries (plain, LZ4 or zstd).
//
// The bytes are untrusted: every size is checked against the buffer before it is used, and anything
// wrong is a FatbinError naming what and where; nothing is read past the end.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp::fatbin {

class FatbinError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr uint32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kContainerMagic = 0xBA55ED50;

// Entry flag bits as nvcc 13 sets them (docs/fatbin.md has the ones seen and what sets them).
constexpr uint64_t kFlagDebug = 0x2;             // -G
constexpr uint64_t kFlagLz4 = 0x2000;            // --compress-mode=speed
constexpr uint64_t kFlagZstd = 0x8000;           // balance (the default) and size
constexpr uint64_t kFlagCompressionMask = 0xF000;  // any other bit here is an unknown compression
constexpr uint64_t kFlagArchSpecific = 0x100000;   // sm_90a
constexpr uint64_t kFlagArchFamily = 0x200000;     // sm_100f

enum class Kind : uint16_t { Ptx = 1, Elf = 2 };
enum class Compression { None, Lz4, Zstd };

struct Entry {
  uint16_t kind = 0;  // Kind; other values are kept and never decoded
  uint32_t header_size = 0;
  uint64_t padded_size = 0;      // payload bytes up to the next entry
  uint32_t compressed_size = 0;  // 0 when stored plain
  uint64_t uncompressed_size = 0;  // 0 when stored plain
  unsigned version_major = 0, version_minor = 0;  // PTX ISA version of a PTX entry (9.0)
  unsigned arch = 0;                              // 75 for sm_75
  uint64_t flags = 0;
  std::string identifier;  // source file name (recorded with -G or -lineinfo), else empty
  std::string options;     // ptxas options recorded in a PTX entry (" --generate-line-info "), else empty
  std::string payload;     // the stored bytes: compressed_size of them if compressed, else padded_size
  size_t offset = 0;       // of the entry's header in the bytes read (the section, for an ELF file)

  bool is_ptx() const { return kind == uint16_t(Kind::Ptx); }
  Compression compression() const;  // throws FatbinError on an unknown compression flag
  std::string arch_name() const;     // "sm_75", "sm_90a", "sm_100f"
};

struct Ptx {
  unsigned arch = 0;
  std::string arch_name;
  unsigned isa_major = 0, isa_minor = 0;
  std::string text;  // without the NUL padding
};

struct FatBinary {
  std::vector<Entry> entries;  // every container's entries, in order

  // Every PTX entry decoded, in order. Throws the "no PTX in this fat binary" error naming the SASS
  // architectures when there is none.
  std::vector<Ptx> ptx() const;
};

// One or more containers back to back (zero bytes between them are skipped): a raw container or a
// whole `.nv_fatbin` section. `what` names the bytes in messages.
FatBinary parse_containers(const void* data, size_t size, const std::string& what = "fat binary");

// The wrapper __cudaRegisterFatBinary receives. Version 1: `data` is the container. Version 2
// (-rdc=true): `data` is the device-linked container and `filename_or_fatbins` a NULL-terminated
// array of pointers to the modules' containers. Memory is the calling process's own: a container's
// extent comes from its header.
struct Wrapper {
  uint32_t magic = 0;
  uint32_t version = 0;
  const void* data = nullptr;
  const void* filename_or_fatbins = nullptr;
};
FatBinary read_wrapper(const Wrapper& w);
FatBinary read_wrapper(const void* wrapper);  // the pointer passed to __cudaRegisterFatBinary

// Containers of an ELF64 file's `.nv_fatbin` and `__nv_relfatbin` sections (the latter holds the
// modules of an -rdc=true build). `what` names the bytes in messages.
FatBinary read_elf(const std::string& path);
FatBinary read_elf_bytes(const void* data, size_t size, const std::string& what);

// The entry's payload decompressed, NUL padding stripped. Throws on a decompression failure or a
// size that disagrees with the header.
std::string decode(const Entry& e);

// The PTX to assemble when several virtual architectures were kept: the highest arch not above
// `max_arch` (the rule the CUDA driver applies when it JIT-compiles for a device of that capability);
// without a limit the highest, the code nvcc generated for the newest target. Throws when none fits.
const Ptx& pick_ptx(const std::vector<Ptx>& ptx, unsigned max_arch = ~0u);

}  // namespace gpuvp::fatbin
