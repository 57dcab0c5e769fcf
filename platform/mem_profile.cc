#include "platform/mem_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace gpuvp {

MemProfiler::Counts& MemProfiler::counts(size_t object) {
  if (counts_.size() <= object) counts_.resize(object + 1);
  Counts& c = counts_[object];
  if (c.acc.empty()) {
    const uint64_t nb = (objs_.objects()[object].size + kProfileBlockBytes - 1) / kProfileBlockBytes;
    c.acc.assign(nb, 0);
    c.miss.assign(nb, 0);
    c.warps.resize(nb);
  }
  return c;
}

// Calls f(counts, block) for each block of the object that [addr, addr + len) overlaps (a sector
// fetch may reach beyond the object: only its blocks count).
template <class F>
void MemProfiler::blocks_of(size_t object, uint64_t addr, unsigned len, F f) {
  const DataObject& o = objs_.objects()[object];
  Counts& c = counts(object);
  const uint64_t lo = std::max(addr, o.base) - o.base, hi = std::min(addr + len, o.base + o.size) - o.base;
  if (hi <= lo) return;
  for (uint64_t b = lo / kProfileBlockBytes; b <= (hi - 1) / kProfileBlockBytes; ++b) f(c, b);
}

void MemProfiler::access(size_t object, uint64_t addr, unsigned len, bool write, uint64_t warp) {
  blocks_of(object, addr, len, [&](Counts& c, uint64_t b) {
    ++c.acc[b];
    c.warps[b].insert(warp);
    c.written |= write;
  });
}

void MemProfiler::l1_miss(size_t object, uint64_t addr, unsigned len) {
  blocks_of(object, addr, len, [](Counts& c, uint64_t b) { ++c.miss[b]; });
}

MemoryProfile MemProfiler::result(double hot_share) const {
  if (!(hot_share > 0 && hot_share <= 1)) throw std::invalid_argument(fmt::format("hot share {} not in (0, 1]", hot_share));
  MemoryProfile p;
  p.hot_share = hot_share;
  for (size_t i = 0; i < objs_.objects().size(); ++i) {
    const DataObject& o = objs_.objects()[i];
    if (o.replica) continue;
    ObjectProfile op;
    op.name = o.name;
    op.base = o.base;
    op.size = o.size;
    op.blocks.resize((o.size + kProfileBlockBytes - 1) / kProfileBlockBytes);
    if (i < counts_.size() && !counts_[i].acc.empty()) {
      const Counts& c = counts_[i];
      op.read_only = !c.written;
      for (size_t b = 0; b < op.blocks.size(); ++b) {
        op.blocks[b] = {c.acc[b], c.miss[b], c.warps[b].size()};
        op.accesses += c.acc[b];
        op.l1_misses += c.miss[b];
      }
    }
    p.accesses += op.accesses;
    p.bytes += op.size;
    p.objects.push_back(std::move(op));
  }
  for (auto& op : p.objects) {
    op.footprint_share = p.bytes ? double(op.size) / double(p.bytes) : 0;
    op.access_share = p.accesses ? double(op.accesses) / double(p.accesses) : 0;
  }
  for (const BlockRef& b : p.hot_blocks()) p.objects[b.object].hot |= p.objects[b.object].read_only;
  return p;
}

std::vector<BlockRef> MemoryProfile::ranked() const {
  std::vector<BlockRef> r;
  for (size_t i = 0; i < objects.size(); ++i)
    for (size_t b = 0; b < objects[i].blocks.size(); ++b) r.push_back({i, b, objects[i].base + b * kProfileBlockBytes});
  std::stable_sort(r.begin(), r.end(), [this](const BlockRef& x, const BlockRef& y) {
    const uint64_t ax = at(x).accesses, ay = at(y).accesses;
    return ax != ay ? ax > ay : x.addr < y.addr;
  });
  return r;
}

std::vector<BlockRef> MemoryProfile::hot_blocks() const {
  std::vector<BlockRef> r = ranked(), hot;
  uint64_t sum = 0;
  for (const BlockRef& b : r) {
    const bool reached = double(sum) >= hot_share * double(accesses);
    if (at(b).accesses == 0 || (reached && at(b).accesses != at(hot.back()).accesses)) break;
    sum += at(b).accesses;
    hot.push_back(b);
  }
  return hot;
}

std::vector<std::string> MemoryProfile::hot_objects() const {
  std::vector<const ObjectProfile*> h;
  for (const auto& o : objects)
    if (o.hot) h.push_back(&o);
  std::stable_sort(h.begin(), h.end(), [](auto* a, auto* b) { return a->accesses > b->accesses; });
  std::vector<std::string> names;
  for (auto* o : h) names.push_back(o->name);
  return names;
}

std::string MemoryProfile::table() const {
  std::string s = fmt::format("{:<16} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>4}\n", "object", "bytes", "footprint%",
                              "accesses", "access%", "L1 misses", "read-only", "hot");
  for (const auto& o : objects)
    s += fmt::format("{:<16} {:>10} {:>10.3f} {:>10} {:>10.3f} {:>10} {:>9} {:>4}\n", o.name, o.size,
                     100 * o.footprint_share, o.accesses, 100 * o.access_share, o.l1_misses, o.read_only ? "yes" : "no",
                     o.hot ? "yes" : "no");
  s += fmt::format("{} objects, {} bytes, {} accesses; hot blocks: the {} most accessed, holding >= {:.0f} % of them\n",
                   objects.size(), bytes, accesses, hot_blocks().size(), 100 * hot_share);
  return s;
}

std::string MemoryProfile::blocks_csv() const {
  std::string s = "rank,object,block,addr,accesses,l1_misses,warps,hot\n";
  const std::vector<BlockRef> r = ranked();
  const size_t nhot = hot_blocks().size();
  for (size_t i = 0; i < r.size(); ++i) {
    const BlockProfile& b = at(r[i]);
    s += fmt::format("{},{},{},{:#x},{},{},{},{}\n", i, objects[r[i].object].name, r[i].block, r[i].addr, b.accesses,
                     b.l1_misses, b.warps, i < nhot ? 1 : 0);
  }
  return s;
}

nlohmann::json MemoryProfile::to_json(bool blocks) const {
  nlohmann::json j;
  j["accesses"] = accesses;
  j["bytes"] = bytes;
  j["hot_share"] = hot_share;
  j["hot_objects"] = hot_objects();
  j["hot_blocks"] = hot_blocks().size();
  for (const auto& o : objects) {
    nlohmann::json oj{{"name", o.name},         {"base", o.base},
                      {"bytes", o.size},        {"read_only", o.read_only},
                      {"accesses", o.accesses}, {"l1_misses", o.l1_misses},
                      {"footprint_share", o.footprint_share}, {"access_share", o.access_share},
                      {"hot", o.hot}};
    if (blocks)
      for (const BlockProfile& b : o.blocks) oj["blocks"].push_back({b.accesses, b.l1_misses, b.warps});
    j["objects"].push_back(oj);
  }
  return j;
}

MemoryProfile MemoryProfile::from_json(const nlohmann::json& j) {
  MemoryProfile p;
  p.accesses = j.at("accesses").get<uint64_t>();
  p.bytes = j.at("bytes").get<uint64_t>();
  p.hot_share = j.at("hot_share").get<double>();
  for (const auto& oj : j.value("objects", nlohmann::json::array())) {
    ObjectProfile o;
    o.name = oj.at("name").get<std::string>();
    o.base = oj.at("base").get<uint64_t>();
    o.size = oj.at("bytes").get<uint64_t>();
    o.read_only = oj.at("read_only").get<bool>();
    o.accesses = oj.at("accesses").get<uint64_t>();
    o.l1_misses = oj.at("l1_misses").get<uint64_t>();
    o.footprint_share = oj.at("footprint_share").get<double>();
    o.access_share = oj.at("access_share").get<double>();
    o.hot = oj.at("hot").get<bool>();
    for (const auto& b : oj.value("blocks", nlohmann::json::array()))
      o.blocks.push_back({b[0].get<uint64_t>(), b[1].get<uint64_t>(), b[2].get<uint64_t>()});
    p.objects.push_back(std::move(o));
  }
  return p;
}

}  // namespace gpuvp
