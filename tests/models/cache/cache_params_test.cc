// Cache parameters: one declaration per cache under its own prefix and defaults, read back per
// instance, and every geometry error naming its key.
#include <catch2/catch.hpp>

#include <map>

#include "models/cache/cache_geometry.h"

using namespace gpuvp;

namespace {
// The configuration as a cache model sees it: every declared default, then the values set.
struct Source : ParamSource {
  std::map<std::string, nlohmann::json> values;
  Source(const std::vector<ParamDef>& defs, std::map<std::string, nlohmann::json> set) {
    for (const ParamDef& d : defs) values[d.key] = d.def;
    for (auto& [k, v] : set) values[k] = v;
  }
  const nlohmann::json* find(const std::string& key) const override {
    auto it = values.find(key);
    return it == values.end() ? nullptr : &it->second;
  }
};

CacheGeometry l2_defaults() {
  CacheGeometry g;
  g.size_bytes = 512 * 1024;
  g.ways = 16;
  g.mshrs = 32;
  return g;
}

// The geometry gpu.l2 reads with `set` applied over the L2 defaults.
CacheGeometry l2_with(std::map<std::string, nlohmann::json> set) {
  const ParamGroup grp = cache_param_group("l2", "gpu.l2", l2_defaults(), "L2");
  Source src(grp.defs, std::move(set));
  return CacheGeometry::from(Params(src, "l2", "gpu.l2"));
}
}  // namespace

TEST_CASE("cache params: one function declares a cache's keys under its prefix with its defaults") {
  const ParamGroup grp = cache_param_group("l2", "gpu.l2", l2_defaults(), "L2");
  CHECK(grp.cls == "l2");
  CHECK(grp.instance == "gpu.l2");
  std::map<std::string, nlohmann::json> defs;
  for (const ParamDef& d : grp.defs) defs[d.key] = d.def;
  const std::map<std::string, nlohmann::json> expected = {
      {"l2.size_kib", 512}, {"l2.line_bytes", 128}, {"l2.sector_bytes", 32},      {"l2.ways", 16},
      {"l2.mshrs", 32},     {"l2.write_policy", "write_back"}, {"l2.set_hash", "none"}};
  CHECK(defs == expected);
  // Nested in an owner's group: the SM's keys sm.l1d.*.
  CacheGeometry l1 = l2_defaults();
  l1.size_bytes = 24 * 1024;
  l1.write = WritePolicy::WriteThrough;
  const std::vector<ParamDef> nested = cache_param_defs("sm.l1d", l1, "L1 data");
  CHECK(nested.front().key == "sm.l1d.size_kib");
  CHECK(nested.front().def == 24);
  CHECK(nested[5].def == "write_through");
}

TEST_CASE("cache params: the geometry is read per instance: 512 KiB of 16 ways of 128 B is 256 sets") {
  CacheGeometry g = l2_with({});
  CHECK(g.name == "gpu.l2");
  CHECK(g.size_bytes == 524288);
  CHECK(g.sets() == 256);        // 512 KiB / (128 B x 16)
  CHECK(g.sectors() == 4);
  CHECK(g.tag_bits() == 25);     // 40 - 7 offset - 8 index
  CHECK(g.lru_bits() == 4);
  g = l2_with({{"gpu.l2.ways", 8}, {"l2.write_policy", "write_through"}, {"l2.set_hash", "xor"}});
  CHECK(g.ways == 8);
  CHECK(g.sets() == 512);
  CHECK(g.write == WritePolicy::WriteThrough);
  CHECK(g.hash == SetHash::Xor);
  // The tx2 L1's 24 KiB: 6 ways of 128 B make 32 sets; 6 ways need 3 bits of age.
  g = l2_with({{"l2.size_kib", 24}, {"l2.ways", 6}});
  CHECK(g.sets() == 32);
  CHECK(g.lru_bits() == 3);
  // Nested: the SM's view of its L1 names the instance gpu.sm3.l1d.
  const std::vector<ParamDef> defs = cache_param_defs("sm.l1d", l2_defaults(), "L1 data");
  Source src(defs, {{"gpu.sm3.l1d.ways", 4}});
  g = CacheGeometry::from(Params(src, "sm", "gpu.sm3").sub("l1d"));
  CHECK(g.name == "gpu.sm3.l1d");
  CHECK(g.ways == 4);
  // size_kib = 0: no such cache (flexgrip's l2.size_kib is 0).
  Source none(defs, {{"sm.l1d.size_kib", 0}});
  CHECK_FALSE(CacheGeometry::configured(Params(none, "sm", "gpu.sm0").sub("l1d")));
  CHECK(CacheGeometry::configured(Params(src, "sm", "gpu.sm3").sub("l1d")));
}

TEST_CASE("cache params: geometry errors name the key and say why") {
  CHECK_THROWS_WITH(l2_with({{"l2.sector_bytes", 48}}), "gpu.l2.sector_bytes = 48: must be a power of two of at least 4");
  CHECK_THROWS_WITH(l2_with({{"l2.line_bytes", 96}}), "gpu.l2.line_bytes = 96: must be a power of two of at least 4");
  CHECK_THROWS_WITH(l2_with({{"l2.line_bytes", 32}, {"l2.sector_bytes", 64}}),
                    "gpu.l2.sector_bytes = 64: exceeds the line (32 bytes)");
  CHECK_THROWS_WITH(l2_with({{"l2.line_bytes", 256}, {"l2.sector_bytes", 4}}),
                    "gpu.l2.sector_bytes = 4: gives 64 sectors per line; at most 32");
  CHECK_THROWS_WITH(l2_with({{"l2.ways", 0}}), "gpu.l2.ways = 0: must be 1 to 256");
  CHECK_THROWS_WITH(l2_with({{"l2.mshrs", 0}}), "gpu.l2.mshrs = 0: must be at least 1");
  // 24 KiB / (128 B x 4 ways) = 48 sets.
  CHECK_THROWS_WITH(l2_with({{"l2.size_kib", 24}, {"l2.ways", 4}}),
                    "gpu.l2.size_kib = 24: gives 48 sets of 4 ways of 128 bytes; the number of sets must be a power "
                    "of two");
  CHECK_THROWS_WITH(l2_with({{"l2.size_kib", 0}}),
                    "gpu.l2.size_kib = 0: must be a non-zero multiple of line_bytes x ways (128 x 16 = 2048 bytes)");
  // 1 KiB is not a whole number of 3-way sets of 128 B (384 B).
  CHECK_THROWS_WITH(l2_with({{"l2.size_kib", 1}, {"l2.ways", 3}}),
                    "gpu.l2.size_kib = 1: must be a non-zero multiple of line_bytes x ways (128 x 3 = 384 bytes)");
  // A geometry built directly (CacheCore validates its own): 1 KiB of 2 ways of 128 B: 7 offset + 2
  // index bits, so 9 address bits leave no tag.
  CacheGeometry g;
  g.size_bytes = 1024;
  g.ways = 2;
  g.address_bits = 9;
  CHECK_THROWS_WITH(g.validate(), "cache.address_bits = 9: must leave a tag above 9 offset and index bits, at most 64");
}
