#pragma once
// Instruction buffer and decode cache of the SIMT core (docs/sm.md, "Instruction fetch").
// Buffer: kLine-byte lines, fully associative, least recently used line replaced; a miss is one
// fetch transaction of a line. Decoded instructions are cached by PC and revalidated (byte compare)
// after every line fill, so code faults take effect. The buffer's lines are copies of the instruction
// cache's: once an injection has written the cache (watch) or while its reads are recorded, every
// fetch reads the instruction's bytes through the cache as well (CoreEnv::fetch_view, no time) and
// decodes them again when they differ, so a fault in a cached line reaches decode as the cache
// delivers it (a line refilled meanwhile has lost it); a fetch repeating one under the same view of
// the cache (CoreEnv::fetch_view_key: while recording, warps fetching one instruction at one instant)
// reads it once (fetch_viewed). With no buffer (ibuf_insts = 0) every executed
// instruction is one fetch transaction (two the first time its PC is seen, to learn the size).
#include <cstdint>
#include <string>
#include <vector>

#include "models/sm/inst_class.h"
#include "models/sm/simt_core.h"
#include "sw/isa/isa.h"

namespace gpuvp::sm {

class InstructionBuffer {
 public:
  static constexpr unsigned kLine = 128;
  using Error = FetchError;  // simt_core.h

  InstructionBuffer(unsigned ibuf_insts, CoreEnv& env);
  // A new batch: the loader may have rewritten code, every line is refetched, every decoded
  // instruction is validated again.
  void new_launch();
  // The instruction cache was written by an injection: every fetch from now on reads through it.
  void watch() {
    watch_ = true;
    ++gen_;  // no decoded entry is taken without a look at the cache's bytes
  }
  // The decoded instruction at pc, fetching (from cycle `now`, advanced to the completion of the
  // transactions; `fetches` counts them) and decoding as needed; nullptr with `err` on failure.
  // `validated`: the instruction was already validated in this launch (see mark_validated).
  const isa::Inst* fetch(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err, bool& validated);
  // FlexGripPlus fetch (sm.timing = flexgrip). decode_at: the decoded instruction at pc, its
  // encoding read without bus time. fetch_words: the bus transaction of its first `bytes` (the
  // soft GPU's 32- or 64-bit instruction) from cycle `now` (advanced to its completion); bytes that
  // differ from the decoded ones (a bus fault) are decoded again (`changed`).
  const isa::Inst* decode_at(uint64_t pc, Error& err, bool& validated);
  const isa::Inst* fetch_words(uint64_t pc, unsigned bytes, uint64_t& now, uint64_t& fetches, Error& err,
                               bool& changed, bool& validated);
  // Whether fetch(pc) at cycle `now` takes no time: the lines holding the instruction are buffered
  // and filled by then.
  bool resident(uint64_t pc, uint64_t now) const;
  // Instructions decoded so far: a decoded isa::Inst (at its address) stays as it is until this changes.
  uint64_t decodes() const { return decodes_; }
  // Records that the instruction fetch just returned for pc passed the launch's checks.
  void mark_validated(uint64_t pc) { checked_[index(pc)] = launch_gen_; }
  // The energy events of `in` (of class `cls`), the instruction a fetch returned for pc (power_events):
  // worked out once per decode, the power accounting asks for every warp instruction.
  const power::ActivityLog::InstEvents& power_events(uint64_t pc, const isa::Inst& in, InstClass cls) {
    DecEntry& e = dcache_[index(pc)];
    if (&e.inst != &in) {  // not this buffer's decode
      other_ = sm::power_events(in, cls);
      return other_;
    }
    if (!e.events_known) {
      e.events = sm::power_events(in, cls);
      e.events_known = true;
    }
    return e.events;
  }

 private:
  struct Line {
    uint64_t base = ~uint64_t{0};  // line address, ~0 = empty
    uint64_t used = 0;             // LRU stamp
    uint64_t ready = 0;            // cycle its fill completes: a fetch hitting it earlier waits until then
    uint8_t bytes[kLine];
  };
  struct DecEntry {
    uint64_t pc = ~uint64_t{0};
    uint64_t gen = 0;              // fill generation this entry was last validated against
    isa::Inst inst;
    uint8_t bytes[128];
    power::ActivityLog::InstEvents events;  // of inst, once events_known (cleared whenever inst is decoded again)
    bool events_known = false;
    // The view a watched fetch last read it through (CoreEnv::fetch_view_key) and the buffer's fill
    // and decode counts then (fetch_viewed).
    struct Seen {
      CoreEnv::ViewKey key;
      uint64_t gen = 0, decodes = 0;
    } seen;
  };
  static constexpr size_t kDecoded = 4096;  // decoded-instruction entries, a power of two
  size_t index(uint64_t pc) const { return (pc >> 2) & (kDecoded - 1); }
  const Line* buffered_line(uint64_t base, uint64_t now) const;
  // The line holding `base`, fetched on a miss; nullptr after a fault (err).
  const Line* line(uint64_t base, uint64_t& now, uint64_t& fetches, Error& err);
  const isa::Inst* fetch_buffered(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err, bool& hit);
  const isa::Inst* fetch_direct(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err);
  bool read(uint64_t addr, uint8_t* data, unsigned len, uint64_t& now, uint64_t& fetches, Error& err);
  const isa::Inst* undecodable(DecEntry& e, Error& err, const std::string& why);
  const isa::Inst* decode_into(DecEntry& e, uint64_t pc, const uint8_t* bytes, size_t len, Error& err);
  size_t look_through(uint64_t pc, uint8_t* bytes, size_t avail);
  const isa::Inst* fetch_viewed(uint64_t pc, uint64_t& now, uint64_t& fetches, Error& err);

  CoreEnv& env_;
  const bool buffered_;
  std::vector<Line> lines_;
  unsigned mru_ = 0;
  // The line that last held each base modulo kHints lines: a lookup tries it before scanning every
  // line (with several warp schedulers the most recent line is often another warp's).
  static constexpr unsigned kHints = 64;
  unsigned hint_[kHints] = {};
  static unsigned hint_slot(uint64_t base) { return unsigned(base / kLine % kHints); }
  int find(uint64_t base) const;  // the index of the line holding base, -1 when none
  uint64_t clock_ = 0;
  uint64_t decodes_ = 0;
  uint64_t gen_ = 1;                // bumped on every fill: decoded entries re-check their bytes
  // Every fetch reads through the instruction cache (see the header); its entries keep gen 0 then,
  // so the hit path, unchanged, never takes them.
  bool watch_ = false;
  std::vector<DecEntry> dcache_;    // kDecoded entries
  power::ActivityLog::InstEvents other_;  // power_events() of an instruction not decoded here
  uint64_t launch_gen_ = 0;         // register bounds are checked once per launch per entry
  std::vector<uint64_t> checked_;   // per dcache entry: launch_gen_ it was validated for
};

}  // namespace gpuvp::sm
