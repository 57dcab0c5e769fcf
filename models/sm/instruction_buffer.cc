#include "models/sm/instruction_buffer.h"

#include <algorithm>
#include <cstring>

#include "sw/isa/encoding.h"

namespace gpuvp::sm {

InstructionBuffer::InstructionBuffer(unsigned ibuf_insts, CoreEnv& env) : env_(env), buffered_(ibuf_insts != 0) {
  dcache_.resize(kDecoded);
  checked_.assign(dcache_.size(), 0);
  // ibuf_insts instructions of about 16 bytes each, in whole lines (at least one).
  lines_.resize(std::max(1u, (ibuf_insts * 16u + kLine - 1) / kLine));
}

void InstructionBuffer::new_launch() {
  watch_ = watch_ || env_.fetch_watched();
  ++launch_gen_;
  for (auto& l : lines_) l.base = ~uint64_t{0};
  ++gen_;
}

const isa::Inst* InstructionBuffer::fetch(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err, bool& validated) {
  bool hit = false;
  const isa::Inst* in = !buffered_ ? fetch_direct(pc, now, fetches, err)
                        : watch_   ? fetch_viewed(pc, now, fetches, err)
                                   : fetch_buffered(pc, now, fetches, err, hit);
  validated = hit || (in && checked_[index(pc)] == launch_gen_);
  return in;
}

// A watched fetch repeating one under the same view of the instruction cache, with no line filled
// and nothing decoded since: reading through the cache would give the bytes it gave then, and the
// reads it would record are recorded at this instant already (a word read twice at one instant is
// read once for every lifetime). Only what the fetch does to the buffer's lines is done again (their
// LRU order, the wait for a fill in flight), as fetch_buffered does it.
const isa::Inst* InstructionBuffer::fetch_viewed(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err) {
  DecEntry& e = dcache_[index(pc)];
  const CoreEnv::ViewKey key = env_.fetch_view_key();
  if (e.pc == pc && key.same(e.seen.key) && e.seen.gen == gen_ && e.seen.decodes == decodes_) {
    const uint64_t lb = pc & ~uint64_t(kLine - 1), off = pc - lb;
    if (!line(lb, now, fetches, err)) return nullptr;
    const bool straddles = off + isa::kHeaderBytes > kLine || off + e.inst.size > kLine;
    return !straddles || line(lb + kLine, now, fetches, err) ? &e.inst : nullptr;
  }
  bool hit = false;
  const isa::Inst* in = fetch_buffered(pc, now, fetches, err, hit);
  // Both parts of a key only grow: the same key at both ends, the same throughout.
  if (in) e.seen = key.same(env_.fetch_view_key()) ? DecEntry::Seen{key, gen_, decodes_} : DecEntry::Seen{};
  return in;
}

bool InstructionBuffer::read(uint64_t addr, uint8_t* data, unsigned len, uint64_t& now, uint64_t& fetches, Error& err) {
  uint64_t t = env_.access(CoreEnv::Port::Fetch, addr, data, len, false, nullptr, now, err.fault);
  ++fetches;
  if (t == CoreEnv::kFail) {
    err.decode = false;
    err.addr = addr;
    return false;
  }
  now = std::max(now, t);
  return true;
}

const InstructionBuffer::Line* InstructionBuffer::line(uint64_t base, uint64_t& now, uint64_t& fetches, Error& err) {
  Line* l = &lines_[mru_];
  if (l->base != base) {
    int i = find(base);
    if (i < 0) {  // miss: one fetch transaction for the line, into the least recently used one
      i = 0;
      for (unsigned j = 1; j < lines_.size(); ++j)
        if (lines_[j].used < lines_[unsigned(i)].used) i = int(j);
      Line& v = lines_[unsigned(i)];
      v.base = ~uint64_t{0};
      ++gen_;
      if (!read(base, v.bytes, kLine, now, fetches, err)) return nullptr;
      v.base = base;
      v.ready = now;
    }
    hint_[hint_slot(base)] = mru_ = unsigned(i);
    l = &lines_[mru_];
  }
  now = std::max(now, l->ready);  // another warp's fill of the line still in flight (several schedulers)
  l->used = ++clock_;
  return l;
}

int InstructionBuffer::find(uint64_t base) const {
  const unsigned h = hint_[hint_slot(base)];
  if (lines_[h].base == base) return int(h);
  for (unsigned i = 0; i < lines_.size(); ++i)
    if (lines_[i].base == base) return int(i);
  return -1;
}

const InstructionBuffer::Line* InstructionBuffer::buffered_line(uint64_t base, uint64_t now) const {
  const int i = find(base);
  return i >= 0 && lines_[unsigned(i)].ready <= now ? &lines_[unsigned(i)] : nullptr;
}

// The instruction's size from its header in the buffered line (the line after it too when the
// header or the instruction crosses into it).
bool InstructionBuffer::resident(uint64_t pc, uint64_t now) const {
  if (!buffered_) return false;
  const uint64_t lb = pc & ~uint64_t(kLine - 1);
  const Line* l = buffered_line(lb, now);
  if (!l) return false;
  const size_t off = pc - lb;
  if (off + isa::kHeaderBytes > kLine) return buffered_line(lb + kLine, now) != nullptr;
  const size_t sz = isa::size_from_header(l->bytes + off);
  return off + sz <= kLine || buffered_line(lb + kLine, now) != nullptr;
}

const isa::Inst* InstructionBuffer::undecodable(DecEntry& e, Error& err, const std::string& why) {
  e.pc = ~uint64_t{0};
  err.decode = true;
  err.why = why;
  return nullptr;
}

const isa::Inst* InstructionBuffer::fetch_buffered(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err,
                                                   bool& hit) {
  size_t idx = index(pc);
  DecEntry& e = dcache_[idx];
  // The instruction's bytes, from one line or (straddling a boundary) two.
  uint64_t lb = pc & ~uint64_t(kLine - 1);
  const Line* l0 = line(lb, now, fetches, err);
  if (!l0) return nullptr;
  if (e.pc == pc && e.gen == gen_ && checked_[idx] == launch_gen_) {
    hit = true;
    if (pc - lb + e.inst.size > kLine)  // it straddles: the next line's fill may still be in flight
      if (const int i = find(lb + kLine); i >= 0) now = std::max(now, lines_[unsigned(i)].ready);
    return &e.inst;
  }
  size_t off = pc - lb;
  uint8_t tmp[2 * kLine];
  const uint8_t* p = l0->bytes + off;
  size_t avail = kLine - off;
  if (watch_) p = static_cast<const uint8_t*>(std::memcpy(tmp, p, avail));  // the cache's bytes go over it
  size_t sz = avail < isa::kHeaderBytes ? 0 : watch_ ? look_through(pc, tmp, avail) : isa::size_from_header(p);
  if (avail < isa::kHeaderBytes || (sz && sz > avail)) {
    if (p != tmp) std::memcpy(tmp, p, avail);  // copied first: the second fill may replace this line
    const Line* l1 = line(lb + kLine, now, fetches, err);
    if (!l1) return nullptr;
    std::memcpy(tmp + avail, l1->bytes, kLine);
    p = tmp;
    avail += kLine;
    sz = watch_ ? look_through(pc, tmp, avail) : isa::size_from_header(tmp);
  }
  if (!(e.pc == pc && sz && e.inst.size == sz && std::memcmp(e.bytes, p, sz) == 0)) {
    e.pc = ~uint64_t{0};
    std::string why;
    e.events_known = false;
    if (!isa::decode(p, avail, e.inst, &why)) return undecodable(e, err, why);
    std::memcpy(e.bytes, p, e.inst.size);
    e.pc = pc;
    checked_[idx] = 0;
  }
  e.gen = watch_ ? 0 : gen_;
  return &e.inst;
}

// The instruction at pc as the instruction cache holds it: its bytes there copied over the buffer's
// (`bytes`, `avail` from pc), the header's first (a fault there changes the size), exactly the
// instruction's words (those are the reads a recorded run reports). `avail` >= kHeaderBytes. Returns
// the size its header gives (0: not an instruction).
size_t InstructionBuffer::look_through(uint64_t pc, uint8_t* bytes, size_t avail) {
  const size_t before = std::max(isa::size_from_header(bytes), isa::kHeaderBytes);
  env_.fetch_view(pc, bytes, unsigned(std::min(before, avail)));
  const size_t sz = isa::size_from_header(bytes);
  if (sz > before && before < avail) env_.fetch_view(pc + before, bytes + before, unsigned(std::min(sz, avail) - before));
  return sz;
}

const isa::Inst* InstructionBuffer::fetch_direct(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err) {
  size_t idx = index(pc);
  DecEntry& e = dcache_[idx];
  uint8_t tmp[128];
  unsigned want = e.pc == pc ? e.inst.size : unsigned(isa::kHeaderBytes);
  if (!read(pc, tmp, want, now, fetches, err)) return nullptr;
  if (!(e.pc == pc && std::memcmp(e.bytes, tmp, want) == 0)) {
    std::string why;
    size_t sz = isa::size_from_header(tmp);
    if (sz == 0) {
      e.events_known = false;
      isa::decode(tmp, want, e.inst, &why);
      return undecodable(e, err, why.empty() ? "bad header" : why);
    }
    if (sz != want && !read(pc, tmp, unsigned(sz), now, fetches, err)) return nullptr;
    e.pc = ~uint64_t{0};
    e.events_known = false;
    if (!isa::decode(tmp, sz, e.inst, &why)) return undecodable(e, err, why);
    std::memcpy(e.bytes, tmp, sz);
    e.pc = pc;
    checked_[idx] = 0;
  }
  return &e.inst;
}

}  // namespace gpuvp::sm

namespace gpuvp::sm {

const isa::Inst* InstructionBuffer::decode_into(DecEntry& e, uint64_t pc, const uint8_t* bytes, size_t len, Error& err) {
  if (e.pc == pc && e.inst.size == len && std::memcmp(e.bytes, bytes, len) == 0) return &e.inst;
  ++decodes_;
  e.pc = ~uint64_t{0};
  std::string why;
  e.events_known = false;
  if (!isa::decode(bytes, len, e.inst, &why)) return undecodable(e, err, why);
  std::memcpy(e.bytes, bytes, e.inst.size);
  e.pc = pc;
  checked_[index(pc)] = 0;
  return &e.inst;
}

const isa::Inst* InstructionBuffer::decode_at(uint64_t pc, Error& err, bool& validated) {
  DecEntry& e = dcache_[index(pc)];
  uint8_t tmp[128];
  auto fault = [&] {
    err.decode = false;
    err.addr = pc;
    return nullptr;
  };
  // The usual case, one look: the bytes of the instruction decoded at pc before, unchanged.
  if (e.pc == pc && env_.peek(CoreEnv::Port::Fetch, pc, tmp, e.inst.size, err.fault) &&
      std::memcmp(tmp, e.bytes, e.inst.size) == 0) {
    validated = checked_[index(pc)] == launch_gen_;
    return &e.inst;
  }
  if (!env_.peek(CoreEnv::Port::Fetch, pc, tmp, unsigned(isa::kHeaderBytes), err.fault)) return fault();
  size_t sz = isa::size_from_header(tmp);
  if (sz == 0 || sz > sizeof tmp) return undecodable(e, err, "bad header");
  if (!env_.peek(CoreEnv::Port::Fetch, pc, tmp, unsigned(sz), err.fault)) return fault();
  const isa::Inst* in = decode_into(e, pc, tmp, sz, err);
  validated = in && checked_[index(pc)] == launch_gen_;
  return in;
}

const isa::Inst* InstructionBuffer::fetch_words(uint64_t pc, unsigned bytes, uint64_t& now, uint64_t& fetches,
                                                Error& err, bool& changed, bool& validated) {
  DecEntry& e = dcache_[index(pc)];
  uint8_t tmp[128];
  const unsigned n = std::min<unsigned>(bytes, e.inst.size);
  std::memcpy(tmp, e.bytes, e.inst.size);
  if (!read(pc, tmp, n, now, fetches, err)) return nullptr;
  changed = std::memcmp(tmp, e.bytes, n) != 0;
  if (!changed) return &e.inst;
  const isa::Inst* in = decode_into(e, pc, tmp, e.inst.size, err);
  validated = false;
  return in;
}

}  // namespace gpuvp::sm
