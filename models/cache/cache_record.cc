// Access recording of the cache's arrays (ACE analysis and fault-space pruning, docs/campaigns.md
// "Lifetimes, ACE and pruning"). Every access the core makes to its arrays is reported at the instant
// the owner's now_ps() gives: the core changes its arrays when it is called (a miss is filled in the
// call that fetched it, however far in the future its data arrive), so the call's instant is when a
// stop at T is ordered against them. A flipped bit has its effect through the next access, as in the
// SRAM:
// - a lookup reads the valid bits of every way of its set and the tag of every way with a valid
//   sector (a fault there makes a false hit or a miss);
// - a victim choice reads every way's valid bits and age; an LRU update reads every age of the set
//   (each new age follows from the old ones, so the ages rewritten are read first and need no write);
// - a replacement reads the old line (tag, valid, dirty, its dirty sectors' data) and writes the tag,
//   valid and dirty words in full;
// - a hit reads the data words it returns; a store writes the words it covers whole and reads those it
//   covers partly (byte enables: the rest of the word stays); valid and dirty updates are OR-ed in, so
//   they are reads;
// - a fill writes the words of the sectors it brings; a flush reads every valid bit, the tag of the
//   valid lines, and the dirty bits and dirty data of those in its range, and writes what it clears.
// Reads an inspection makes (present, dirty, overlay) are real too: the caller decides with them.
// Digests (state_hash) are not reported: they are not reads of the hardware.
#include "models/cache/cache_core.h"

#include <algorithm>

#include "models/cache/timed_cache.h"  // for_each_run

namespace gpuvp {

// Words [first, first + n) in as few events as the event's lanes x stride allow.
void CacheCore::note_words(const Target* t, uint64_t first, uint64_t n, Access k, uint64_t ps) const {
  if (!t || n == 0) return;
  while (n > 0) {
    if (n <= 255) {
      rec_.reg->note_lanes(*t, first, 1, uint8_t(n), k, ps);
      return;
    }
    const uint64_t lanes = std::min<uint64_t>(32, n / 255);
    rec_.reg->note_lanes(*t, first, lanes == 32 ? ~0u : (1u << lanes) - 1, 255, k, ps);
    first += lanes * 255;
    n -= lanes * 255;
  }
}

// Every way of `set` (its lines are adjacent).
void CacheCore::note_set(const Target* t, unsigned set, Access k, uint64_t ps) const {
  note_words(t, line(set, 0), g_.ways, k, ps);
}

// find_way: the valid bits of every way, the tags of the ways that hold a line.
void CacheCore::note_lookup(unsigned set, uint64_t ps) const {
  note_set(rec_.valid, set, Access::Read, ps);
  if (g_.ways > 32) {
    for (unsigned way = 0; way < g_.ways; ++way)
      if (valid_[line(set, way)]) rec_.reg->note(*rec_.tag, line(set, way), Access::Read, ps);
    return;
  }
  rec_.reg->note_lanes(*rec_.tag, line(set, 0), holding(set), 1, Access::Read, ps);
}

uint32_t CacheCore::holding(unsigned set) const {
  uint32_t h = 0;
  for (unsigned way = 0; way < g_.ways; ++way)
    if (valid_[line(set, way)]) h |= 1u << way;
  return h;
}

// overlay(): the lookup (find_way) and the data words of the valid sectors it copies, sector by
// sector. An overlay that repeats one already logged at the same instant (several warps fetching one
// instruction in one cycle) is not logged again: its entries would repeat those (they follow from
// the values of the key below), and a word read twice at an instant is read once for every lifetime.
void CacheCore::note_overlay(const Where& w, int way, uint64_t addr, unsigned size, uint32_t sectors) const {
  const uint64_t ps = rec_.now();
  if (g_.ways <= 32) {
    const OverlayRead key{ps, addr, size, way, sectors, holding(w.set)};
    for (const OverlayRead& o : overlays_)
      if (o.ps == ps && o.addr == addr && o == key) return;
    overlays_[overlay_next_++ % overlays_.size()] = key;
  }
  note_lookup(w.set, ps);
  const size_t l = way < 0 ? 0 : line(w.set, static_cast<unsigned>(way));
  const uint64_t off = addr & (g_.line_bytes - 1);
  for (unsigned s = 0; s < sectors_; ++s) {
    if (!(sectors >> s & 1)) continue;
    const uint64_t a = std::max<uint64_t>(off, uint64_t(s) * g_.sector_bytes);
    const uint64_t b = std::min<uint64_t>(off + size, uint64_t(s + 1) * g_.sector_bytes);
    note_data(l * g_.line_bytes + a, b - a, false, ps);
  }
}

// Bytes [byte, byte + n) of the data array: read, or written (whole words written, the partly
// written ones read: their other bytes stay).
void CacheCore::note_data(size_t byte, size_t n, bool write, uint64_t ps) const {
  if (n == 0) return;
  const uint64_t first = byte / 4, last = (byte + n - 1) / 4;  // words touched
  if (!write) return note_words(rec_.data, first, last - first + 1, Access::Read, ps);
  const uint64_t whole_from = (byte + 3) / 4, whole_to = (byte + n) / 4;  // words covered whole: [from, to)
  const bool first_part = first < whole_from, last_part = last >= whole_to;
  if (first_part) note_words(rec_.data, first, 1, Access::Read, ps);
  if (last_part && !(first_part && last == first)) note_words(rec_.data, last, 1, Access::Read, ps);
  if (whole_to > whole_from) note_words(rec_.data, whole_from, whole_to - whole_from, Access::Write, ps);
}

// The data words of `sectors` of line l, read (a write-back's).
void CacheCore::note_sectors(size_t l, uint32_t sectors) const {
  const uint64_t ps = rec_.now();
  for_each_run(sectors, [&](unsigned first, unsigned n) {
    note_data(l * g_.line_bytes + size_t(first) * g_.sector_bytes, size_t(n) * g_.sector_bytes, false, ps);
  });
}

// replace(): the old line read (if valid) as its victim, then tag, valid and dirty written whole.
void CacheCore::note_replaced(size_t l) const {
  const uint64_t ps = rec_.now();
  rec_.reg->note(*rec_.valid, l, Access::Read, ps);
  if (valid_[l]) {
    rec_.reg->note(*rec_.tag, l, Access::Read, ps);
    if (rec_.dirty) {
      rec_.reg->note(*rec_.dirty, l, Access::Read, ps);
      note_sectors(l, dirty_[l] & valid_[l]);
    }
  }
  rec_.reg->note(*rec_.tag, l, Access::Write, ps);
  rec_.reg->note(*rec_.valid, l, Access::Write, ps);
  if (rec_.dirty) rec_.reg->note(*rec_.dirty, l, Access::Write, ps);
}

// fill(): line l's valid bits read (which sectors are fresh), the fresh sectors' words written, the
// valid bits OR-ed (a read: the others stay).
void CacheCore::note_filled(size_t l, uint32_t fresh) const {
  const uint64_t ps = rec_.now();
  rec_.reg->note(*rec_.valid, l, Access::Read, ps);
  for_each_run(fresh, [&](unsigned first, unsigned n) {
    note_data(l * g_.line_bytes + size_t(first) * g_.sector_bytes, size_t(n) * g_.sector_bytes, true, ps);
  });
}

// flush_range() on a valid line l (its valid bits and tag already reported read): in the range, its
// dirty bits and dirty data read, the dirty word (and with `invalidate` the valid word) written.
void CacheCore::note_flush(size_t l, bool in_range, bool invalidate) const {
  const uint64_t ps = rec_.now();
  if (!in_range) return;
  if (rec_.dirty) {
    rec_.reg->note(*rec_.dirty, l, Access::Read, ps);
    note_sectors(l, dirty_[l] & valid_[l]);
    rec_.reg->note(*rec_.dirty, l, Access::Write, ps);
  }
  if (invalidate) rec_.reg->note(*rec_.valid, l, Access::Write, ps);
}

}  // namespace gpuvp
