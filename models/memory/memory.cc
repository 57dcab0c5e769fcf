#include "models/memory/memory.h"

#include <sys/mman.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "models/common/demand_extension.h"
#include "models/common/digest.h"
#include "models/common/hold_extension.h"
#include "models/common/requester_instant.h"
#include "models/memory/atomic_extension.h"

namespace gpuvp {

Memory::Memory(sc_core::sc_module_name name, const MemoryConfig& cfg, Registry& reg, const std::string& path)
    : sc_module(name), cfg_(cfg), reg_(reg), protect_(cfg.check_bounds), bus_(cfg.bandwidth_gbps) {
  if (cfg_.size == 0 || cfg_.size % 4 != 0) throw std::invalid_argument(fmt::format("{}: size must be a non-zero multiple of 4", path));
  // Fresh zero pages from the system, never recycled heap: calloc reuses a free heap chunk when there
  // is one (a campaign's leader, forked from a process that freed hundreds of megabytes) and must then
  // zero it by hand, touching every page, which every faulty run's fork copies the page tables of.
  void* m = ::mmap(nullptr, cfg_.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(m);
  const uint64_t blocks = (cfg_.size / 4 + kDigestWords - 1) / kDigestWords;
  block_digest_.assign(blocks, 0);  // every word zero: every block's digest is 0
  stale_.assign(blocks, 0);
  in.register_b_transport(this, &Memory::b_transport);
  in.register_transport_dbg(this, &Memory::transport_dbg);
  Target t;
  t.name = path;
  t.kind = TargetKind::Memory;
  t.width = 32;
  t.count = cfg_.size / 4;
  t.get = [this](uint64_t i) {
    uint32_t w;
    std::memcpy(&w, data_ + i * 4, 4);
    return uint64_t(w);
  };
  t.set = [this](uint64_t i, uint64_t v) {
    uint32_t w = static_cast<uint32_t>(v);
    store(i * 4, &w, 4);
  };
  t.digest = [this] { return digest(); };
  reg.add(std::move(t));
  if (cfg_.timing == MemoryConfig::Timing::Dram || cfg_.recovery)
    reg.add_timing(path, [this](uint64_t now) { return timing_digest(now); });
  target_ = &reg.at_mut(path);
  // Every access reaches the array through b_transport, transport_dbg, peek or poke, which report it
  // (the registry's get and set are fault injection's, and the digest reads for state hashes only).
  target_->reads_observed = true;
}

Memory::~Memory() { ::munmap(data_, cfg_.size); }

namespace {
// B bytes at `gbps` (bytes per ns), to the ps (rounded up).
sc_core::sc_time transfer(unsigned bytes, double gbps) {
  return sc_core::sc_time(std::ceil(bytes * 1000.0 / gbps - 1e-6), sc_core::SC_PS);
}
}  // namespace

// DRAM latency: a fixed part per access (gmem.latency cycles + gmem.latency_ns), the same for
// every address (one channel, no row-buffer state: docs/validation.md, "DRAM model").
sc_core::sc_time Memory::dram_latency() const {
  return cfg_.clock.cycles(cfg_.latency) + sc_core::sc_time(cfg_.latency_ns, sc_core::SC_NS);
}

sc_core::sc_time Memory::access_time(unsigned bytes) const {
  switch (cfg_.timing) {
    case MemoryConfig::Timing::Fixed:
    case MemoryConfig::Timing::ByteSerial:
      return cfg_.clock.cycles(cfg_.latency + (bytes + cfg_.bytes_per_cycle - 1) / cfg_.bytes_per_cycle);
    case MemoryConfig::Timing::Dram:
      // The transfer at the bandwidth, then the latency: no rounding to cycles here (the requester
      // rounds once, to its own clock, when it takes the data).
      return transfer(bytes, cfg_.bandwidth_gbps) + dram_latency();
  }
  return sc_core::SC_ZERO_TIME;
}

sc_core::sc_time Memory::occupancy(unsigned bytes) const {
  if (cfg_.timing != MemoryConfig::Timing::Dram) return access_time(bytes);
  // DRAM is pipelined: the bus is busy only while the data moves; the latency overlaps.
  return transfer(bytes, cfg_.bandwidth_gbps);
}

bool Memory::check(tlm::tlm_generic_payload& p, bool debug) {
  uint64_t a = p.get_address();
  uint64_t n = p.get_data_length();
  if (p.get_byte_enable_ptr()) {
    p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (n == 0 || a < cfg_.base || a - cfg_.base > cfg_.size || n > cfg_.size - (a - cfg_.base)) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  // A single access (a power of two up to the access width) must be naturally aligned. Longer or
  // odd-sized transactions are bursts (host copies, coalesced runs of lanes) whose elements the
  // initiator has already checked.
  if (!debug && (n & (n - 1)) == 0 && n <= cfg_.access_width && a % n != 0) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  DemandExtension* demand = nullptr;
  p.get_extension(demand);  // a cache's sector fetch: only the bytes asked for must be mapped
  if (protect_ && !debug && !(demand ? demand->len == 0 || mapped(demand->addr, demand->len) : mapped(a, n))) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (p.get_streaming_width() < n) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  return true;
}

void Memory::b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  if (!check(p, false)) return;
  if (reg_.recording()) note_timed(p);
  HoldExtension* hold = nullptr;
  p.get_extension(hold);
  uint8_t* mem = data_ + (p.get_address() - cfg_.base);
  unsigned n = p.get_data_length();
  AtomicExtension* atom = nullptr;
  p.get_extension(atom);
  const bool dram = cfg_.timing == MemoryConfig::Timing::Dram;
  sc_core::sc_time total, busy;  // added to the delay; of which the memory is busy
  if (atom) {
    if (n != 4 && n != 8) {
      p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    uint64_t old = 0;
    std::memcpy(&old, mem, n);
    uint64_t nv = apply_atomic(atom->op, atom->type, old, atom->operand, atom->compare);
    store(p.get_address() - cfg_.base, &nv, n);
    atom->old = old;
    ++reads_;
    ++writes_;
    read_bytes_ += n;
    write_bytes_ += n;
    // A read-modify-write: the read (latency and transfer), then the write back. The memory
    // applies it at once, so it stays atomic whatever the timing. A non-pipelined memory is busy
    // for the whole of both; DRAM (below) for the two transfers only, as an L2 atomic unit would be.
    total = busy = access_time(n) * 2.0;
  } else if (p.is_read()) {
    std::memcpy(p.get_data_ptr(), mem, n);
    ++reads_;
    read_bytes_ += n;
    total = busy = access_time(n);
  } else if (p.is_write()) {
    store(p.get_address() - cfg_.base, p.get_data_ptr(), n);
    ++writes_;
    write_bytes_ += n;
    total = busy = access_time(n);
  } else {
    p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  if (dram) {
    dram_timing(atom ? 2 * n : n, sc_core::sc_time_stamp() + delay, total, busy);
  } else if (cfg_.recovery) {
    // A port serves its next access only `recovery` cycles after the last one ended.
    if (port_free_.size() <= size_t(id)) port_free_.resize(size_t(id) + 1);
    const sc_core::sc_time start = sc_core::sc_time_stamp() + delay;
    const sc_core::sc_time queued = port_free_[id] > start ? port_free_[id] - start : sc_core::SC_ZERO_TIME;
    port_free_[id] = start + queued + total + cfg_.clock.period() * double(cfg_.recovery);
    total += queued;
    busy += queued;
  }
  delay += total;
  if (hold) hold->valid = true, hold->hold = busy;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

// One DRAM data bus serves every port (reads, writes, the copy engine) in arrival order, exact to
// the bandwidth (dram_bus.h). The access holds its port while it queues for the bus: once its
// transfer starts, the controller has it, and the port's next transaction (a grant and an ack, two
// or three edges) overlaps the transfer, so back-to-back transfers keep the bus busy without a gap
// and no per-port rounding to cycles returns (a port held to the transfer's end would take whole
// cycles plus a handshake per transfer: the staircase again). Its data is usable the DRAM latency
// after the transfer ends; the requester rounds that once, up to its own clock edge.
void Memory::dram_timing(unsigned bytes, const sc_core::sc_time& arrival, sc_core::sc_time& total,
                         sc_core::sc_time& busy) {
  const DramBus::Slot s = bus_.reserve(arrival, bytes);
  busy = s.start - arrival;
  total = s.end - arrival + dram_latency();
}

// An access starts at or after now: a port free before then makes it wait no longer.
uint64_t Memory::timing_digest(uint64_t now) const {
  uint64_t h = bus_.timing_digest(now);
  for (const sc_core::sc_time& t : port_free_) h = digest_fold(h, digest_instant(t.value(), now + 1));
  return h;
}

unsigned Memory::transport_dbg(int, tlm::tlm_generic_payload& p) {
  if (!check(p, true)) return 0;
  if (reg_.recording()) {
    const uint64_t now = sc_core::sc_time_stamp().value(), until = latest_instant(p);
    if (p.is_read()) note_read(p.get_address() - cfg_.base, p.get_data_length(), now, until);
    else if (p.is_write()) note_write(p.get_address() - cfg_.base, p.get_data_length(), now, until);
  }
  uint8_t* mem = data_ + (p.get_address() - cfg_.base);
  if (p.is_read())
    std::memcpy(p.get_data_ptr(), mem, p.get_data_length());
  else if (p.is_write())
    store(p.get_address() - cfg_.base, p.get_data_ptr(), p.get_data_length());
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  return p.get_data_length();
}

void Memory::map(uint64_t base, uint64_t size) { mapped_[base] = size; }

void Memory::unmap(uint64_t base) { mapped_.erase(base); }

bool Memory::mapped(uint64_t a, uint64_t n) const {
  auto it = mapped_.upper_bound(a);
  if (it == mapped_.begin()) return false;
  --it;
  return a - it->first < it->second && n <= it->second - (a - it->first);
}

void Memory::peek(uint64_t addr, void* dst, size_t n) const {
  if (addr < cfg_.base || addr - cfg_.base > cfg_.size || n > cfg_.size - (addr - cfg_.base))
    throw std::out_of_range(fmt::format("{}: [{:#x}, +{}) is outside the memory", name(), addr, n));
  std::memcpy(dst, data_ + (addr - cfg_.base), n);
  if (reg_.recording()) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    const_cast<Memory*>(this)->note_read(addr - cfg_.base, n, now, now);
  }
}

void Memory::poke(uint64_t addr, const void* src, size_t n) {
  if (addr < cfg_.base || addr - cfg_.base > cfg_.size || n > cfg_.size - (addr - cfg_.base))
    throw std::out_of_range(fmt::format("{}: [{:#x}, +{}) is outside the memory", name(), addr, n));
  store(addr - cfg_.base, src, n);
  if (reg_.recording()) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    note_write(addr - cfg_.base, n, now, now);
  }
}

// --- access recording ------------------------------------------------------------------------------
// When: an access is made by the initiator's process at simulated time s. A stop at t (an injected
// fault) is ordered before it when t <= s and, for an initiator that keeps simulated time (the host,
// the copy engine, the caches' own processes), after it when t > s: its instant is s. An SM runs ahead
// of simulated time: the horizon holds its core at a stop's instant, so an access it makes before a
// stop at t belongs to an instruction issued before t, and the instant c it puts on the transaction
// (models/common/requester_instant.h, forwarded by the caches that fetch or write back for it) bounds
// the access's: somewhere in [s, max(s, c)]. Such an access is a span of reads over that window
// (faults inside it run one by one) and a write replaces the words at its end.
uint64_t Memory::latest_instant(const tlm::tlm_generic_payload& p) {
  return std::max<uint64_t>(sc_core::sc_time_stamp().value(), RequesterInstant::of(p));
}

void Memory::note_timed(const tlm::tlm_generic_payload& p) {
  const uint64_t off = p.get_address() - cfg_.base, n = p.get_data_length();
  const uint64_t lo = sc_core::sc_time_stamp().value(), hi = latest_instant(p);
  AtomicExtension* atom = nullptr;
  p.get_extension(atom);
  if (atom || p.is_read()) note_read(off, n, lo, hi);  // an atomic reads the old value, then writes
  if (atom || p.is_write()) note_write(off, n, hi, hi);
}

void Memory::note_read(uint64_t off, uint64_t n, uint64_t lo, uint64_t hi) {
  if (n == 0) return;
  note_words(off / 4, (off + n + 3) / 4, hi > lo ? Access::ReadSpan : Access::Read, lo, hi);
}

// Only the words whose every byte is written are replaced; a word written in part keeps the bits of
// its other bytes: a read (a fault in them is still there after the write).
void Memory::note_write(uint64_t off, uint64_t n, uint64_t lo, uint64_t hi) {
  if (n == 0) return;
  if (hi > lo) note_words(off / 4, (off + n + 3) / 4, Access::ReadSpan, lo, hi);
  const uint64_t first = (off + 3) / 4, end = (off + n) / 4;  // the words written whole
  if (off % 4) note_words(off / 4, off / 4 + 1, Access::Read, hi);
  if (first < end) note_words(first, end, Access::Write, hi);
  if ((off + n) % 4 && (off + n) / 4 >= first) note_words((off + n) / 4, (off + n) / 4 + 1, Access::Read, hi);
}

// Words [first, end) in entries of at most 255 words (AccessEvent::stride).
void Memory::note_words(uint64_t first, uint64_t end, Access kind, uint64_t ps, uint64_t until_ps) {
  for (uint64_t w = first; w < end; w += 255)
    reg_.note_lanes(*target_, w, 1, uint8_t(std::min<uint64_t>(255, end - w)), kind, ps, kind == Access::ReadSpan ? until_ps : 0);
}

// Every write goes through here: the blocks it changes are stale for the digest.
void Memory::store(uint64_t off, const void* src, size_t n) {
  if (n == 0) return;
  const uint64_t first = off / 4, last = (off + n - 1) / 4;
  std::memcpy(data_ + off, src, n);
  if (!stuck_.empty()) force_stuck(first, last);
  mark_stale(first, last);
}

void Memory::mark_stale(uint64_t first_word, uint64_t last_word) {
  for (uint64_t b = first_word / kDigestWords; b <= last_word / kDigestWords; ++b)
    if (!stale_[b]) {
      stale_[b] = 1;
      stale_list_.push_back(b);
    }
}

uint64_t Memory::block_digest(uint64_t block) const {
  const uint64_t first = block * kDigestWords, end = std::min(first + kDigestWords, cfg_.size / 4);
  uint64_t d = 0;
  for (uint64_t i = first; i < end; ++i) {
    uint32_t w;
    std::memcpy(&w, data_ + i * 4, 4);
    d ^= word_digest_inline(i, w);
  }
  return d;
}

uint64_t Memory::digest() {
  for (uint64_t b : stale_list_) {
    digest_ ^= block_digest_[b];
    block_digest_[b] = block_digest(b);
    digest_ ^= block_digest_[b];
    stale_[b] = 0;
  }
  stale_list_.clear();
  return digest_;
}

void Memory::force_stuck(uint64_t first, uint64_t last) {
  for (auto it = stuck_.lower_bound(first); it != stuck_.end() && it->first <= last; ++it) {
    uint32_t w;
    std::memcpy(&w, data_ + it->first * 4, 4);
    w = (w & ~it->second.mask) | (it->second.values & it->second.mask);
    std::memcpy(data_ + it->first * 4, &w, 4);
  }
}

void Memory::stick(uint64_t addr, uint32_t mask, uint32_t values) {
  if (addr % 4 || addr < cfg_.base || addr - cfg_.base >= cfg_.size)
    throw std::out_of_range(fmt::format("{}: no aligned word at {:#x} for a stuck-at fault", name(), addr));
  const uint64_t off = addr - cfg_.base;
  Stuck& s = stuck_[off / 4];
  s.values = (s.values & ~mask) | (values & mask);
  s.mask |= mask;
  uint32_t w;
  std::memcpy(&w, data_ + off, 4);
  store(off, &w, 4);  // forces the word as it is now
}

}  // namespace gpuvp
