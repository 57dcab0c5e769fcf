// SimtCore in concurrent mode (docs/sm.md, "Concurrent kernels"): blocks of several kernels added one
// at a time (add_block, room_for), each released as soon as its last warp exited (run_blocks, in
// simt_core.cc with the issue loop).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "models/sm/instruction_buffer.h"
#include "models/sm/simt_core.h"

namespace gpuvp {

bool SimtCore::add_block(std::shared_ptr<const LaunchParams> k, uint64_t linear, uint64_t start) {
  if (has_error_) return false;
  if (batch_) clear();  // a finished batch gives way
  const std::string why = unrunnable(*k);
  if (!why.empty()) {
    cur_pc_ = k->entry;
    resource(why);
    error_.launch_id = k->launch_id;
    return false;
  }
  const sm::BlockShape s = sm::block_shape(*k, cfg_.warp_size);
  sm::Placement p;
  if (const char* short_of = occupancy(true).take(s, p)) {
    // Enough in total but in pieces: pack the resident blocks and try again (the SM's resources are
    // counts, as the dispatcher keeps them; contiguity is how this model lays blocks out).
    if (std::strcmp(short_of, "warp slots") != 0 && std::strcmp(short_of, "shared memory") != 0) return false;
    compact();
    if (occupancy(true).take(s, p)) return false;
  }
  const bool empty = resident_blocks() == 0;
  if (empty) {  // nothing points into the files: at least their reserved size, and as many such blocks as fit
    const unsigned n = occupancy(false).room(s);
    const size_t regs = std::max(regfile_.capacity(), n * s.reg_slots);
    const size_t preds = std::max(predfile_.capacity(), n * s.pred_words);
    if (regfile_.size() < regs || predfile_.size() < preds) reset_files(regs, preds);
  }
  // Code of a kernel that was not resident may have been loaded since the buffer filled: refetch.
  if (empty || std::none_of(blocks_.begin(), blocks_.end(),
                            [&](const Block& b) { return b.lp && b.lp->launch_id == k->launch_id; }))
    ibuf_->new_launch();
  if (regfile_.size() < p.reg_base + s.reg_slots || predfile_.size() < p.pred_base + s.pred_words)
    grow_files(std::max(regfile_.size() * 2, p.reg_base + s.reg_slots),
               std::max(predfile_.size() * 2, p.pred_base + s.pred_words));
  warp_slots(p.first_warp + s.wpb);
  place_block(std::move(k), s, p, linear, start);
  if (empty) start_schedulers(start);  // the schedulers' cycles count while the SM holds blocks
  return true;
}

// Packs the resident blocks' warp slots and shared memory from 0, keeping their order. A moved warp
// has a new %warpid, which PTX allows (%warpid may change during execution); shared addresses are
// relative to the block, so its threads see the same data.
void SimtCore::compact() {
  std::vector<unsigned> order;
  for (unsigned j = 0; j < blocks_.size(); ++j)
    if (blocks_[j].lp) order.push_back(j);
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return blocks_[a].first_warp < blocks_[b].first_warp; });
  std::vector<Warp> packed;
  std::vector<unsigned> moved_to(warps_.size(), 0);
  std::vector<std::pair<unsigned, unsigned>> moves;  // (from slot, to slot) of the warps that moved
  for (unsigned j : order) {
    Block& b = blocks_[j];
    for (unsigned k = 0; k < b.nwarps; ++k) {
      packed.push_back(warps_[b.first_warp + k]);
      packed.back().id = moved_to[b.first_warp + k] = unsigned(packed.size() - 1);
      if (b.first_warp + k != packed.back().id) moves.emplace_back(b.first_warp + k, packed.back().id);
      warps_[b.first_warp + k].rstack = nullptr;  // moved with the warp
    }
    b.first_warp = unsigned(packed.size()) - b.nwarps;
  }
  for (Warp& w : warps_) free_warp(w);
  warps_.swap(packed);
  note_issue_all();
  for (PendingLoad& p : pending_) p.warp = moved_to[p.warp];  // their data follows the warp
  if (recording()) note_warp_slots_moved();
  if (recording()) note_warps_moved(moves);
  reset_picks();  // warps changed slots, and with them schedulers
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return blocks_[a].smem_base < blocks_[b].smem_base; });
  uint32_t next = 0;
  for (unsigned j : order) {  // ascending: every region moves down, never over one not yet moved
    Block& b = blocks_[j];
    if (recording() && next != b.smem_base) {  // its bytes read at their old place, written at the new
      note_smem(b.smem_base, b.k.stride, Access::Read, outside_access_ps());
      note_smem(next, b.k.stride, Access::Write, outside_access_ps());
    }
    std::memmove(smem_.data() + next, smem_.data() + b.smem_base, b.k.stride);
    b.smem_base = next;
    next += b.k.stride;
  }
}

// The register and predicate files are simulator storage, not a limit of the SM (the occupancy counts
// its registers): when blocks of kernels with more register slots need more, the files grow and the
// resident warps point into the new storage (nothing else holds pointers into them between blocks).
void SimtCore::grow_files(size_t reg_slots, size_t pred_words) {
  regfile_.resize(reg_slots, 0);
  reg_rows_dirty_.resize((reg_slots + 31) / 32, 0);
  predfile_.resize(pred_words, 0);
  for (const Block& b : blocks_) {
    if (!b.lp) continue;
    for (unsigned k = 0; k < b.nwarps; ++k) {
      Warp& w = warps_[b.first_warp + k];
      w.regs = regfile_.data() + b.reg_base + size_t(k) * b.lp->num_regs * 32;
      w.preds = predfile_.data() + b.pred_base + size_t(k) * std::max(b.lp->num_preds, 1u);
    }
  }
}

const char* SimtCore::short_of(const LaunchParams& k) const {
  sm::Placement p;
  return occupancy(true, true).take(sm::block_shape(k, cfg_.warp_size), p);
}

// As add_block sees it: blocks packed when room is in pieces (compact), so the free totals count.
unsigned SimtCore::room_for(const LaunchParams& k) const {
  if (has_error_ || !unrunnable(k).empty()) return 0;
  return occupancy(true, true).room(sm::block_shape(k, cfg_.warp_size));
}

// Why no SM of this configuration runs a block of kernel k in concurrent mode ("" when one may).
std::string SimtCore::unrunnable(const LaunchParams& k) const {
  std::string why = block_limits(k);
  if (!why.empty()) return why;
  const sm::BlockShape s = sm::block_shape(k, cfg_.warp_size);
  why = memory_limits(k, s);
  if (!why.empty()) return why;
  if (pipe_) return "flexgrip timing runs batches only";
  sm::Placement p;
  if (const char* short_of = occupancy(false).take(s, p))
    return fmt::format("a block of {} threads needs more {} than the SM has", s.threads, short_of);
  return "";
}

// The SM's limits, and the resources its resident blocks use (with_resident; a batch is left out:
// add_block drops it). The register and predicate files grow as needed, so their size does not limit.
sm::Occupancy SimtCore::occupancy(bool with_resident, bool packed) const {
  const bool empty = !with_resident || batch_ || resident_blocks() == 0;
  sm::Occupancy::Limits l;
  l.blocks = cfg_.max_blocks;
  l.warps = max_warps();
  l.threads = cfg_.max_threads;
  l.regs32 = cfg_.registers;
  l.smem = smem_.size();
  l.reg_slots = SIZE_MAX;  // storage grows as blocks need it (grow_files)
  l.pred_words = SIZE_MAX;
  sm::Occupancy o(l);
  unsigned warp = 0;
  uint32_t smem = 0;
  for (unsigned j = 0; j < blocks_.size() && !empty; ++j) {
    const Block& b = blocks_[j];
    if (!b.lp) continue;
    o.add(b.k, sm::Placement{j, packed ? warp : b.first_warp, b.reg_base, b.pred_base, packed ? smem : b.smem_base});
    warp += b.nwarps;  // where compact() would put it
    smem += b.k.stride;
  }
  return o;
}

std::vector<SimtCore::Completed> SimtCore::take_completed() {
  std::vector<Completed> done;
  done.swap(completed_);
  return done;
}

unsigned SimtCore::resident_blocks() const {
  return unsigned(std::count_if(blocks_.begin(), blocks_.end(), [](const Block& b) { return b.lp != nullptr; }));
}

std::vector<SimtCore::BlockTimes> SimtCore::block_times() const {
  std::vector<BlockTimes> v;
  for (const Block& b : blocks_)
    if (b.lp) v.push_back(BlockTimes{b.linear, b.start, b.end});
  return v;
}

// Makes warps_ reach slot `top` (exclusive); the new slots are free.
void SimtCore::warp_slots(size_t top) {
  size_t n = warps_.size();
  if (top <= n) return;
  warps_.resize(top);
  for (size_t i = n; i < top; ++i) free_warp(warps_[i]);
  note_issue_all();
}

void SimtCore::note_issue_all() {
  issue_at_.resize(warps_.size());
  for (size_t i = 0; i < warps_.size(); ++i) issue_at_[i] = warps_[i].issue_at();
}

// A free warp slot: exited, so no scheduler picks it, and in no block.
void SimtCore::free_warp(Warp& w) {
  delete[] w.rstack;
  w = Warp{};
  w.state = Warp::Exited;
}

// Frees block slot j: its warp slots (the trailing free ones leave warps_), local memory and kernel.
// Its registers keep their values until a block reuses them (place_block zeroes them).
void SimtCore::release_block(unsigned j) {
  Block& b = blocks_[j];
  if (recording())  // (a batch's were closed when it ended)
    for (unsigned k = 0; k < b.nwarps; ++k) close_state_span(b.first_warp + k, core_now_ps());
  for (unsigned k = 0; k < b.nwarps; ++k) free_warp(warps_[b.first_warp + k]);
  b.kernel.reset();
  b.lp = nullptr;
  b.local = {};
  size_t top = warps_.size();
  while (top && warps_[top - 1].block == Warp::kNoBlock) --top;
  warps_.resize(top);
  note_issue_all();
  for (Sched& sc : sched_)
    if (sc.last >= int(top)) sc.last = -1;  // round robin goes on from slot 0 either way
}

}  // namespace gpuvp
