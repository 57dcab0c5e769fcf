// SimtCore with FlexGripPlus pipeline timing (sm.timing = flexgrip): an instruction executes when
// the scheduler issues it, and its lane groups pass the stages as flexgrip_pipeline.h describes; the
// memory phase of a global access runs its transactions, thread after thread, inside the stage.
#include <algorithm>

#include "models/sm/exec.h"
#include "models/sm/inst_class.h"
#include "models/sm/instruction_buffer.h"

namespace gpuvp {

using namespace isa;

void SimtCore::step_flexgrip(Warp& w, unsigned gi, uint64_t pc) {
  const Inst* in = nullptr;
  if (!fg_fetch(w, pc, in)) return;
  fg_.packets_run = fg_.costs.folded;
  fg_.global = 0;
  done_at_ = now_;
  const bool ok = execute(w, gi, *in, pc, sm::classify(*in).cls);
  if (!ok || has_error_ || fg_.packets_run) return;
  if (fg_packets(w)) w.ready = std::max(w.ready, done_at_);  // nanosleep, atomics at the memory
}

// Scheduler and fetch stages of lane group 0: the decoded instruction (its costs in fg_.costs), then
// the soft GPU's one or two instruction words over the bus. A folded instruction takes neither.
bool SimtCore::fg_fetch(Warp& w, uint64_t pc, const Inst*& in) {
  sm::FetchError err;
  bool validated = false;
  in = ibuf_->decode_at(pc, err, validated);
  if (!in) return fetched(w, pc, in, err, validated) != nullptr;
  fg_.costs = fg_costs_of(*in);
  if (!fg_.costs.folded) {
    fg_.first = sm::FlexgripPipeline::Cursor{now_, 0};
    pipe_->run(fg_.first, fg_.costs.first, sm::kFetch);
    uint64_t t = pipe_->start(fg_.first) + 1;  // IDLE puts the word address out
    bool changed = false;
    const unsigned words = fg_.costs.words;
    in = ibuf_->fetch_words(pc, 4 * words, t, stats_.fetches, err, changed, validated);
    if (in && changed) {  // the bus brought other bits: time what arrived, as fetched
      fg_.costs = sm::flexgrip_costs(*in, packets_, cfg_.fold_operands);
      fg_.costs.folded = false;
      fg_.costs.words = words;
    }
    pipe_->finish(fg_.first, t + 1);  // STALL hands the instruction to decode
  }
  in = fetched(w, pc, in, err, validated);
  return in != nullptr;
}

const sm::FgCosts& SimtCore::fg_costs_of(const isa::Inst& in) {
  if (fg_costs_decodes_ != ibuf_->decodes()) {
    fg_costs_decodes_ = ibuf_->decodes();
    for (FgCostsEntry& e : fg_costs_cache_) e.in = nullptr;
  }
  const uint64_t h = (reinterpret_cast<uintptr_t>(&in) >> 3) * 0x9E3779B97F4A7C15ull;
  FgCostsEntry& e = fg_costs_cache_[h >> 56];
  if (e.in != &in) {
    e.in = &in;
    e.costs = sm::flexgrip_costs(in, packets_, cfg_.fold_operands);
  }
  return e.costs;
}

// Every lane group of the instruction in flight through the stages; the warp may issue again when
// the last one leaves the warp checker.
bool SimtCore::fg_packets(Warp& w) {
  const sm::FgCosts& k = fg_.costs;
  fg_.packets_run = true;
  sm::FlexgripPipeline::Cursor c = fg_.first;
  for (unsigned j = 0; j < packets_; ++j) {
    const sm::FgPacket& p = j ? k.rest : k.first;
    if (j) c = sm::FlexgripPipeline::Cursor{now_, 0};
    pipe_->run(c, p, k.mem_stage);
    if (k.mem_stage < sm::kFgStages) {
      uint64_t t = pipe_->start(c) + p.mem_before;
      if (!fg_threads(w, j, t)) return false;
      pipe_->finish(c, t + p.o[k.mem_stage] - p.mem_before);
      pipe_->run(c, p, sm::kFgStages);
    }
  }
  const uint64_t done = c.t;
  now_ = pipe_->free_at(sm::kSched);
  fg_last_ = std::max(fg_last_, done);
  w.ready = std::max(w.ready, done);
  Block& b = blocks_[w.block];
  if (w.state == Warp::Exited && b.live_warps == 0) b.end = std::max(b.end, done);
  return true;
}

// The memory phase of lane group `group` from cycle t: each of its threads in turn, a word at a
// time through the byte-wide controller (a transaction for global lanes, the on-chip memory's own
// cycles otherwise); a masked-off thread costs a cycle.
bool SimtCore::fg_threads(Warp& w, unsigned group, uint64_t& t) {
  const unsigned words = fg_.costs.mem_words, sps = std::max(1u, cfg_.sps);
  const unsigned wsize = std::min(fg_.size ? fg_.size : 4u, 4u);
  const unsigned onchip = words * (sm::kFgThreadEnable + wsize + 1 + sm::kFgThreadDetect);
  for (unsigned l = group * sps; l < std::min((group + 1) * sps, 32u); ++l) {
    const uint32_t bit = 1u << l;
    if (!(fg_.active & bit)) {
      t += sm::kFgMaskedThread;
      continue;
    }
    if (!(fg_.global & bit)) {
      t += onchip;
      continue;
    }
    for (unsigned i = 0; i * wsize < fg_.size; ++i) {
      CoreEnv::Fault f;
      uint64_t a = addr_[l] + i * wsize;
      uint64_t r = env_.access(fg_.port, a, buf_[l] + i * wsize, wsize, fg_.write, nullptr, t + sm::kFgThreadEnable, f);
      ++stats_.mem_transactions;
      if (r == CoreEnv::kFail) return fault_at(f, w, int(l), a);
      t = r + sm::kFgThreadDetect;
    }
  }
  return true;
}

// Global or constant lanes of a load or store: their transactions run in the memory phase of the
// lane groups.
bool SimtCore::fg_memory(Warp& w, uint32_t m, unsigned size, bool write, CoreEnv::Port port) {
  fg_.global = m;
  fg_.size = size;
  fg_.write = write;
  fg_.port = port;
  if (fg_.costs.mem_stage == sm::kFgStages) {  // a broadcast read (c[imm]): the read stage runs it
    fg_.costs.mem_stage = sm::kRead;
    fg_.costs.first.mem_before = fg_.costs.rest.mem_before = 0;
  }
  return fg_packets(w);
}

}  // namespace gpuvp
