#include "models/scheduler/sm_room.h"

#include <algorithm>

namespace gpuvp {

SmRoom::SmRoom(Registry& reg, const std::string& path, unsigned sms, const SmLimits& limits)
    : lim_(limits), threads_(sms), smem_(sms), regs_(sms), blocks_(sms) {
  reg.add_array(path + ".used_threads", 32, threads_.data(), sms);
  reg.add_array(path + ".used_smem", 32, smem_.data(), sms);
  reg.add_array(path + ".used_regs", 32, regs_.data(), sms);
  reg.add_array(path + ".used_blocks", 32, blocks_.data(), sms);
}

namespace {
// How many `need`s fit in what is left of `limit` after `used` (a corrupted counter above the limit: none).
uint32_t fits(uint32_t limit, uint32_t used, uint32_t need) {
  if (used >= limit) return 0;
  return need ? (limit - used) / need : UINT32_MAX;
}
}  // namespace

uint32_t SmRoom::room(unsigned sm, const BlockNeeds& b) const {
  uint32_t n = fits(lim_.blocks, blocks_[sm], 1);
  n = std::min(n, fits(lim_.threads, threads_[sm], b.threads));
  n = std::min(n, fits(lim_.smem, smem_[sm], b.smem));
  return std::min(n, fits(lim_.regs, regs_[sm], b.regs));
}

int SmRoom::place(const BlockNeeds& b, uint64_t allowed) const {
  int best = -1;
  uint32_t most = 0;
  for (unsigned i = 0; i < sms(); ++i)
    if (uint32_t r = room(i, b); (allowed >> i & 1) && r > most) most = r, best = int(i);
  return best;
}

void SmRoom::take(unsigned sm, const BlockNeeds& b) {
  threads_[sm] += b.threads;
  smem_[sm] += b.smem;
  regs_[sm] += b.regs;
  blocks_[sm] += 1;
}

// Saturating: a counter a fault lowered must not wrap to "full for ever".
void SmRoom::give(unsigned sm, const BlockNeeds& b) {
  auto sub = [](uint32_t& v, uint32_t d) { v = v > d ? v - d : 0; };
  sub(threads_[sm], b.threads);
  sub(smem_[sm], b.smem);
  sub(regs_[sm], b.regs);
  sub(blocks_[sm], 1);
}

uint32_t SmRoom::capacity(const BlockNeeds& b) const {
  uint32_t n = lim_.blocks;
  n = std::min(n, fits(lim_.threads, 0, b.threads));
  n = std::min(n, fits(lim_.smem, 0, b.smem));
  return std::min(n, fits(lim_.regs, 0, b.regs));
}

}  // namespace gpuvp
