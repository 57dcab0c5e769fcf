#include "models/sm/block_room.h"

#include <algorithm>

#include "models/sm/simt_core.h"

namespace gpuvp::sm {

BlockShape block_shape(const LaunchParams& lp, unsigned warp_size) {
  BlockShape s;
  s.threads = uint32_t(uint64_t(lp.block[0]) * lp.block[1] * lp.block[2]);
  s.wpb = (s.threads + warp_size - 1) / warp_size;
  s.user_off = user_region_offset(uint32_t(lp.params.size()));
  s.user_bytes = lp.static_shared + lp.dyn_shared;
  const uint64_t need = uint64_t(s.user_off) + s.user_bytes;
  s.stride = std::max<uint32_t>(lp.smem_per_block, uint32_t((need + 255) / 256 * 256));
  s.regs32 = uint64_t(lp.regs_per_thread) * s.threads;
  s.reg_slots = size_t(s.wpb) * lp.num_regs * 32;
  s.pred_words = size_t(s.wpb) * std::max(lp.num_preds, 1u);
  return s;
}

OccupancyLimit occupancy_limit(const BlockShape& s, const SmResources& r) {
  const struct {
    uint64_t have, need;
    const char* name;
  } res[] = {{r.blocks, 1, "blocks"},
             {r.warp_slots, s.wpb, "warp_slots"},
             {r.threads, s.threads, "threads"},
             {r.regs32, s.regs32, "registers"},
             {r.smem, s.stride, "shared_memory"}};
  OccupancyLimit l{~0u, ""};
  for (const auto& x : res) {
    if (x.need == 0) continue;
    const uint64_t n = x.have / x.need;
    if (n < l.blocks) l = {unsigned(n), x.name};
  }
  return l;
}

void Occupancy::add(const BlockShape& s, const Placement& p) {
  if (p.slot < slot_used_.size()) slot_used_[p.slot] = true;
  ++blocks_;
  threads_ += s.threads;
  regs32_ += s.regs32;
  warps_.push_back({p.first_warp, s.wpb});
  smem_.push_back({p.smem_base, s.stride});
  regs_.push_back({p.reg_base, s.reg_slots});
  preds_.push_back({p.pred_base, s.pred_words});
}

const char* Occupancy::take(const BlockShape& s, Placement& p) {
  if (blocks_ >= lim_.blocks) return "block slots";
  if (threads_ + s.threads > lim_.threads) return "threads";
  if (regs32_ + s.regs32 > lim_.regs32) return "registers";
  uint64_t warp = 0, smem = 0, reg = 0, pred = 0;
  if (!first_fit(warps_, s.wpb, lim_.warps, warp)) return "warp slots";
  if (!first_fit(smem_, s.stride, lim_.smem, smem)) return "shared memory";
  if (!first_fit(regs_, s.reg_slots, lim_.reg_slots, reg)) return "register file";
  if (!first_fit(preds_, s.pred_words, lim_.pred_words, pred)) return "predicate file";
  p.slot = unsigned(std::find(slot_used_.begin(), slot_used_.end(), false) - slot_used_.begin());
  p.first_warp = unsigned(warp);
  p.smem_base = uint32_t(smem);
  p.reg_base = size_t(reg);
  p.pred_base = size_t(pred);
  add(s, p);
  return nullptr;
}

unsigned Occupancy::room(const BlockShape& s) const {
  Occupancy o = *this;
  Placement p;
  unsigned n = 0;
  while (!o.take(s, p)) ++n;  // each take uses a block slot: at most lim_.blocks turns
  return n;
}

bool Occupancy::first_fit(std::vector<Range>& used, uint64_t size, uint64_t capacity, uint64_t& at) {
  std::sort(used.begin(), used.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  at = 0;
  for (const Range& r : used) {
    if (r.begin >= at + size) break;  // the hole before r is large enough
    at = std::max(at, r.begin + r.size);
  }
  return at + size <= capacity;
}

}  // namespace gpuvp::sm
