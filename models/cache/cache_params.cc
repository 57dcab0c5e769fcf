// The keys every cache declares under its own prefix, and how a cache reads them. Nothing here is
// declared at start-up: a cache model declares its group (or nests the keys in its owner's group)
// when it is wired into the platform, so the configuration only lists caches that exist.
#include "models/cache/cache_geometry.h"

namespace gpuvp {

namespace {
const char* policy_name(WritePolicy w) { return w == WritePolicy::WriteBack ? "write_back" : "write_through"; }
const char* hash_name(SetHash h) { return h == SetHash::Xor ? "xor" : "none"; }
}  // namespace

std::vector<ParamDef> cache_param_defs(const std::string& prefix, const CacheGeometry& d, const std::string& what) {
  using P = ParamDef;
  const std::string k = prefix + ".";
  return {
      P::Int(k + "size_kib", static_cast<int64_t>(d.size_bytes / 1024), 0, 65536,
             what + ": capacity (KiB), 0 for none; size / (line_bytes x ways) sets, a power of two"),
      P::Int(k + "line_bytes", d.line_bytes, 4, 4096, what + ": line (bytes)", true),
      P::Int(k + "sector_bytes", d.sector_bytes, 4, 4096,
             what + ": sector (bytes), the unit of valid and dirty bits and of fills; equal to the line: unsectored",
             true),
      P::Int(k + "ways", d.ways, 1, 256, what + ": associativity (ways per set, LRU)"),
      P::Int(k + "mshrs", d.mshrs, 1, 1024,
             what + ": MSHRs (outstanding line misses; a miss to an outstanding line merges, none free: stall)"),
      P::String(k + "write_policy", policy_name(d.write), {"write_back", "write_through"},
                what + ": write_back (write-allocate, dirty sectors written back on eviction) or write_through "
                       "(no-write-allocate, every write goes to the next level)"),
      P::String(k + "set_hash", hash_name(d.hash), {"none", "xor"},
                what + ": set index: none (line number mod sets) or xor (XORed with the tag's low bits)"),
  };
}

ParamGroup cache_param_group(const std::string& cls, const std::string& instance, const CacheGeometry& defaults,
                             const std::string& what) {
  return {cls, instance, "", cache_param_defs(cls, defaults, what)};
}

bool CacheGeometry::configured(const Params& p) { return p.i("size_kib") != 0; }

CacheGeometry CacheGeometry::from(const Params& p, uint64_t size_bytes) {
  CacheGeometry g;
  g.name = p.instance();
  g.size_bytes = size_bytes ? size_bytes : static_cast<uint64_t>(p.i("size_kib")) * 1024;
  g.line_bytes = static_cast<unsigned>(p.i("line_bytes"));
  g.sector_bytes = static_cast<unsigned>(p.i("sector_bytes"));
  g.ways = static_cast<unsigned>(p.i("ways"));
  g.mshrs = static_cast<unsigned>(p.i("mshrs"));
  g.write = p.s("write_policy") == "write_through" ? WritePolicy::WriteThrough : WritePolicy::WriteBack;
  g.hash = p.s("set_hash") == "xor" ? SetHash::Xor : SetHash::None;
  g.validate();
  return g;
}

}  // namespace gpuvp
