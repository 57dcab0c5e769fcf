// The cache's arrays as registered state (CacheCore::register_state).
#include "models/cache/cache_core.h"

namespace gpuvp {

namespace {
// One array as a memory target; its digest is kept by the table as it changes.
template <typename T>
void add_table(Registry& reg, const std::string& name, unsigned width, HashedTable<T>& table,
               const std::function<void()>& on_write) {
  Target t;
  t.name = name;
  t.kind = TargetKind::Memory;
  t.width = width;
  t.count = table.size();
  t.get = [&table](uint64_t i) { return static_cast<uint64_t>(table[i]); };
  t.set = [&table](uint64_t i, uint64_t v) { table.set(i, static_cast<T>(v)); };
  t.on_write = on_write;
  t.digest = [&table] { return table.digest(); };
  reg.add(std::move(t));
}
}  // namespace

void CacheCore::register_state(Registry& reg, const std::string& prefix, std::function<void()> on_write,
                               std::function<uint64_t()> now_ps) {
  add_table(reg, prefix + ".tag", g_.tag_bits(), tag_, on_write);
  add_table(reg, prefix + ".valid", sectors_, valid_, on_write);
  // A write-through cache has no dirty bits (nothing of it is ever newer than the next level).
  if (g_.write == WritePolicy::WriteBack) add_table(reg, prefix + ".dirty", sectors_, dirty_, on_write);
  if (g_.ways > 1) add_table(reg, prefix + ".lru", g_.lru_bits(), age_, on_write);
  add_table(reg, prefix + ".data", 32, data_, on_write);
  if (!now_ps) return;
  // Observed: every access of the arrays is reported (cache_record.cc).
  auto observed = [&](const char* part) -> const Target* {
    if (!reg.contains(prefix + part)) return nullptr;
    Target& t = reg.at_mut(prefix + part);
    t.reads_observed = true;
    return &t;
  };
  rec_.tag = observed(".tag");
  rec_.valid = observed(".valid");
  rec_.dirty = observed(".dirty");
  rec_.lru = observed(".lru");
  rec_.data = observed(".data");
  rec_.now = std::move(now_ps);
  rec_.reg = &reg;
}

}  // namespace gpuvp
