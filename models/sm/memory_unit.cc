// Memory unit of the SIMT core: address resolution (generic windows, shared/local/param bounds),
// on-chip accesses, global and constant transactions (lane by lane or coalesced into aligned
// segments), loads, stores and atomics. docs/sm.md ("Timing") describes the transaction shapes.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "models/sm/exec.h"

namespace gpuvp {

using namespace isa;
using sm::lanes;
using sm::sext;
using sm::wmask;

uint8_t* SimtCore::local_ptr(Warp& w, unsigned lane, Space sp, uint64_t addr, unsigned size) {
  Block& b = blocks_[w.block];
  switch (sp) {
    case Space::Shared: {
      const uint64_t user_bytes = b.k.user_bytes;
      if (addr + size > user_bytes || addr >= user_bytes) {
        fail("address", fmt::format("shared access of {} bytes at offset {:#x} outside the block's {} bytes", size, addr, user_bytes),
             &w, int(lane), addr);
        return nullptr;
      }
      return smem_.data() + b.smem_base + b.k.user_off + addr;
    }
    case Space::Local: {
      const uint64_t local_bytes = b.lp->local_bytes;
      if (addr + size > local_bytes || addr >= local_bytes) {
        fail("address", fmt::format("local access of {} bytes at offset {:#x} outside {} bytes per thread", size, addr, local_bytes),
             &w, int(lane), addr);
        return nullptr;
      }
      return b.local.data() + size_t(w.in_block * cfg_.warp_size + lane) * local_bytes + addr;
    }
    case Space::Param: {
      const uint64_t param_bytes = b.lp->params.size();
      if (addr + size > param_bytes || addr >= param_bytes) {
        fail("address", fmt::format("parameter access of {} bytes at offset {:#x} outside {} bytes", size, addr, param_bytes),
             &w, int(lane), addr);
        return nullptr;
      }
      return smem_.data() + b.smem_base + kBlockHeaderBytes + addr;
    }
    default: return nullptr;
  }
}

// --- global and constant transactions ------------------------------------------------------------

// Transactions of one instruction issue back to back as their port frees; the data is ready when
// the last one completes (later than the release for a pipelined memory).
bool SimtCore::transact(CoreEnv::Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, MemIssue& is,
                        CoreEnv::Fault& f) {
  uint64_t r = env_.access(port, addr, data, len, write, nullptr, is.next, f);
  ++stats_.mem_transactions;
  if (r == CoreEnv::kFail) return false;
  is.ready = std::max(is.ready, r);
  uint64_t rel = env_.last_release();
  is.next = rel == CoreEnv::kFail ? r : std::max(is.next, rel);
  return true;
}

// A coalesced piece [lo, hi) failed: the report names the first lane (in lane order) whose own bytes
// in it fail on their own, found by reading them one lane at a time (the kernel stops anyway). The
// probe reads through the segment's memory (a store's probe through the read port: it must not
// write); a store keeps the message of its own port and operation, only the lane and address move.
bool SimtCore::segment_fault(Warp& w, const Segment& s, uint64_t lo, uint64_t hi, const CoreEnv::Fault& whole,
                             uint64_t at_cycle, bool write) {
  int lane = -1;
  uint64_t at = lo;
  CoreEnv::Fault fl = whole;
  const CoreEnv::Port probe_port = s.port == CoreEnv::Port::Const ? s.port : CoreEnv::Port::GlobalRead;
  for (uint32_t rest = s.lanes; rest && lane < 0; rest &= rest - 1) {
    unsigned l = unsigned(__builtin_ctz(rest));
    if (addr_[l] + s.size <= lo || addr_[l] >= hi) continue;
    uint8_t probe[16];
    CoreEnv::Fault pf;
    if (env_.access(probe_port, addr_[l], probe, s.size, false, nullptr, at_cycle, pf) == CoreEnv::kFail) {
      lane = int(l);
      at = addr_[l];
      if (!write) fl = pf;
    }
  }
  if (lane < 0) lane = int(__builtin_ctz(s.lanes));
  return fault_at(fl, w, lane, at);
}

// Bytes [i, end) of the segment (data at segbuf_) as naturally aligned power-of-two pieces: one
// piece for a whole segment, and every access the memory sees is aligned.
bool SimtCore::transfer_pieces(Warp& w, const Segment& s, unsigned i, unsigned end, bool write, MemIssue& is) {
  CoreEnv::Fault f;
  uint8_t* data = segbuf_.data();
  while (i < end) {
    unsigned piece = i ? (i & (0u - i)) : s.bytes;
    while (piece > end - i) piece >>= 1;
    if (!transact(s.port, s.base + i, data + i, piece, write, is, f))
      return segment_fault(w, s, s.base + i, s.base + i + piece, f, is.next, write);
    i += piece;
  }
  return true;
}

// A read fetches the bytes the lanes touch in the segment, [lo, hi): nothing beyond them, so a read
// past the end of a buffer is seen by the memory's bounds check.
bool SimtCore::read_segment(Warp& w, const Segment& s, uint64_t lo, uint64_t hi, MemIssue& is) {
  if (!transfer_pieces(w, s, unsigned(lo - s.base), unsigned(hi - s.base), false, is)) return false;
  const uint8_t* data = segbuf_.data();
  lanes(s.lanes, [&](unsigned l) { std::memcpy(buf_[l], data + (addr_[l] - s.base), s.size); });
  return true;
}

// Lanes applied in order (the last writer of a byte wins), then one write per contiguous run.
bool SimtCore::write_segment(Warp& w, const Segment& s, uint64_t lo, uint64_t hi, MemIssue& is) {
  uint8_t* data = segbuf_.data();
  uint8_t* cov = segbuf_.data() + s.bytes;
  std::memset(cov, 0, s.bytes);
  lanes(s.lanes, [&](unsigned l) {
    std::memcpy(data + (addr_[l] - s.base), buf_[l], s.size);
    std::memset(cov + (addr_[l] - s.base), 1, s.size);
  });
  unsigned i = unsigned(lo - s.base), end = unsigned(hi - s.base);
  while (i < end) {
    if (!cov[i]) {
      ++i;
      continue;
    }
    unsigned j = i;
    while (j < end && cov[j]) ++j;
    if (!transfer_pieces(w, s, i, j, true, is)) return false;
    i = j;
  }
  return true;
}

// Global (or constant) accesses of the lanes in m: addresses in addr_, data in buf_.
bool SimtCore::global_lanes(Warp& w, uint32_t m, unsigned size, bool write, CoreEnv::Port port) {
  env_.warp_tag = blocks_[w.block].linear << 16 | w.in_block;
  if (pipe_) return fg_memory(w, m, size, write, port);
  MemIssue is{now_, now_};
  if (port == CoreEnv::Port::Const && cfg_.caches.ccache.present()) {
    // Through a constant cache: one request per distinct address of the warp, in lane order (the
    // cache serves one address at a time; the lanes reading it share the answer).
    CoreEnv::Fault f;
    for (uint32_t rest = m; rest;) {
      const unsigned first = unsigned(__builtin_ctz(rest));
      if (!transact(port, addr_[first], buf_[first], size, false, is, f)) return fault_at(f, w, int(first), addr_[first]);
      lanes(rest, [&](unsigned l) {
        if (addr_[l] != addr_[first]) return;
        if (l != first) std::memcpy(buf_[l], buf_[first], size);
        rest &= ~(1u << l);
      });
    }
    done_at_ = std::max(done_at_, is.ready);
    issued_at_ = is.next;
    return true;
  }
  if (!cfg_.coalesce) {
    // One transaction per lane, in lane order.
    CoreEnv::Fault f;
    bool ok = true;
    lanes(m, [&](unsigned l) {
      if (ok && !transact(port, addr_[l], buf_[l], size, write, is, f)) ok = fault_at(f, w, int(l), addr_[l]);
    });
    done_at_ = std::max(done_at_, is.ready);
    issued_at_ = is.next;
    return ok;
  }
  unsigned seg = std::max(cfg_.coalesce_bytes, size);
  if (seg & (seg - 1)) seg = std::max(32u, size);  // segments must be powers of two
  // With an L1 data cache, global accesses reach it a line at a time, as the L1/texture unit takes a
  // warp's request per 128-byte line with the sectors it touches: segments whose touched bytes are
  // contiguous across their boundary within one line become one access (the L1 fetches only the
  // sectors touched, so a gap still splits the access). Without one, each segment is a transaction.
  const unsigned line = port != CoreEnv::Port::Const && cfg_.caches.l1d.present()
                            ? std::max(seg, cfg_.caches.l1d.geometry.line_bytes)
                            : seg;
  if (segbuf_.size() < 2 * size_t(line)) segbuf_.resize(2 * size_t(line));
  Segment run{port, 0, 0, line, size};
  uint64_t run_lo = 0, run_hi = 0;
  auto flush = [&] {
    return !run.lanes || (write ? write_segment(w, run, run_lo, run_hi, is) : read_segment(w, run, run_lo, run_hi, is));
  };
  uint32_t rem = m;
  while (rem) {
    // The lanes in the segment of the lowest remaining lane, and the bytes they touch.
    const uint64_t base = addr_[__builtin_ctz(rem)] & ~uint64_t(seg - 1);
    uint32_t lanes_in = 0;
    uint64_t lo = ~uint64_t{0}, hi = 0;
    lanes(rem, [&](unsigned l) {
      if ((addr_[l] & ~uint64_t(seg - 1)) == base) {
        lanes_in |= 1u << l;
        lo = std::min(lo, addr_[l]);
        hi = std::max(hi, addr_[l] + size);
      }
    });
    rem &= ~lanes_in;
    const uint64_t line_base = base & ~uint64_t(line - 1);
    if (run.lanes && line != seg && run_hi == lo && run.base == line_base) {
      run.lanes |= lanes_in;  // continues the access
      run_hi = hi;
      continue;
    }
    if (!flush()) return false;
    run.base = line_base;
    run.lanes = lanes_in;
    run_lo = lo;
    run_hi = hi;
  }
  if (!flush()) return false;
  done_at_ = std::max(done_at_, is.ready);
  issued_at_ = is.next;
  return true;
}

// --- loads, stores, atomics ----------------------------------------------------------------------

namespace {
// Resolves a generic address to its space and the offset within it.
inline Space resolve(Space sp, uint64_t& a) {
  if (sp != Space::Generic) return sp;
  if (a >= kSharedWindowBase && a < kSharedWindowBase + kSharedWindowSize) {
    a -= kSharedWindowBase;
    return Space::Shared;
  }
  if (a >= kLocalWindowBase && a < kLocalWindowBase + kLocalWindowSize) {
    a -= kLocalWindowBase;
    return Space::Local;
  }
  return Space::Global;
}

// The distinct 4-byte words of one phase per shared bank, counted as they come (a word its bank has
// seen already is a broadcast): each bank keeps its words in a chain, no sort per access.
class BankWords {
 public:
  explicit BankWords(unsigned banks) : banks_(banks) { std::fill(head_, head_ + banks, -1); }
  void add(uint64_t wd) {
    const unsigned b = unsigned(wd % banks_);
    for (int j = head_[b]; j >= 0; j = next_[j])
      if (word_[j] == wd) return;
    word_[n_] = wd;
    next_[n_] = head_[b];
    head_[b] = int(n_++);
    most_ = std::max(most_, ++count_[b]);
  }
  unsigned busiest() const { return most_; }  // distinct words in the busiest bank

 private:
  static constexpr unsigned kWords = 32 * 9;  // a lane touches at most size / 4 + 1 words, size <= 32
  unsigned banks_, n_ = 0, most_ = 0;
  int head_[64];
  unsigned count_[64] = {};
  uint64_t word_[kWords];
  int next_[kWords];
};
}  // namespace

// Explicit shared space (the common on-chip case of mem_common): local_ptr inlined; it still
// reports errors.
bool SimtCore::shared_lanes(Warp& w, const Operand& mo, uint32_t m, unsigned size, uint8_t** ptrs) {
  const uint64_t* base = mo.reg == kNoReg ? nullptr : w.regs + size_t(mo.reg) * 32;
  const Block& b = blocks_[w.block];
  uint8_t* region = smem_.data() + b.smem_base + b.k.user_off;
  const uint64_t lim = b.k.user_bytes;
  bool ok = true, onchip = false;
  lanes(m, [&](unsigned l) {
    if (!ok) return;
    uint64_t a = (base ? base[l] : 0) + uint64_t(mo.imm);
    if (a % size) {
      fail("misaligned", fmt::format("{}-byte access at {:#x} not aligned", size, a), &w, int(l), a);
      ok = false;
      return;
    }
    addr_[l] = a;
    onchip = true;
    if (a + size > lim || a >= lim) ptrs[l] = local_ptr(w, l, Space::Shared, a, size);  // reports
    else ptrs[l] = region + a;
    if (!ptrs[l]) ok = false;
  });
  if (onchip) lat_ = cfg_.lat.shared;
  if (ok && m) shared_access(w, m, size);
  return ok;
}

// Transactions a shared access of `size` bytes per lane by the lanes in m (addresses in addr_)
// takes, and in `phases` the phases it is split into: a phase is as many consecutive lanes as move
// at most banks x 4 bytes (all 32 for 4-byte accesses, half-warps for 8-byte ones, quarter-warps for
// 16-byte ones, as Kepler and Pascal serve them); it takes one transaction per distinct 4-byte word
// in its busiest bank (lanes reading the same word share it: a broadcast).
unsigned SimtCore::bank_transactions(uint32_t m, unsigned size, unsigned& phases) const {
  const unsigned banks = cfg_.shared_banks;
  const unsigned per = std::clamp(banks * 4 / size, 1u, 32u);
  unsigned total = 0;
  phases = 0;
  for (unsigned first = 0; first < 32; first += per) {
    const uint32_t pm = m & uint32_t(((uint64_t{1} << per) - 1) << first);
    if (!pm) continue;
    ++phases;
    if (size <= 4 && conflict_free(pm)) {
      ++total;
      continue;
    }
    BankWords words(banks);
    lanes(pm, [&](unsigned l) {
      for (uint64_t wd = addr_[l] / 4; wd <= (addr_[l] + size - 1) / 4; ++wd) words.add(wd);
    });
    total += words.busiest();
  }
  return total;
}

// Whether the lanes in pm, each within one 4-byte word (an aligned access of at most 4 bytes), find
// no bank holding two distinct words: the phase is one transaction. The common case, checked
// without BankWords' tables.
bool SimtCore::conflict_free(uint32_t pm) const {
  const unsigned banks = cfg_.shared_banks;
  const uint64_t mod = (banks & (banks - 1)) == 0 ? banks - 1 : 0;  // a power of two: a mask
  uint64_t seen = 0, word[64];
  bool ok = true;
  lanes(pm, [&](unsigned l) {
    const uint64_t wd = addr_[l] / 4;
    const unsigned b = unsigned(mod ? wd & mod : wd % banks);
    if (!(seen >> b & 1)) {
      seen |= uint64_t{1} << b;
      word[b] = wd;
    } else if (word[b] != wd) {
      ok = false;
    }
  });
  return ok;
}

// Counts a warp's shared access; with banks, its replays (transactions beyond one per phase) hold
// the LSU a cycle each and delay the warp's result as long (execute_timed books them).
void SimtCore::shared_access(const Warp& w, uint32_t m, unsigned size) {
  unsigned extra = 0;
  if (cfg_.shared_banks && !pipe_) {
    unsigned phases = 0;
    extra = bank_transactions(m, size, phases) - phases;
    bank_replays_ += extra;
    lat_ += extra;
  }
  if (!cfg_.statistics) return;
  for (SmStats::Shared* s : {&stats_.shared, &stats_.launches[blocks_[w.block].stat].shared}) {
    ++s->accesses;
    s->replays += extra;
    s->replay_cycles += extra;
  }
}

// Shared part of ld/st/atom: computes addresses, checks alignment, resolves on-chip spaces to host
// pointers (ptrs) and collects the global lanes (gm) and constant lanes (cm).
bool SimtCore::mem_common(Warp& w, const Inst& in, uint32_t m, int mi, unsigned size, uint32_t& gm, uint32_t& cm, uint8_t** ptrs) {
  const Operand& mo = in.ops[mi];
  gm = cm = 0;
  if (in.mod.space == Space::Shared) return shared_lanes(w, mo, m, size, ptrs);
  const uint64_t* base = mo.reg == kNoReg ? nullptr : w.regs + size_t(mo.reg) * 32;
  bool ok = true;
  bool onchip = false;
  uint32_t shm = 0;  // the lanes whose generic address is shared
  lanes(m, [&](unsigned l) {
    if (!ok) return;
    uint64_t a = (base ? base[l] : 0) + uint64_t(mo.imm);
    uint64_t orig = a;
    Space sp = resolve(in.mod.space, a);
    if (a % size) {
      fail("misaligned", fmt::format("{}-byte access at {:#x} not aligned", size, orig), &w, int(l), orig);
      ok = false;
      return;
    }
    addr_[l] = a;
    if (sp == Space::Global) {
      gm |= 1u << l;
    } else if (sp == Space::Const) {
      cm |= 1u << l;
    } else {
      ptrs[l] = local_ptr(w, l, sp, a, size);
      onchip = true;
      if (sp == Space::Shared) shm |= 1u << l;
      if (!ptrs[l]) ok = false;
    }
  });
  if (onchip) lat_ = cfg_.lat.shared;
  if (ok && shm) shared_access(w, shm, size);
  return ok;
}

// Only on-chip lanes and one destination: nothing can fail any more, load straight into it. Signed
// loads are sign-extended to the 64-bit slot: the destination may be a 64-bit register (nvcc writes
// ld.s32 %rd for `long long x = a[i]`); 32-bit readers normalise by their type. False: width not
// handled here.
bool SimtCore::load_onchip(Warp& w, const Inst& in, uint32_t m, uint8_t* const* ptrs) {
  unsigned es = bits_of(in.type) / 8;
  uint64_t scratch[32];
  uint64_t* d = dst(in.ops[0], w, scratch);
  bool sx = is_signed(in.type) && es < 8;
  switch (es) {
    case 4:
      lanes(m, [&](unsigned l) {
        uint32_t v;
        std::memcpy(&v, ptrs[l], 4);
        d[l] = sx ? uint64_t(sext(v, 32)) : v;
      });
      return true;
    case 8: lanes(m, [&](unsigned l) { std::memcpy(&d[l], ptrs[l], 8); }); return true;
    case 2:
      lanes(m, [&](unsigned l) {
        uint16_t v;
        std::memcpy(&v, ptrs[l], 2);
        d[l] = sx ? uint64_t(sext(v, 16)) : v;
      });
      return true;
    case 1: lanes(m, [&](unsigned l) { d[l] = sx ? uint64_t(sext(*ptrs[l], 8)) : *ptrs[l]; }); return true;
    default: return false;
  }
}

void SimtCore::do_ld(Warp& w, const Inst& in, uint32_t m) {
  unsigned es = bits_of(in.type) / 8, n = in.vec, size = es * n;
  uint32_t gm, cm;
  uint8_t* ptrs[32];
  if (!mem_common(w, in, m, n, size, gm, cm, ptrs)) return;
  if (recording()) note_smem_lanes(m & ~gm & ~cm, ptrs, size, Access::Read);
  if (!gm && !cm && n == 1 && load_onchip(w, in, m, ptrs)) return;
  uint32_t om = m & ~gm & ~cm;
  lanes(om, [&](unsigned l) { std::memcpy(buf_[l], ptrs[l], size); });
  // ld.global.nc takes the read-only path (always cached in an L1, sm_caches.h).
  const CoreEnv::Port gport = (in.mod.flags & kNc) ? CoreEnv::Port::GlobalReadNc : CoreEnv::Port::GlobalRead;
  if (gm && !global_lanes(w, gm, size, false, gport)) return;
  if (cm && !global_lanes(w, cm, size, false, CoreEnv::Port::Const)) return;
  if (cfg_.max_pending_loads && !pipe_) return defer_load(w, in, m);  // data lands at completion
  bool sx = is_signed(in.type) && es < 8;
  uint64_t scratch[32];
  for (unsigned i = 0; i < n; ++i) {
    uint64_t* d = dst(in.ops[i], w, scratch);
    lanes(m, [&](unsigned l) {
      uint64_t v = 0;
      std::memcpy(&v, buf_[l] + i * es, es);
      d[l] = sx ? uint64_t(sext(v, es * 8)) : v;
    });
  }
}

void SimtCore::do_st(Warp& w, const Inst& in, uint32_t m) {
  unsigned es = bits_of(in.type) / 8, n = in.vec, size = es * n;
  uint32_t gm, cm;
  uint8_t* ptrs[32];
  if (!mem_common(w, in, m, 0, size, gm, cm, ptrs)) return;
  if (cm) {
    unsigned l = unsigned(__builtin_ctz(cm));
    fail("address", "store to constant memory", &w, int(l), addr_[l]);
    return;
  }
  uint64_t scratch[32];
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t* s = src(in.ops[1 + i], w, m, scratch);
    lanes(m, [&](unsigned l) { std::memcpy(buf_[l] + i * es, &s[l], es); });
  }
  // On-chip lanes in lane order, then global lanes.
  lanes(m & ~gm, [&](unsigned l) { std::memcpy(ptrs[l], buf_[l], size); });
  if (recording()) note_smem_lanes(m & ~gm, ptrs, size, Access::Write);
  if (gm) global_lanes(w, gm, size, true, CoreEnv::Port::GlobalWrite);
}

// One global atomic: a write transaction carrying the AtomicExtension (the memory applies it);
// returns the old value, or false after reporting a fault.
bool SimtCore::global_atomic(Warp& w, const Inst& in, unsigned l, unsigned size, uint64_t bv, uint64_t cv,
                             MemIssue& is, uint64_t& old) {
  env_.warp_tag = blocks_[w.block].linear << 16 | w.in_block;
  atom_ext_.op = in.mod.atom;
  atom_ext_.type = in.type;
  atom_ext_.operand = bv;
  atom_ext_.compare = cv;
  atom_ext_.old = 0;
  uint8_t data[8];
  std::memcpy(data, &bv, 8);
  CoreEnv::Fault f;
  uint64_t r = env_.access(CoreEnv::Port::GlobalWrite, addr_[l], data, size, true, &atom_ext_, is.next, f);
  ++stats_.mem_transactions;
  if (r == CoreEnv::kFail) return fault_at(f, w, int(l), addr_[l]);
  is.ready = std::max(is.ready, r);
  uint64_t rel = env_.last_release();
  is.next = rel == CoreEnv::kFail ? r : std::max(is.next, rel);
  old = atom_ext_.old;
  return true;
}

void SimtCore::do_atom(Warp& w, const Inst& in, uint32_t m) {
  bool red = in.op == Opcode::Red;
  int mi = red ? 0 : 1;
  unsigned size = bits_of(in.type) / 8;
  if (size != 4 && size != 8) {
    fail("decode", "atomic of unsupported width", &w, -1, 0);
    return;
  }
  uint32_t gm, cm;
  uint8_t* ptrs[32];
  if (!mem_common(w, in, m, mi, size, gm, cm, ptrs)) return;
  if (cm) {
    fail("address", "atomic on constant memory", &w, __builtin_ctz(cm), addr_[__builtin_ctz(cm)]);
    return;
  }
  uint64_t sb[32], sc[32], scratch[32];
  const uint64_t* b = src(in.ops[mi + 1], w, m, sb);
  const uint64_t* c = red ? sc : src(in.ops[mi + 2], w, m, sc);
  uint64_t old[32];
  MemIssue is{now_, now_};  // atomics pipeline like loads
  bool ok = true;
  uint64_t wm = wmask(size * 8);
  lanes(m, [&](unsigned l) {
    if (!ok) return;
    uint64_t bv = b[l] & wm, cv = red ? 0 : c[l] & wm;
    if (gm & (1u << l)) {
      uint64_t o = 0;
      ok = global_atomic(w, in, l, size, bv, cv, is, o);
      old[l] = o & wm;
    } else {
      uint64_t o = 0;
      std::memcpy(&o, ptrs[l], size);
      uint64_t nv = apply_atomic(in.mod.atom, in.type, o, bv, cv);
      std::memcpy(ptrs[l], &nv, size);
      old[l] = o;
      if (recording())
        for (Access k : {Access::Read, Access::Write}) note_smem_lanes(1u << l, ptrs, size, k);
    }
  });
  if (!ok) return;
  done_at_ = std::max(done_at_, is.ready);
  lat_ = std::max(lat_, cfg_.lat.atomic);
  if (!red) {
    uint64_t* d = dst(in.ops[0], w, scratch);
    lanes(m, [&](unsigned l) { d[l] = old[l]; });
  }
}

}  // namespace gpuvp
