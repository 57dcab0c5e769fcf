#include "models/cache/timed_cache.h"

#include <algorithm>
#include <stdexcept>

#include "models/common/digest.h"

namespace gpuvp {

namespace {
// Cycles a bank remembers its slots for: requesters up to this far behind in time (temporal
// decoupling) still find the slots they would have found in time order.
constexpr uint64_t kSlotWindow = 256;
}  // namespace

TimedCache::TimedCache(const CacheGeometry& g, const CacheTiming& t, Next next)
    : core_(g),
      t_(t),
      next_(std::move(next)),
      bank_slots_(size_t(std::max(1u, t.banks)) * kSlotWindow, ~uint64_t{0}),
      line_buf_(g.line_bytes) {}

uint64_t TimedCache::run(uint64_t addr, uint8_t* dst, const uint8_t* src, unsigned len, uint64_t at, uint64_t daddr,
                         unsigned dlen) {
  const unsigned lb = core_.geometry().line_bytes;
  uint64_t done = at;
  for (unsigned i = 0; i < len;) {
    const uint64_t a = addr + i;
    const unsigned n = std::min<unsigned>(len - i, lb - unsigned(a & (lb - 1)));
    const CacheRequest r = src ? CacheRequest::store(a, n, src + i) : CacheRequest::read(a, n, dst ? dst + i : nullptr);
    const uint64_t lo = std::max(daddr, a), hi = std::min(daddr + dlen, a + n);
    const uint64_t d = piece(r, at, lo, hi > lo ? unsigned(hi - lo) : 0);
    if (d == kFail) return kFail;
    done = std::max(done, d);
    at = accepted_ + 1;  // the request's next line is looked up the cycle after
    i += n;
  }
  return done;
}

// The first cycle from `at` at which the line's bank has a free lookup slot; taken.
uint64_t TimedCache::slot(uint64_t line, uint64_t at) {
  const size_t banks = bank_slots_.size() / kSlotWindow;
  uint64_t* ring = bank_slots_.data() + (line / core_.geometry().line_bytes) % banks * kSlotWindow;
  uint64_t c = at;
  while (ring[c % kSlotWindow] == c) ++c;
  ring[c % kSlotWindow] = c;
  return c;
}

// The line's fill in flight at `at`, if any. Fills that have arrived by `at` are forgotten (a
// requester further behind in time sees them as arrived: the approximation of temporal decoupling).
const TimedCache::InFlight* TimedCache::in_flight(uint64_t line, uint64_t at) {
  flight_.erase(std::remove_if(flight_.begin(), flight_.end(), [at](const InFlight& f) { return f.ready <= at; }),
                flight_.end());
  for (const InFlight& f : flight_)
    if (f.line == line) return &f;
  return nullptr;
}

// A new miss at `at` needs an MSHR: the cycle the first one is free (at, unless all are busy).
uint64_t TimedCache::mshr_free_at(uint64_t at) {
  if (flight_.size() < core_.geometry().mshrs) return at;
  uint64_t first = ~uint64_t{0};
  for (const InFlight& f : flight_) first = std::min(first, f.ready);
  return std::max(at, first);
}

void TimedCache::note(uint64_t line, uint64_t issued, uint64_t ready) {
  for (InFlight& f : flight_)
    if (f.line == line) {
      f.ready = std::max(f.ready, ready);
      return;
    }
  flight_.push_back({line, issued, ready});
}

uint64_t TimedCache::piece(const CacheRequest& r, uint64_t at, uint64_t daddr, unsigned dlen) {
  const uint64_t line = r.addr & ~uint64_t(core_.geometry().line_bytes - 1);
  uint64_t s = slot(line, at);
  const InFlight* f = in_flight(line, s);
  const bool around = r.write && core_.geometry().write == WritePolicy::WriteThrough;
  // A write-back write of whole sectors allocates them valid at once: it fetches nothing and needs no MSHR.
  const unsigned sb = core_.geometry().sector_bytes;
  const bool whole = r.write && r.addr % sb == 0 && r.size % sb == 0;
  if (!f && !around && !whole && !core_.present(r.addr, r.size)) {
    const uint64_t free = mshr_free_at(s);
    if (free > s) {
      ++stalls_;
      s = slot(line, free);
      in_flight(line, s);  // the fills that arrived meanwhile free their MSHRs
      f = nullptr;
    }
  }
  accepted_ = s;
  const bool merging = f && !r.write;
  const uint64_t issued = f ? f->issued : 0, ready = f ? f->ready : 0;
  const CacheAccess a = core_.access(r);
  note_written(r, a.outcome);
  const uint64_t looked = s + t_.latency;
  uint64_t done = looked;
  if (a.victim) write_back(*a.victim, looked);
  if (a.pending) {
    const uint64_t got = fetch(a, looked, daddr, dlen);
    if (got == kFail) return kFail;
    if (!core_.replay(r)) throw std::logic_error(core_.geometry().name + ": a filled line was not there to replay");
    note(line, s, got);
    done = std::max(done, got);
  } else if (merging) {
    // The line is still on its way: the access completes with its fill (an MSHR merge). One issued
    // before the miss itself (a requester behind in time) waits as long as that miss did.
    if (a.outcome == CacheOutcome::Hit) ++merges_;
    done = std::max(done, s >= issued ? ready : std::min(ready, s + (ready - issued)));
  }
  if (a.forward) {
    NextAccess w{r.addr, const_cast<uint8_t*>(static_cast<const uint8_t*>(r.src)), r.size, true, looked, daddr, dlen};
    const uint64_t d = next_(w);
    if (d == kFail) return kFail;
    done = std::max(done, d);
  }
  return done;
}

// Reads the sectors the miss names from the next level (one access per run of adjacent sectors) and
// fills them; returns the cycle the last arrived.
uint64_t TimedCache::fetch(const CacheAccess& a, uint64_t at, uint64_t daddr, unsigned dlen) {
  if (a.fetch == 0) return at;
  const unsigned sb = core_.geometry().sector_bytes;
  uint64_t ready = at;
  bool ok = true;
  for_each_run(a.fetch, [&](unsigned first, unsigned n) {
    if (!ok) return;
    NextAccess x{a.line_addr + uint64_t(first) * sb, line_buf_.data() + size_t(first) * sb, n * sb, false, at, 0, 0};
    const uint64_t lo = std::max(daddr, x.addr), hi = std::min(daddr + dlen, x.addr + x.len);
    x.demand_addr = hi > lo ? lo : x.addr;
    x.demand_len = hi > lo ? unsigned(hi - lo) : 0;
    const uint64_t r = next_(x);
    if (r == kFail) ok = false;
    else ready = std::max(ready, r);
  });
  if (!ok) {
    core_.cancel(a.line_addr);
    return kFail;
  }
  const CacheFill f = core_.fill(a.line_addr, a.fetch, line_buf_.data());
  if (f.victim) write_back(*f.victim, ready);
  return ready;
}

// The victim's dirty sectors to the next level, posted (nobody waits for them). One the next level
// refuses (a tag fault sent it outside memory) is lost, as the hardware would lose it.
void TimedCache::write_back(const CacheVictim& v, uint64_t at) {
  if (v.dirty) {
    const unsigned sb = core_.geometry().sector_bytes;
    std::vector<uint8_t> data = v.data;  // the next level may be this cache's own caller: keep a copy
    for_each_run(v.dirty, [&](unsigned first, unsigned n) { write_run(v, data, first * sb, n * sb, at); });
  }
  written_.erase(v.line_addr);
}

// Bytes [first, first + n) of the victim's line to the next level: whole, or with write_bytes the
// runs of bytes written in each of its sectors (a sector without any, dirty by a fault, whole).
void TimedCache::write_run(const CacheVictim& v, const std::vector<uint8_t>& data, unsigned first, unsigned n,
                           uint64_t at) {
  auto put = [&](unsigned lo, unsigned len) {
    const uint64_t a = v.line_addr + lo;
    next_(NextAccess{a, const_cast<uint8_t*>(data.data()) + lo, len, true, at, a, 0});
  };
  const auto it = written_.find(v.line_addr);
  if (!t_.write_bytes || it == written_.end()) return put(first, n);
  const std::vector<uint8_t>& w = it->second;
  const unsigned sb = core_.geometry().sector_bytes;
  for (unsigned sec = first; sec < first + n; sec += sb) {
    if (std::find(w.begin() + sec, w.begin() + sec + sb, 1) == w.begin() + sec + sb) {
      put(sec, sb);
      continue;
    }
    for (unsigned b = sec; b < sec + sb;) {
      unsigned e = b;
      while (e < sec + sb && w[e]) ++e;
      if (e > b) put(b, e - b);
      b = e + 1;
    }
  }
}

// With write_bytes, the bytes a write put into the line. A line newly allocated starts with none
// (one left over from a line whose dirty bits a fault cleared is forgotten).
void TimedCache::note_written(const CacheRequest& r, CacheOutcome o) {
  if (!t_.write_bytes || core_.geometry().write != WritePolicy::WriteBack) return;
  const unsigned lb = core_.geometry().line_bytes;
  const uint64_t line = r.addr & ~uint64_t(lb - 1);
  if (o == CacheOutcome::LineMiss) written_.erase(line);
  if (!r.write || o == CacheOutcome::Stall) return;
  std::vector<uint8_t>& w = written_[line];
  w.resize(lb, 0);
  std::fill(w.begin() + (r.addr - line), w.begin() + (r.addr - line) + r.size, 1);
}

void TimedCache::invalidate(uint64_t at) {
  for (const CacheVictim& v : core_.flush(true)) write_back(v, at);
  flight_.clear();
  written_.clear();
}

void TimedCache::write_back_all(uint64_t at) {
  if (core_.geometry().write != WritePolicy::WriteBack) return;  // nothing dirty; spare the scan
  for (const CacheVictim& v : core_.flush(false)) write_back(v, at);
}

void TimedCache::clean(uint64_t lo, uint64_t hi, bool drop, uint64_t at) {
  for (const CacheVictim& v : core_.flush_range(lo, hi, drop)) write_back(v, at);
  if (drop)
    flight_.erase(std::remove_if(flight_.begin(), flight_.end(),
                                 [&](const InFlight& f) { return f.line < hi && f.line + core_.geometry().line_bytes > lo; }),
                  flight_.end());
}

void TimedCache::overlay(uint64_t addr, uint8_t* dst, unsigned len) const {
  const unsigned lb = core_.geometry().line_bytes;
  for (unsigned i = 0; i < len;) {
    const uint64_t a = addr + i;
    const unsigned n = std::min<unsigned>(len - i, lb - unsigned(a & (lb - 1)));
    core_.overlay(a, n, dst + i);
    i += n;
  }
}

void TimedCache::register_state(Registry& reg, const std::string& prefix, std::function<uint64_t()> now_ps,
                                uint64_t period_ps, std::function<void()> on_write) {
  core_.register_state(reg, prefix, std::move(on_write), std::move(now_ps));
  reg.add_timing(prefix, [this, period_ps](uint64_t now) { return timing_digest(now / period_ps); });
}

uint64_t TimedCache::timing_digest(uint64_t now_cycle) const {
  const uint64_t floor = now_cycle > kSlotWindow ? now_cycle - kSlotWindow : 0;
  uint64_t h = digest_instant(accepted_, floor);
  for (size_t i = 0; i < bank_slots_.size(); ++i)  // ~0: never taken
    if (bank_slots_[i] >= floor && bank_slots_[i] != ~uint64_t{0}) h ^= word_digest_inline(i, bank_slots_[i] - floor + 1);
  for (const InFlight& f : flight_)
    if (f.ready > floor) h = digest_fold(digest_fold(digest_fold(h, f.line), f.issued - floor), f.ready - floor);
  for (const auto& [line, bytes] : written_)  // unordered: summed in any order
    h ^= word_digest_inline(line, digest_nonzero(bytes.data(), bytes.size()) + 1);
  return h;
}

CacheStats TimedCache::stats() const {
  CacheStats s = core_.stats();
  s.hits -= merges_;
  s.merges += merges_;
  s.stalls += stalls_;
  return s;
}

}  // namespace gpuvp
