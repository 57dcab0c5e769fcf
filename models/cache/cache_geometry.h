#pragma once
// The shape and policies of one cache (docs/caches.md): capacity, lines of sectors, ways, MSHRs,
// write policy and set indexing. Every cache of the platform (L1 data / texture, constant,
// instruction, L2) is a CacheCore over one of these; each declares the same keys under its own
// prefix with its own defaults (cache_param_defs).
//
// Address split (line = line_bytes, sets = size / (line_bytes x ways)):
//   offset = addr mod line, line number = addr / line, set = line number mod sets,
//   tag = line number / sets (the address bits above the set index, tag_bits() wide).
// With SetHash::Xor the set is (line number mod sets) XOR (tag mod sets): strided accesses that would
// all fall into one set spread over the sets; the mapping stays one to one, so a line's address is
// recovered from its tag and set.
#include <cstdint>
#include <string>
#include <vector>

#include "models/common/params.h"

namespace gpuvp {

enum class WritePolicy {
  WriteBack,     // write-allocate: a write marks sectors dirty; the victim's dirty sectors are written back
  WriteThrough,  // no-write-allocate: a write hit updates the line, every write goes to the next level
};
enum class SetHash { None, Xor };

struct CacheGeometry {
  std::string name = "cache";  // instance path for messages and statistics (gpu.l2, gpu.sm0.l1d)
  uint64_t size_bytes = 0;
  unsigned line_bytes = 128;
  unsigned sector_bytes = 32;  // == line_bytes: unsectored
  unsigned ways = 4;           // any count >= 1; the number of sets must be a power of two
  unsigned mshrs = 8;          // outstanding line misses
  WritePolicy write = WritePolicy::WriteBack;
  SetHash hash = SetHash::None;
  // Physical address bits the tags cover: gpuvp's address map needs 35 (sw/isa/address_map.h); 40 is
  // a Tegra-class physical address width. Fixes the tag width, so the bits a fault may hit.
  unsigned address_bits = 40;

  // Throws std::invalid_argument naming the offending key (`<name>.ways = 0: ...`).
  void validate() const;

  uint64_t lines() const { return size_bytes / line_bytes; }
  unsigned sets() const { return static_cast<unsigned>(size_bytes / (uint64_t(line_bytes) * ways)); }
  unsigned sectors() const { return line_bytes / sector_bytes; }
  unsigned offset_bits() const;
  unsigned index_bits() const;
  unsigned tag_bits() const { return address_bits - offset_bits() - index_bits(); }
  unsigned lru_bits() const;  // ceil(log2(ways)): a way's age, 0 (most recent) .. ways-1

  // Reads <class>.size_kib, .line_bytes, .sector_bytes, .ways, .mshrs, .write_policy, .set_hash
  // (cache_params.cc) and validates them; `name` becomes the Params' instance path. A non-zero
  // `size_bytes` replaces size_kib (an L1 sized by its shared-memory split).
  static CacheGeometry from(const Params& p, uint64_t size_bytes = 0);
  // size_kib = 0 says the platform has no such cache (flexgrip): build no model, call no from().
  static bool configured(const Params& p);
};

// The keys of one cache under `prefix` ("l2" -> l2.size_kib, ...; "sm.l1d" nests them in the SM's
// group), each defaulting to `defaults`; `what` ("L2", "L1 data") starts each key's description.
std::vector<ParamDef> cache_param_defs(const std::string& prefix, const CacheGeometry& defaults,
                                       const std::string& what);
// A group of its own for a cache with its own instance path: cache_param_group("l2", "gpu.l2", ...).
// Declaring it (declare_params) adds its keys to the configuration and docs/configuration.md.
ParamGroup cache_param_group(const std::string& cls, const std::string& instance, const CacheGeometry& defaults,
                             const std::string& what);

}  // namespace gpuvp
