#include "models/cache/cache_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gpuvp {

namespace {
unsigned popcount(uint32_t v) { return static_cast<unsigned>(__builtin_popcount(v)); }
// Bits first .. last-1.
uint32_t bit_range(unsigned first, unsigned last) {
  return last <= first ? 0 : static_cast<uint32_t>((uint64_t{1} << last) - (uint64_t{1} << first));
}
CacheGeometry validated(const CacheGeometry& g) {
  g.validate();
  return g;
}
}  // namespace

std::vector<std::pair<const char*, uint64_t>> CacheStats::items() const {
  return {
      {"reads", reads},
      {"writes", writes},
      {"hits", hits},
      {"sector_misses", sector_misses},
      {"line_misses", line_misses},
      {"merges", merges},
      {"stalls", stalls},
      {"sector_fills", sector_fills},
      {"evictions", evictions},
      {"writebacks", writebacks},
      {"write_throughs", write_throughs},
      {"read_bytes", read_bytes},
      {"write_bytes", write_bytes},
  };
}

CacheCore::CacheCore(const CacheGeometry& g)
    : g_(validated(g)),
      sectors_(g.sectors()),
      offset_bits_(g.offset_bits()),
      index_bits_(g.index_bits()),
      set_mask_(g.sets() - 1),
      tag_(g.lines(), 0),
      valid_(g.lines(), 0),
      dirty_(g.lines(), 0),
      age_(g.lines(), 0),
      data_(g.size_bytes / 4, 0),
      mshrs_(g.mshrs) {
  // Ages start as a permutation (way w has age w), as true LRU needs; invalid ways are used first.
  for (size_t l = 0; l < age_.size(); ++l) age_.set(l, static_cast<uint8_t>(l % g_.ways));
}

CacheCore::Where CacheCore::locate(uint64_t addr, unsigned size) const {
  const uint64_t off = addr & (g_.line_bytes - 1);
  if (size == 0 || off + size > g_.line_bytes)
    throw std::invalid_argument(
        fmt::format("{}: access [{:#x}, +{}) is empty or crosses a {}-byte line", g_.name, addr, size, g_.line_bytes));
  if (g_.address_bits < 64 && (addr >> g_.address_bits) != 0)
    throw std::invalid_argument(fmt::format("{}: address {:#x} needs more than {} bits", g_.name, addr, g_.address_bits));
  const uint64_t number = addr >> offset_bits_;
  Where w;
  w.tag = number >> index_bits_;
  const uint64_t hash = g_.hash == SetHash::Xor ? w.tag : 0;
  w.set = static_cast<unsigned>((number ^ hash) & set_mask_);
  w.line_addr = addr - off;
  w.touched = bit_range(static_cast<unsigned>(off / g_.sector_bytes), static_cast<unsigned>((off + size - 1) / g_.sector_bytes + 1));
  return w;
}

// The inverse of locate(): what a line's tag (as it is now, faults included) says its address is.
uint64_t CacheCore::line_addr_of(size_t l) const {
  if (rec_on()) rec_.reg->note(*rec_.tag, l, Access::Read, rec_.now());
  const uint64_t tag = tag_[l];
  const uint64_t hash = g_.hash == SetHash::Xor ? tag : 0;
  const uint64_t low = (l / g_.ways ^ hash) & set_mask_;
  return ((tag << index_bits_) | low) << offset_bits_;
}

// A way holds a line when any sector is valid; with two matching ways (a fault made the tags
// equal) the lower way answers.
int CacheCore::find_way(const Where& w) const {
  if (rec_on()) note_lookup(w.set, rec_.now());
  return match(w);
}

int CacheCore::match(const Where& w) const {
  for (unsigned way = 0; way < g_.ways; ++way) {
    const size_t l = line(w.set, way);
    if (valid_[l] && tag_[l] == w.tag) return static_cast<int>(way);
  }
  return -1;
}

// An invalid way first, else the oldest; equal ages (only after a fault) go to the lower way.
unsigned CacheCore::victim_way(unsigned set) const {
  if (rec_on()) {
    const uint64_t ps = rec_.now();
    note_set(rec_.valid, set, Access::Read, ps);
    note_set(rec_.lru, set, Access::Read, ps);
  }
  unsigned best = 0;
  for (unsigned way = 0; way < g_.ways; ++way) {
    const size_t l = line(set, way);
    if (!valid_[l]) return way;
    if (age_[l] > age_[line(set, best)]) best = way;
  }
  return best;
}

// True LRU: the used way becomes age 0, every way younger than it ages by one. Ages stay below
// 2^lru_bits even when a fault has made two of them equal.
void CacheCore::touch(unsigned set, unsigned way) {
  if (rec_on()) note_set(rec_.lru, set, Access::Read, rec_.now());
  const uint8_t used = age_[line(set, way)];
  for (unsigned w = 0; w < g_.ways; ++w) {
    const size_t l = line(set, w);
    if (age_[l] < used) age_.set(l, static_cast<uint8_t>(age_[l] + 1));
  }
  age_.set(line(set, way), 0);
}

CacheVictim CacheCore::victim_of(size_t l) const {
  CacheVictim v;
  v.line_addr = line_addr_of(l);
  v.dirty = dirty_[l] & valid_[l];  // an invalid sector holds nothing of the line
  if (v.dirty) {
    v.data.resize(g_.line_bytes);
    load(l * g_.line_bytes, v.data.data(), g_.line_bytes);
  }
  return v;
}

// Gives way `way` of w's set to w's line, evicting what it held.
std::optional<CacheVictim> CacheCore::replace(const Where& w, unsigned way) {
  const size_t l = line(w.set, way);
  std::optional<CacheVictim> v;
  if (valid_[l]) {
    v = victim_of(l);
    ++stats_.evictions;
    stats_.writebacks += popcount(v->dirty);
  }
  if (rec_on()) note_replaced(l);
  tag_.set(l, w.tag);
  valid_.set(l, 0);
  dirty_.set(l, 0);
  return v;
}

// Sectors the request writes whole: they need no fetch.
uint32_t CacheCore::covered(const CacheRequest& r) const {
  const uint64_t off = r.addr & (g_.line_bytes - 1);
  return bit_range(static_cast<unsigned>((off + g_.sector_bytes - 1) / g_.sector_bytes),
                   static_cast<unsigned>((off + r.size) / g_.sector_bytes));
}

void CacheCore::perform(size_t l, const CacheRequest& r, uint32_t touched) {
  const uint64_t off = r.addr & (g_.line_bytes - 1);
  if (!r.write) {
    if (r.dst && rec_on()) note_data(l * g_.line_bytes + off, r.size, false, rec_.now());
    if (r.dst) load(l * g_.line_bytes + off, r.dst, r.size);
    return;
  }
  write_sectors(l, r, touched);
  if (g_.write == WritePolicy::WriteBack) {
    if (rec_on()) rec_.reg->note(*rec_.valid, l, Access::Read, rec_.now()), rec_.reg->note(*rec_.dirty, l, Access::Read, rec_.now());
    valid_.set(l, valid_[l] | touched);
    dirty_.set(l, dirty_[l] | touched);
  }
}

// Writes the request's bytes that fall in `sectors` (write-through writes skip invalid sectors).
void CacheCore::write_sectors(size_t l, const CacheRequest& r, uint32_t sectors) {
  const uint64_t off = r.addr & (g_.line_bytes - 1);
  const auto* src = static_cast<const uint8_t*>(r.src);
  for (unsigned s = 0; s < sectors_; ++s) {
    if (!(sectors >> s & 1)) continue;
    const uint64_t lo = std::max<uint64_t>(off, uint64_t(s) * g_.sector_bytes);
    const uint64_t hi = std::min<uint64_t>(off + r.size, uint64_t(s + 1) * g_.sector_bytes);
    if (rec_on()) note_data(l * g_.line_bytes + lo, hi - lo, true, rec_.now());
    store(l * g_.line_bytes + lo, src + (lo - off), hi - lo);
  }
}

CacheAccess CacheCore::access(const CacheRequest& r) {
  const Where w = locate(r.addr, r.size);
  const int way = find_way(w);
  const uint32_t valid = way < 0 ? 0 : valid_[line(w.set, way)];
  if ((valid & w.touched) == w.touched) {
    perform(line(w.set, way), r, w.touched);
    touch(w.set, way);
    CacheAccess a;
    a.line_addr = w.line_addr;
    a.forward = r.write && g_.write == WritePolicy::WriteThrough;
    return counted(std::move(a), r);
  }
  if (r.write && g_.write == WritePolicy::WriteThrough) return write_around(r, w, way);
  const uint32_t needed = w.touched & ~valid & ~(r.write ? covered(r) : 0);
  if (needed == 0) return allocate_written(r, w, way);
  return miss(r, w, way, needed);
}

// Write-through, no-write-allocate miss: the valid sectors of a present line take the bytes.
CacheAccess CacheCore::write_around(const CacheRequest& r, const Where& w, int way) {
  CacheAccess a;
  a.line_addr = w.line_addr;
  a.outcome = way < 0 ? CacheOutcome::LineMiss : CacheOutcome::SectorMiss;
  a.forward = true;
  if (way >= 0) {
    write_sectors(line(w.set, way), r, w.touched & valid_[line(w.set, way)]);
    touch(w.set, static_cast<unsigned>(way));
  }
  return counted(std::move(a), r);
}

// Write-back miss whose missing sectors are all written whole: allocate, write, no fetch.
CacheAccess CacheCore::allocate_written(const CacheRequest& r, const Where& w, int way) {
  CacheAccess a;
  a.line_addr = w.line_addr;
  a.outcome = way < 0 ? CacheOutcome::LineMiss : CacheOutcome::SectorMiss;
  if (way < 0) {
    way = static_cast<int>(victim_way(w.set));
    a.victim = replace(w, static_cast<unsigned>(way));
  }
  perform(line(w.set, way), r, w.touched);
  touch(w.set, static_cast<unsigned>(way));
  return counted(std::move(a), r);
}

CacheAccess CacheCore::miss(const CacheRequest& r, const Where& w, int way, uint32_t needed) {
  CacheAccess a;
  a.line_addr = w.line_addr;
  a.pending = true;
  if (Mshr* m = find_mshr(w.line_addr)) {
    a.outcome = CacheOutcome::Merged;
    a.fetch = needed & ~m->pending;  // only sectors no earlier miss asked for
    m->pending |= a.fetch;
  } else {
    m = free_mshr();
    if (!m) {
      a.outcome = CacheOutcome::Stall;
      a.pending = false;
      return counted(std::move(a), r);
    }
    *m = {w.line_addr, needed};
    a.outcome = way < 0 ? CacheOutcome::LineMiss : CacheOutcome::SectorMiss;
    a.fetch = needed;
  }
  if (way >= 0) touch(w.set, static_cast<unsigned>(way));
  return counted(std::move(a), r);
}

CacheAccess CacheCore::counted(CacheAccess a, const CacheRequest& r) {
  if (a.outcome == CacheOutcome::Stall) {
    ++stats_.stalls;
    return a;
  }
  ++(r.write ? stats_.writes : stats_.reads);
  (r.write ? stats_.write_bytes : stats_.read_bytes) += r.size;
  switch (a.outcome) {
    case CacheOutcome::Hit: ++stats_.hits; break;
    case CacheOutcome::SectorMiss: ++stats_.sector_misses; break;
    case CacheOutcome::LineMiss: ++stats_.line_misses; break;
    default: ++stats_.merges; break;
  }
  if (a.forward) ++stats_.write_throughs;
  return a;
}

CacheCore::Mshr* CacheCore::find_mshr(uint64_t line_addr) {
  for (Mshr& m : mshrs_)
    if (m.pending != 0 && m.line_addr == line_addr) return &m;
  return nullptr;
}

const CacheCore::Mshr* CacheCore::find_mshr(uint64_t line_addr) const {
  return const_cast<CacheCore*>(this)->find_mshr(line_addr);
}

CacheCore::Mshr* CacheCore::free_mshr() {
  for (Mshr& m : mshrs_)
    if (m.pending == 0) return &m;
  return nullptr;
}

CacheFill CacheCore::fill(uint64_t line_addr, uint32_t sectors, const void* line_data) {
  Mshr* m = (line_addr & (g_.line_bytes - 1)) ? nullptr : find_mshr(line_addr);
  if (!m || sectors == 0 || (sectors & ~m->pending))
    throw std::logic_error(
        fmt::format("{}: fill of sectors {:#x} of line {:#x}, which no MSHR waits for", g_.name, sectors, line_addr));
  const Where w = locate(line_addr, g_.line_bytes);
  CacheFill f;
  int way = find_way(w);
  if (way < 0) {
    way = static_cast<int>(victim_way(w.set));
    f.victim = replace(w, static_cast<unsigned>(way));
  }
  const size_t l = line(w.set, static_cast<unsigned>(way));
  const uint32_t fresh = sectors & ~valid_[l];
  const auto* src = static_cast<const uint8_t*>(line_data);
  if (rec_on()) note_filled(l, fresh);
  for (unsigned s = 0; s < sectors_; ++s)
    if (fresh >> s & 1) store(l * g_.line_bytes + s * g_.sector_bytes, src + s * g_.sector_bytes, g_.sector_bytes);
  valid_.set(l, valid_[l] | fresh);
  touch(w.set, static_cast<unsigned>(way));
  stats_.sector_fills += popcount(sectors);
  m->pending &= ~sectors;
  f.mshr_freed = m->pending == 0;
  return f;
}

bool CacheCore::replay(const CacheRequest& r) {
  const Where w = locate(r.addr, r.size);
  const int way = find_way(w);
  if (way < 0) return false;
  const size_t l = line(w.set, static_cast<unsigned>(way));
  const bool allocates = r.write && g_.write == WritePolicy::WriteBack;
  if (((valid_[l] | (allocates ? covered(r) : 0)) & w.touched) != w.touched) return false;
  perform(l, r, w.touched);
  return true;
}

std::vector<CacheVictim> CacheCore::flush(bool invalidate) { return flush_range(0, ~uint64_t{0}, invalidate); }

std::vector<CacheVictim> CacheCore::flush_range(uint64_t lo, uint64_t hi, bool invalidate) {
  std::vector<CacheVictim> out;
  const bool rec = rec_on();
  if (rec) note_words(rec_.valid, 0, valid_.size(), Access::Read, rec_.now());
  for (size_t l = 0; l < valid_.size(); ++l) {
    if (!valid_[l]) continue;
    const uint64_t a = line_addr_of(l);
    if (rec) note_flush(l, !(a + g_.line_bytes <= lo || a >= hi), invalidate);
    if (a + g_.line_bytes <= lo || a >= hi) continue;
    CacheVictim v = victim_of(l);
    if (v.dirty) {
      stats_.writebacks += popcount(v.dirty);
      out.push_back(std::move(v));
    }
    dirty_.set(l, 0);
    if (invalidate) valid_.set(l, 0);
  }
  return out;
}

void CacheCore::cancel(uint64_t line_addr) {
  if (Mshr* m = find_mshr(line_addr)) m->pending = 0;
}

void CacheCore::overlay(uint64_t addr, unsigned size, uint8_t* dst) const {
  const Where w = locate(addr, size);
  const int way = match(w);
  const size_t l = way < 0 ? 0 : line(w.set, static_cast<unsigned>(way));
  const uint32_t sectors = way < 0 ? 0 : valid_[l] & w.touched;
  if (rec_on()) note_overlay(w, way, addr, size, sectors);
  const uint64_t off = addr & (g_.line_bytes - 1);
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(data_.data()) + l * g_.line_bytes;
  for (unsigned s = 0; s < sectors_; ++s) {
    if (!(sectors >> s & 1)) continue;
    const uint64_t a = std::max<uint64_t>(off, uint64_t(s) * g_.sector_bytes);
    const uint64_t b = std::min<uint64_t>(off + size, uint64_t(s + 1) * g_.sector_bytes);
    std::memcpy(dst + (a - off), bytes + a, b - a);
  }
}

bool CacheCore::present(uint64_t addr, unsigned size) const {
  const Where w = locate(addr, size);
  const int way = find_way(w);
  return way >= 0 && (valid_[line(w.set, static_cast<unsigned>(way))] & w.touched) == w.touched;
}

bool CacheCore::dirty(uint64_t addr, unsigned size) const {
  // Nothing is ever dirty in a write-through cache, and no line answers an address beyond the tags.
  if (g_.write != WritePolicy::WriteBack || (g_.address_bits < 64 && ((addr + size) >> g_.address_bits) != 0))
    return false;
  const uint64_t first = addr & ~uint64_t(g_.line_bytes - 1);
  for (uint64_t a = first; a < addr + size; a += g_.line_bytes) {
    const Where w = locate(a, g_.line_bytes);
    const int way = find_way(w);
    if (way >= 0 && rec_on()) rec_.reg->note(*rec_.dirty, line(w.set, unsigned(way)), Access::Read, rec_.now());
    if (way >= 0 && dirty_[line(w.set, static_cast<unsigned>(way))]) return true;
  }
  return false;
}

uint32_t CacheCore::outstanding(uint64_t line_addr) const {
  const Mshr* m = find_mshr(line_addr);
  return m ? m->pending : 0;
}

unsigned CacheCore::mshrs_busy() const {
  return static_cast<unsigned>(std::count_if(mshrs_.begin(), mshrs_.end(), [](const Mshr& m) { return m.pending != 0; }));
}

// The data array as bytes: stores go word by word so that its digest follows them.
void CacheCore::store(size_t byte, const uint8_t* src, size_t n) { data_.write_bytes(byte, src, n); }

void CacheCore::load(size_t byte, void* dst, size_t n) const {
  std::memcpy(dst, reinterpret_cast<const uint8_t*>(data_.data()) + byte, n);
}

}  // namespace gpuvp
