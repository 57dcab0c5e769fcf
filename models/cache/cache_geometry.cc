#include "models/cache/cache_geometry.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp {

namespace {
bool pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
unsigned log2_ceil(uint64_t v) {
  unsigned b = 0;
  while ((uint64_t{1} << b) < v) ++b;
  return b;
}
}  // namespace

unsigned CacheGeometry::offset_bits() const { return log2_ceil(line_bytes); }
unsigned CacheGeometry::index_bits() const { return log2_ceil(sets()); }
unsigned CacheGeometry::lru_bits() const { return log2_ceil(ways); }

void CacheGeometry::validate() const {
  auto fail = [this](const char* key, uint64_t v, const std::string& why) {
    throw std::invalid_argument(fmt::format("{}.{} = {}: {}", name, key, v, why));
  };
  // Sectors hold whole 32-bit words (the data array's registry words) and fit a 32-bit mask.
  if (!pow2(line_bytes) || line_bytes < 4) fail("line_bytes", line_bytes, "must be a power of two of at least 4");
  if (!pow2(sector_bytes) || sector_bytes < 4) fail("sector_bytes", sector_bytes, "must be a power of two of at least 4");
  if (sector_bytes > line_bytes) fail("sector_bytes", sector_bytes, fmt::format("exceeds the line ({} bytes)", line_bytes));
  if (line_bytes / sector_bytes > 32)
    fail("sector_bytes", sector_bytes, fmt::format("gives {} sectors per line; at most 32", line_bytes / sector_bytes));
  if (ways == 0 || ways > 256) fail("ways", ways, "must be 1 to 256");
  if (mshrs == 0) fail("mshrs", mshrs, "must be at least 1");
  // Named by its key (size_kib) although held in bytes: the key is what a user changes.
  const uint64_t set_bytes = uint64_t(line_bytes) * ways;
  auto fail_size = [&](const std::string& why) {
    throw std::invalid_argument(fmt::format("{}.size_kib = {:g}: {}", name, size_bytes / 1024.0, why));
  };
  if (size_bytes == 0 || size_bytes % set_bytes != 0)
    fail_size(fmt::format("must be a non-zero multiple of line_bytes x ways ({} x {} = {} bytes)", line_bytes, ways,
                          set_bytes));
  if (!pow2(size_bytes / set_bytes))
    fail_size(fmt::format("gives {} sets of {} ways of {} bytes; the number of sets must be a power of two",
                          size_bytes / set_bytes, ways, line_bytes));
  if (address_bits > 64 || address_bits <= offset_bits() + index_bits())
    fail("address_bits", address_bits,
         fmt::format("must leave a tag above {} offset and index bits, at most 64", offset_bits() + index_bits()));
}

}  // namespace gpuvp
