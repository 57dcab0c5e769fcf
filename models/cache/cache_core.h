#pragma once
// The timing-free core every cache model is built on (docs/caches.md): a set-associative, sectored
// tag array with true LRU, valid and dirty bits per sector, the bytes of every line it holds, and
// MSHRs. Pure C++: the caller (a SystemC model) decides when things happen. It asks `access` for each
// request (the part of a warp's request that falls in one line), fetches the sectors a miss names
// from the next level, gives them to `fill` when they arrive, then `replay`s the requests that waited
// for them; it writes back every dirty victim and forwards every write-through write.
//
// Lines are allocated when their first fill arrives (allocate on fill), so a way is never reserved
// for a miss in flight. Every array is registered state (register_state): a fault in a tag, valid
// bit, dirty bit, age or data word acts as it would in the SRAM.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/cache/cache_geometry.h"
#include "models/cache/hashed_table.h"
#include "models/common/registry.h"

namespace gpuvp {

// One request within one line. A read copies into `dst` (may be null: only the timing matters to
// the caller); a write copies from `src`.
struct CacheRequest {
  uint64_t addr = 0;
  unsigned size = 0;
  bool write = false;
  void* dst = nullptr;
  const void* src = nullptr;

  static CacheRequest read(uint64_t addr, unsigned size, void* dst = nullptr) { return {addr, size, false, dst, nullptr}; }
  static CacheRequest store(uint64_t addr, unsigned size, const void* src) { return {addr, size, true, nullptr, src}; }
};

// A line leaving the cache. The caller writes sectors `dirty` of `data` (the whole line, present
// only when dirty != 0) back to `line_addr`; a clean victim needs nothing.
struct CacheVictim {
  uint64_t line_addr = 0;
  uint32_t dirty = 0;  // sector mask
  std::vector<uint8_t> data;
};

// Exactly one per accepted access: Hit (every touched sector valid), SectorMiss (line present, a
// touched sector not), LineMiss (no line), Merged (the line already has an MSHR: no second fill of
// the sectors it waits for). Stall: every MSHR is busy; nothing changed, the caller retries.
enum class CacheOutcome { Hit, SectorMiss, LineMiss, Merged, Stall };

struct CacheAccess {
  CacheOutcome outcome = CacheOutcome::Hit;
  uint64_t line_addr = 0;
  uint32_t fetch = 0;     // sectors to request from the next level now (mask)
  bool pending = false;   // not performed: replay() it once its MSHR's fills have arrived
  bool forward = false;   // a write-through write: the caller writes it to the next level too
  std::optional<CacheVictim> victim;  // a write-back write miss that allocated without a fetch
};

struct CacheFill {
  bool mshr_freed = false;  // every sector the MSHR waited for has arrived: replay its requests
  std::optional<CacheVictim> victim;
};

// Per cache. hits + sector_misses + line_misses + merges = reads + writes (accepted accesses).
struct CacheStats {
  uint64_t reads = 0, writes = 0;
  uint64_t hits = 0, sector_misses = 0, line_misses = 0, merges = 0;
  uint64_t stalls = 0;          // refused accesses (all MSHRs busy); each retry counts again
  uint64_t sector_fills = 0;    // sectors delivered by the next level
  uint64_t evictions = 0;       // valid lines replaced
  uint64_t writebacks = 0;      // dirty sectors written back (evictions and flushes)
  uint64_t write_throughs = 0;  // writes forwarded to the next level
  uint64_t read_bytes = 0, write_bytes = 0;  // bytes of the accepted reads and writes

  // Name and value of each counter, in the order above (for the platform's statistics).
  std::vector<std::pair<const char*, uint64_t>> items() const;
};

class CacheCore {
 public:
  explicit CacheCore(const CacheGeometry& g);  // validates g

  // Looks the request up, counts it and performs it when it can (see CacheOutcome).
  CacheAccess access(const CacheRequest& r);
  // Sectors `sectors` of line `line_addr` arrived; `line_data` holds the whole line (only those
  // sectors are read). Sectors valid meanwhile (a whole-sector write) keep their newer bytes.
  // Throws std::logic_error when no MSHR waits for them.
  CacheFill fill(uint64_t line_addr, uint32_t sectors, const void* line_data);
  // Performs a request that access() left pending; counts nothing. False when its sectors are no
  // longer all present (the line was replaced meanwhile): the caller sends it to access() again.
  bool replay(const CacheRequest& r);
  // Every dirty line as a victim (made clean); with `invalidate` every line is dropped too.
  std::vector<CacheVictim> flush(bool invalidate);
  // The same for the lines whose address lies in [lo, hi) only (coherence with an outside access).
  std::vector<CacheVictim> flush_range(uint64_t lo, uint64_t hi, bool invalidate);
  // The MSHR of `line_addr` given up (its fetch failed): its requests are never replayed.
  void cancel(uint64_t line_addr);
  // Copies the bytes of [addr, addr + size) (within one line) that valid sectors hold over dst;
  // counts nothing.
  void overlay(uint64_t addr, unsigned size, uint8_t* dst) const;
  // Grows at every change of what overlay() reads (tags, valid bits, data): equal counts, the same
  // overlays (and the same accesses recorded for them).
  uint64_t overlay_changes() const { return tag_.changes() + valid_.changes() + data_.changes(); }

  // Inspection, without counting or touching the LRU order.
  bool present(uint64_t addr, unsigned size) const;  // every sector touched is valid
  bool dirty(uint64_t addr, unsigned size) const;    // a line of [addr, addr + size) (any length) has a dirty sector
  uint32_t outstanding(uint64_t line_addr) const;    // sectors an MSHR waits for (0: none)
  unsigned mshrs_busy() const;
  const CacheStats& stats() const { return stats_; }
  const CacheGeometry& geometry() const { return g_; }

  // Registers <prefix>.tag, .valid, .dirty (write-back only; one word per line: `sectors()` bits, bit s = sector s),
  // .lru (a way's age, absent for one way) and .data (32-bit words, line by line); line l is
  // set l / ways, way l % ways. `on_write` wakes the owning model after an injected write.
  // With `now_ps` the arrays are observed (Target::reads_observed): while the registry records, every
  // read and write of them is reported at the instant now_ps() gives, the instant at which a stop is
  // ordered against the call the cache is in (cache_record.cc).
  void register_state(Registry& reg, const std::string& prefix, std::function<void()> on_write = {},
                      std::function<uint64_t()> now_ps = {});

 private:
  struct Where {
    unsigned set;
    uint64_t tag, line_addr;
    uint32_t touched;  // sectors the request touches
  };
  struct Mshr {
    uint64_t line_addr = 0;
    uint32_t pending = 0;  // 0: free
  };

  Where locate(uint64_t addr, unsigned size) const;
  size_t line(unsigned set, unsigned way) const { return size_t(set) * g_.ways + way; }
  uint64_t line_addr_of(size_t l) const;
  int find_way(const Where& w) const;
  int match(const Where& w) const;  // find_way without recording
  unsigned victim_way(unsigned set) const;
  void touch(unsigned set, unsigned way);
  std::optional<CacheVictim> replace(const Where& w, unsigned way);
  CacheVictim victim_of(size_t l) const;
  uint32_t covered(const CacheRequest& r) const;
  void perform(size_t l, const CacheRequest& r, uint32_t touched);
  void write_sectors(size_t l, const CacheRequest& r, uint32_t sectors);
  CacheAccess write_around(const CacheRequest& r, const Where& w, int way);
  CacheAccess allocate_written(const CacheRequest& r, const Where& w, int way);
  CacheAccess miss(const CacheRequest& r, const Where& w, int way, uint32_t needed);
  CacheAccess counted(CacheAccess a, const CacheRequest& r);
  Mshr* find_mshr(uint64_t line_addr);
  const Mshr* find_mshr(uint64_t line_addr) const;
  Mshr* free_mshr();
  void store(size_t byte, const uint8_t* src, size_t n);
  void load(size_t byte, void* dst, size_t n) const;

  // Access recording (cache_record.cc); each note_* is called only when rec_on().
  struct Recorder {
    Registry* reg = nullptr;
    const Target *tag = nullptr, *valid = nullptr, *dirty = nullptr, *lru = nullptr, *data = nullptr;
    std::function<uint64_t()> now;
  };
  bool rec_on() const { return rec_.reg && rec_.reg->recording(); }
  // `ps`: the instant of the call (rec_.now(), asked once per call of the core).
  void note_words(const Target* t, uint64_t first, uint64_t n, Access k, uint64_t ps) const;
  void note_set(const Target* t, unsigned set, Access k, uint64_t ps) const;
  void note_lookup(unsigned set, uint64_t ps) const;
  void note_data(size_t byte, size_t n, bool write, uint64_t ps) const;
  void note_overlay(const Where& w, int way, uint64_t addr, unsigned size, uint32_t sectors) const;
  uint32_t holding(unsigned set) const;  // ways <= 32: the ways of `set` with a valid sector
  void note_sectors(size_t l, uint32_t sectors) const;
  void note_replaced(size_t l) const;
  void note_filled(size_t l, uint32_t fresh) const;
  void note_flush(size_t l, bool in_range, bool invalidate) const;

  CacheGeometry g_;
  unsigned sectors_, offset_bits_, index_bits_;
  uint64_t set_mask_;  // sets - 1
  HashedTable<uint64_t> tag_;
  HashedTable<uint32_t> valid_, dirty_;
  HashedTable<uint8_t> age_;    // per line: 0 most recently used
  HashedTable<uint32_t> data_;  // line l's bytes from l * line_bytes
  std::vector<Mshr> mshrs_;
  CacheStats stats_;
  Recorder rec_;
  // The overlays recorded lately (note_overlay): what each read, by the values its entries follow from.
  // A platform attaches one log (a golden run): keys of an earlier log are not told apart.
  struct OverlayRead {
    uint64_t ps, addr;
    unsigned size;
    int way;
    uint32_t sectors, holding;
    bool operator==(const OverlayRead& o) const {
      return ps == o.ps && addr == o.addr && size == o.size && way == o.way && sectors == o.sectors && holding == o.holding;
    }
  };
  mutable std::array<OverlayRead, 8> overlays_{};
  mutable unsigned overlay_next_ = 0;
};

}  // namespace gpuvp
