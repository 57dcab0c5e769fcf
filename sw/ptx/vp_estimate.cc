// The estimate: reaching definitions give each value's consumers; an edge from producer p to
// consumer c weighs the issue-to-issue time from p to c in nvcc's layout, where an instruction in
// a loop that does not contain p counts `trips` times per such loop (a value live across a loop of
// N iterations costs N times the loop), a consumer inside such a loop keeps the value to the
// loop's end, and a consumer at or above p (the next iteration) is reached around their innermost
// common loop. Both sides of a branch lie between p and c in the layout, as a divergent warp runs
// both. Each producer keeps its longest edge. The issue-to-issue time of each instruction in the
// layout is its `issue` time, or longer when the next instruction waits for a `result`.
#include "sw/ptx/vp_estimate.h"

#include <algorithm>
#include <cmath>

#include "sw/ptx/vp_access.h"
#include "sw/ptx/vp_cfg.h"

namespace gpuvp::ptx::vp {

namespace {

struct Ctx {
  const Function& f;
  std::vector<Access> acc;
  Cfg cfg;
  std::vector<double> step;
  double trips;
};

// Consumers of value v produced at p: instructions reached from p before an unguarded rewrite of v.
std::vector<size_t> consumers(const Ctx& x, size_t p, uint32_t v) {
  const size_t n = x.acc.size();
  std::vector<char> seen(n, 0);
  std::vector<size_t> frontier(x.cfg.succ[p].begin(), x.cfg.succ[p].end()), out;
  while (!frontier.empty()) {
    const size_t k = frontier.back();
    frontier.pop_back();
    if (k >= n || seen[k]) continue;
    seen[k] = 1;
    const Access& a = x.acc[k];
    if (std::find(a.reads.begin(), a.reads.end(), v) != a.reads.end()) out.push_back(k);
    const bool kills = a.unguarded && std::find(a.writes.begin(), a.writes.end(), v) != a.writes.end();
    if (!kills) frontier.insert(frontier.end(), x.cfg.succ[k].begin(), x.cfg.succ[k].end());
  }
  return out;
}

// Cycles of instructions [a, b) as seen from producer p: trips^(loops holding k but not p) each.
double span(const Ctx& x, size_t p, size_t a, size_t b) {
  double s = 0;
  for (size_t k = a; k < b; ++k) {
    unsigned outside = 0;
    for (const Loop& l : x.cfg.loops) outside += l.contains(k) && !l.contains(p);
    s += x.step[k] * std::pow(x.trips, outside);
  }
  return s;
}

// Where p's value must last for consumer c: c, or the end of the outermost loop holding c but not p.
size_t keep_until(const Ctx& x, size_t p, size_t c) {
  size_t end = c;
  for (const Loop& l : x.cfg.loops)
    if (l.contains(c) && !l.contains(p)) end = std::max(end, l.tail + 1);
  return end;
}

double edge(const Ctx& x, size_t p, size_t c) {
  const size_t until = keep_until(x, p, c);
  if (c > p) return span(x, p, p, until);
  const Loop* common = nullptr;  // innermost loop holding both: the value goes around it once
  for (const Loop& l : x.cfg.loops)
    if (l.contains(p) && l.contains(c) && (!common || l.tail - l.head < common->tail - common->head)) common = &l;
  if (!common) return 0;
  return span(x, p, p, common->tail + 1) + span(x, p, common->head, until);
}

// Cycles from each instruction's issue to the next one's in the layout: its issue time, or until the
// results the next one reads are there (their last writers earlier in the layout).
std::vector<double> issue_gaps(const Ctx& x, const StepCycles& step) {
  const size_t n = x.acc.size();
  std::vector<double> t(n + 1, 0.0), gaps(n, 0.0);
  std::vector<double> ready(x.f.regs.size() + x.f.preds.size(), 0.0);
  for (size_t k = 0; k < n; ++k) {
    const Step s = step(x.f.body[k].inst);
    for (uint32_t v : x.acc[k].writes) ready[v] = t[k] + s.result;
    t[k + 1] = t[k] + s.issue;
    if (k + 1 < n)
      for (uint32_t v : x.acc[k + 1].reads) t[k + 1] = std::max(t[k + 1], ready[v]);
    gaps[k] = t[k + 1] - t[k];
  }
  return gaps;
}

std::string value_name(const Function& f, uint32_t v) {
  return v < f.regs.size() ? f.regs[v].name : f.preds[v - f.regs.size()];
}

void add_value(const Ctx& x, size_t p, uint32_t v, Estimate& e) {
  const std::vector<size_t> cs = consumers(x, p, v);
  if (cs.empty()) return;  // a dead value has no vulnerable period
  Value best;
  for (size_t c : cs) {
    const double w = edge(x, p, c);
    if (w >= best.cycles) best.cycles = w, best.consumer = c;
  }
  best.producer = p;
  best.reg = value_name(x.f, v);
  best.block = x.cfg.block_of[p];
  e.values.push_back(best);
  e.per_reg[v].second += best.cycles;
  e.per_block[best.block] += best.cycles;
  e.total += best.cycles;
}

}  // namespace

Estimate estimate(const Function& f, const StepCycles& step, double trips) {
  Ctx x{f, accesses(f), {}, {}, trips};
  x.cfg = analyse(f, x.acc);
  x.step = issue_gaps(x, step);
  Estimate e;
  const auto nv = uint32_t(f.regs.size() + f.preds.size());
  for (uint32_t v = 0; v < nv; ++v) e.per_reg.emplace_back(value_name(f, v), 0.0);
  e.per_block.assign(x.cfg.block_begin.size(), 0.0);
  for (size_t p = 0; p < f.body.size(); ++p)
    for (uint32_t v : x.acc[p].writes) add_value(x, p, v, e);
  return e;
}

}  // namespace gpuvp::ptx::vp
