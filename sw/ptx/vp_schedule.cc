// Vulnerable-period-aware scheduling: bottom-up from each block's last instruction, every producer
// moves down towards its first consumer, as far as the movement conditions (vp_conditions.h) let it.
// A producer whose value leaves the block moves to the block's end. A move passes only instructions
// that neither read nor write what the producer writes or reads (memory included) and no fence, so
// the block computes what it computed.
#include <algorithm>
#include <stdexcept>

#include "sw/ptx/schedule.h"
#include "sw/ptx/vp_conditions.h"

namespace gpuvp::ptx {

namespace {

// The first instruction after `i` that reads a value `i` writes, or `end` if none before it.
size_t first_consumer(const std::vector<vp::Access>& acc, size_t i, size_t end) {
  for (size_t k = i + 1; k < end; ++k)
    for (uint32_t v : acc[i].writes)
      if (std::find(acc[k].reads.begin(), acc[k].reads.end(), v) != acc[k].reads.end()) return k;
  return end;
}

// Moves the instruction at `i` to just before `pos` (i < pos) in both the body and its facts.
void move_down(Function& f, std::vector<vp::Access>& acc, size_t i, size_t pos) {
  std::rotate(f.body.begin() + long(i), f.body.begin() + long(i) + 1, f.body.begin() + long(pos));
  std::rotate(acc.begin() + long(i), acc.begin() + long(i) + 1, acc.begin() + long(pos));
}

void schedule_block(Function& f, std::vector<vp::Access>& acc, const vp::Cfg& cfg, size_t b) {
  const size_t begin = cfg.block_begin[b], end = cfg.block_end(b);
  for (size_t i = end; i-- > begin;) {
    if (acc[i].writes.empty() || acc[i].fence) continue;
    const size_t to = first_consumer(acc, i, end);
    const size_t pos = vp::first_blocker({acc, cfg}, i, to);
    if (pos > i + 1) move_down(f, acc, i, pos);
  }
}

void schedule_function(Function& f) {
  std::vector<vp::Access> acc = vp::accesses(f);
  const vp::Cfg cfg = vp::analyse(f, acc);
  for (size_t b = 0; b < cfg.block_begin.size(); ++b) schedule_block(f, acc, cfg, b);
}

}  // namespace

Schedule parse_schedule(const std::string& name) {
  if (name == "nvcc") return Schedule::Nvcc;
  if (name == "vp") return Schedule::Vp;
  throw std::invalid_argument("unknown schedule '" + name + "' (known: nvcc, vp)");
}

const char* schedule_name(Schedule s) { return s == Schedule::Vp ? "vp" : "nvcc"; }

Module reschedule(const Module& m, Schedule s) {
  Module out = m;
  if (s == Schedule::Vp)
    for (Function& f : out.funcs)
      if (f.has_body) schedule_function(f);
  return out;
}

}  // namespace gpuvp::ptx
