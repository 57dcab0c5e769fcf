// The SIMT core's architectural state in the registry (fault targets, docs/sm.md "Registered state").
// Blocks come and go, so every accessor looks the state up when it is called; a word beyond the
// register file's current size or of a free warp slot reads 0 and ignores writes (an unused register
// is still there in hardware, and a flip in it changes nothing).
#include <fmt/format.h>

#include "models/common/digest.h"
#include "models/common/registry.h"
#include "models/sm/simt_core.h"

namespace gpuvp {

namespace {
constexpr unsigned kPcBits = 40;  // code addresses live below 2^40 (isa.h)

Target memory(std::string name, unsigned width, uint64_t count, std::function<uint64_t(uint64_t)> get,
              std::function<void(uint64_t, uint64_t)> set) {
  Target t;
  t.name = std::move(name);
  t.kind = TargetKind::Memory;
  t.width = width;
  t.count = count;
  t.get = std::move(get);
  t.set = std::move(set);
  return t;
}

Target reg32(std::string name, unsigned width, std::function<uint64_t()> get, std::function<void(uint64_t)> set) {
  Target t;
  t.name = std::move(name);
  t.width = width;
  t.get = [g = std::move(get)](uint64_t) { return g(); };
  t.set = [s = std::move(set)](uint64_t, uint64_t v) { s(v); };
  return t;
}
}  // namespace

uint64_t SimtCore::timing_hash() const {
  uint64_t h = word_digest(1, now_ + 1);
  for (const Warp& w : warps_) h = word_digest(h, w.ready + 1) ^ (h << 1);
  if (pipe_) h = pipe_->hash(word_digest(h, fg_last_ + 1));
  for (const Sched& sc : sched_) {  // issue timing: when each scheduler and its units are free again
    h = word_digest(h, sc.free + 1) ^ word_digest(uint64_t(sc.pinned + 2), uint64_t(sc.last + 2));
    for (uint64_t b : sc.busy) h = word_digest(h, b + 1) ^ (h << 1);
  }
  for (const PendingLoad& p : pending_) {  // loads in flight: their data lands later
    h = word_digest(h, p.done + 1) ^ word_digest(p.warp + 1, p.mask);
    for (unsigned i = 0; i < p.n; ++i)
      for (uint64_t v : p.vals[i]) h = word_digest(h, v + p.regs[i]) ^ (h << 1);
  }
  // Data in flight: while an instruction waits for its memory transactions, its lane addresses
  // and data wait here. Between instructions these buffers hold leftovers no one reads.
  if (!in_step_) return h;
  h ^= word_digest(2, cur_pc_ + 1);
  for (uint64_t a : addr_) h = word_digest(h, a + 1) ^ (h >> 3);
  for (const auto& lane : buf_)
    for (uint8_t b : lane) h = word_digest(h, b + 1u) ^ (h << 2);
  return h;
}

unsigned SimtCore::max_warps() const { return cfg_.max_threads / std::max(1u, cfg_.warp_size); }

void SimtCore::register_state(Registry& reg, const std::string& path) {
  // State comparisons read the storage directly (a call per word would dominate them).
  auto hash_words = [](const auto& v) { return digest_nonzero(v.data(), v.size()); };
  // Its cycles are absolute: at the common instant of a comparison, as good as relative to it.
  reg.add_timing(path, [this](uint64_t) { return timing_hash(); });
  // Register file: sm.registers 32-bit words; 64-bit slot s of the register file is words 2s (low
  // half) and 2s+1 (high half). Slots are block by block, warp-major in a block: warp k of a block
  // whose storage starts at slot base, register k, lane l is slot base + (k * num_regs + r) * 32 + l;
  // a batch's blocks lie one after another, so warp w is at (w * num_regs + r) * 32 + l.
  reg.add(memory(
      path + ".regs", 32, cfg_.registers,
      [this](uint64_t i) { return i / 2 < regfile_.size() ? (regfile_[i / 2] >> (32 * (i % 2))) & 0xFFFFFFFFu : 0; },
      [this](uint64_t i, uint64_t v) {
        if (i / 2 >= regfile_.size()) return;
        reg_rows_dirty_[i / 64] = 1;  // not known to be zero any more (slot i / 2, row of 32 slots)
        const unsigned sh = 32 * (i % 2);
        regfile_[i / 2] = (regfile_[i / 2] & ~(uint64_t{0xFFFFFFFFu} << sh)) | ((v & 0xFFFFFFFFu) << sh);
      }));
  reg.at_mut(path + ".regs").digest = [this, hash_words] { return hash_words(regfile_); };
  // Predicate registers: one lane mask per (warp slot, predicate slot), warp-major.
  reg.add(memory(
      path + ".preds", 32, uint64_t(max_warps()) * kPredSlotsPerWarp,
      [this](uint64_t i) { return pred_word(i) ? *pred_word(i) : 0; },
      [this](uint64_t i, uint64_t v) {
        if (uint32_t* p = pred_word(i)) *p = uint32_t(v);
      }));
  reg.at_mut(path + ".preds").digest = [this, hash_words] { return hash_words(predfile_); };
  // Every read and write of both is reported while the registry records (simt_core_access.cc).
  acc_reg_ = &reg;
  for (const char* name : {".regs", ".preds"}) reg.at_mut(path + name).reads_observed = true;
  t_regs_ = &reg.at_mut(path + ".regs");
  t_preds_ = &reg.at_mut(path + ".preds");
  if (reg.contains(path + ".smem")) {  // registered by the SM around the core (sm.cc)
    t_smem_ = &reg.at_mut(path + ".smem");
    t_smem_->reads_observed = true;
  }
  t_warps_.assign(max_warps(), WarpTargets{});
  state_span_from_.assign(max_warps(), kNoSpan);
  for (unsigned w = 0; w < max_warps(); ++w) register_warp(reg, fmt::format("{}.warp[{}]", path, w), w);
}

uint32_t* SimtCore::pred_word(uint64_t i) {
  Warp* w = warp_in_use(i / kPredSlotsPerWarp);
  const uint64_t k = i % kPredSlotsPerWarp;
  if (!w || k >= std::max(blocks_[w->block].lp->num_preds, 1u)) return nullptr;
  return w->preds + k;
}

Warp* SimtCore::warp_in_use(uint64_t w) {
  return w < warps_.size() && warps_[w].block != Warp::kNoBlock ? &warps_[w] : nullptr;
}

// A warp's SIMT state: its divergence groups (PC and lane mask each; the frontier group, lowest
// PC, is the warp's PC and active mask, the others its reconvergence state), the group count, the
// live lanes and the scheduling state.
void SimtCore::register_warp(Registry& reg, const std::string& p, unsigned w) {
  auto warp = [this, w]() -> Warp* { return warp_in_use(w); };
  reg.add(memory(
      p + ".group_pc", kPcBits, 32, [warp](uint64_t g) { return warp() ? warp()->groups[g].pc : 0; },
      [warp](uint64_t g, uint64_t v) {
        if (warp()) warp()->groups[g].pc = v;
      }));
  reg.add(memory(
      p + ".group_mask", 32, 32, [warp](uint64_t g) { return warp() ? warp()->groups[g].mask : 0; },
      [warp](uint64_t g, uint64_t v) {
        if (warp()) warp()->groups[g].mask = uint32_t(v);
      }));
  // Six bits hold 0..32 groups; a value beyond the 32 entries saturates at 32.
  reg.add(reg32(
      p + ".ngroups", 6, [warp] { return warp() ? warp()->ngroups : 0; },
      [warp](uint64_t v) {
        if (warp()) warp()->ngroups = unsigned(std::min<uint64_t>(v, 32));
      }));
  reg.add(reg32(
      p + ".live", 32, [warp] { return warp() ? warp()->live : 0; },
      [warp](uint64_t v) {
        if (warp()) warp()->live = uint32_t(v);
      }));
  // 0 ready, 1 at a barrier, 2 exited (3 reads as exited).
  reg.add(reg32(
      p + ".state", 2, [warp] { return warp() ? uint64_t(warp()->state) : 0; },
      [this, warp](uint64_t v) {
        if (!warp()) return;
        warp()->state = v >= 2 ? Warp::Exited : Warp::State(v);
        note_issue(*warp());
      }));
  // Every read and write of these is reported too (simt_core_warp_access.cc).
  WarpTargets& t = t_warps_[w];
  Target** slots[] = {&t.pc, &t.mask, &t.ngroups, &t.live, &t.state};
  const char* names[] = {".group_pc", ".group_mask", ".ngroups", ".live", ".state"};
  for (size_t i = 0; i < 5; ++i) {
    *slots[i] = &reg.at_mut(p + names[i]);
    (*slots[i])->reads_observed = true;
  }
}

}  // namespace gpuvp
