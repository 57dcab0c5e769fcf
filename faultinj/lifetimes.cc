#include "faultinj/lifetimes.h"

#include <fmt/format.h>

#include <algorithm>

#include "platform/text.h"

namespace gpuvp::fi {

Lifetimes::Lifetimes(const GoldenRun& g, const std::set<std::string>& only) {
  std::map<uint32_t, const TargetDesc*> by_serial;  // the targets whose accesses are indexed
  for (const TargetDesc& t : g.targets) {
    targets_[t.name] = &t;
    order_.push_back(&t);
    if (only.empty() || only.count(t.name)) by_serial[t.serial] = &t;
  }
  for (const AccessEvent& e : g.accesses) {
    auto it = by_serial.find(e.target);
    if (it == by_serial.end() || !it->second->observed) continue;
    if (!e.lanes) {
      words_[{e.target, e.index}].ev.push_back(e);
      continue;
    }
    AccessEvent one = e;  // a warp instruction's lanes: one event per word they cover
    one.lanes = 0;
    for (uint32_t m = e.lanes; m; m &= m - 1)
      for (unsigned j = 0; j < e.stride; ++j) {
        one.index = e.index + uint64_t(__builtin_ctz(m)) * e.stride + j;
        words_[{e.target, one.index}].ev.push_back(one);
      }
  }
  for (auto& [key, w] : words_) {
    // At one instant, in the order the owner reported them (the order it made them in).
    std::stable_sort(w.ev.begin(), w.ev.end(), [](const AccessEvent& a, const AccessEvent& b) { return a.time_ps < b.time_ps; });
    uint64_t c = 0;
    for (const AccessEvent& e : w.ev) {
      if (e.kind == Access::ReadSpan) c = std::max(c, e.until_ps);
      w.cover.push_back(c);
    }
  }
}

bool Lifetimes::observed(const std::string& target) const {
  auto it = targets_.find(target);
  return it != targets_.end() && it->second->observed;
}

const Lifetimes::Word* Lifetimes::word(const std::string& target, uint64_t idx) const {
  auto it = words_.find({targets_.at(target)->serial, idx});
  return it == words_.end() ? nullptr : &it->second;
}

LiveInterval Lifetimes::interval(const std::string& target, uint64_t idx, uint64_t t) const {
  LiveInterval iv;
  if (!observed(target)) return iv;
  const Word* w = word(target, idx);
  if (!w) return {LiveInterval::Dead, 0, false};  // never accessed: never read
  auto at_or_after = [&](uint64_t ps) {
    return size_t(std::lower_bound(w->ev.begin(), w->ev.end(), ps,
                                   [](const AccessEvent& e, uint64_t v) { return e.time_ps < v; }) -
                  w->ev.begin());
  };
  // The accesses of one instant, from position i: does any of them read?
  auto reads_at = [&](size_t i, uint64_t ps) {
    bool read = false;
    for (; i < w->ev.size() && w->ev[i].time_ps == ps; ++i) read = read || w->ev[i].kind != Access::Write;
    return read;
  };
  size_t i = at_or_after(t);
  if (i > 0 && w->cover[i - 1] >= t) return {LiveInterval::Live, t, false};  // inside a span of reads
  if (i < w->ev.size() && w->ev[i].time_ps == t) {
    if (reads_at(i, t)) return {LiveInterval::Live, t, false};
    return iv;  // only writes at the fault's instant: before or after them, unknown
  }
  if (i == w->ev.size()) return {LiveInterval::Dead, 0, false};
  const uint64_t next = w->ev[i].time_ps;
  return reads_at(i, next) ? LiveInterval{LiveInterval::Live, next, true} : LiveInterval{LiveInterval::Dead, next, false};
}

LiveInterval Lifetimes::interval(const Fault& f) const {
  if (f.duration != Duration::Transient || f.trigger != TriggerKind::Time || !targets_.count(f.target)) return {};
  return interval(f.target, f.index, f.time_ps);
}

// Live time of one word within [from, to): from each access to the next read (a span reads up to its
// last edge); what lies after the last read, or ends in a write, is dead.
AceFigure Lifetimes::ace(const std::string& target, uint64_t from, uint64_t to, const WordRanges& words) const {
  const TargetDesc& t = *targets_.at(target);
  AceFigure a;
  a.bits = uint64_t(t.width) * (words.empty() ? t.count : word_count(words));
  a.total_bit_ps = double(a.bits) * double(to > from ? to - from : 0);
  auto clamp = [&](uint64_t ps) { return std::min(std::max(ps, from), to); };
  auto selected = [&](uint64_t w) {
    if (words.empty()) return true;
    auto r = std::upper_bound(words.begin(), words.end(), w, [](uint64_t v, const auto& x) { return v < x.first; });
    return r != words.begin() && w < std::prev(r)->second;
  };
  for (auto it = words_.lower_bound({t.serial, 0}); it != words_.end() && it->first.first == t.serial; ++it) {
    if (!selected(it->first.second)) continue;
    uint64_t prev = from, live = 0;
    for (const AccessEvent& e : it->second.ev) {
      const uint64_t end = clamp(e.kind == Access::ReadSpan ? e.until_ps : e.time_ps);
      if (e.kind != Access::Write && end > prev) live += end - prev;
      prev = std::max(prev, end);
    }
    a.live_bit_ps += double(live) * t.width;
  }
  return a;
}

std::vector<std::string> Lifetimes::observed_targets() const {
  std::vector<std::string> v;
  for (const TargetDesc* t : order_)
    if (t->observed) v.push_back(t->name);
  return v;
}

std::vector<std::string> Lifetimes::unobserved_targets() const {
  std::vector<std::string> v;
  for (const TargetDesc* t : order_)
    if (!t->observed) v.push_back(t->name);
  return v;
}

// The last clock edge (k * period) before `next_ps`, and not before the edge `t_ps`.
uint64_t last_edge_before(uint64_t next_ps, uint64_t t_ps, uint64_t period_ps) {
  if (period_ps == 0 || next_ps == 0) return t_ps;
  return std::max(t_ps, (next_ps - 1) / period_ps * period_ps);
}

PrunePlan plan_pruning(std::vector<Fault> faults, const Lifetimes& lt, const GoldenRun& g) {
  PrunePlan plan;
  std::sort(faults.begin(), faults.end(), [](const Fault& a, const Fault& b) { return a.id < b.id; });
  std::map<std::string, uint64_t> rep_of;  // equivalence key -> the fault that runs
  for (Fault& f : faults) {
    const LiveInterval iv = lt.interval(f);
    if (iv.kind == LiveInterval::Dead) {
      RunResult r;
      r.fault_id = f.id;
      r.outcome = Outcome::Masked;
      r.end_ps = g.end_ps;
      r.kernel_cycles = g.kernel_cycles;
      r.detail = iv.next_ps ? fmt::format("pruned: dead interval (the word is written at {} ps before any read)", iv.next_ps)
                            : "pruned: dead interval (the word is not read again before the end)";
      plan.dead.push_back(std::move(r));
      continue;
    }
    const std::string key = equivalence_key(f, iv);
    if (!key.empty()) {
      auto [it, fresh] = rep_of.emplace(key, f.id);
      if (!fresh) {
        plan.followers[it->second].push_back(f.id);
        continue;
      }
    }
    // Every fault of a shared interval has the same effect: the one that runs is injected at the
    // interval's last clock edge, so the faulty run starts from the fork there and the stretch before
    // it, identical to the golden run, is simulated once by the leader, not again by every run.
    if (iv.kind == LiveInterval::Live && iv.shared) f.time_ps = last_edge_before(iv.next_ps, f.time_ps, g.period_ps);
    plan.to_run.push_back(std::move(f));
  }
  return plan;
}

RunResult shared_result(const RunResult& rep, uint64_t fault_id) {
  RunResult r = rep;
  r.fault_id = fault_id;
  r.early_stop = false;
  r.host_ms = 0;
  r.detail = cut_utf8(fmt::format("pruned: same live interval as fault {} ({})", rep.fault_id, rep.detail), 1000);
  return r;
}

nlohmann::json lifetimes_summary(const Lifetimes& lt, const GoldenRun& g, bool pruning, const FaultSpace& space) {
  nlohmann::json targets = nlohmann::json::array(), unobserved = nlohmann::json::array();
  for (const TargetInfo& t : space.targets) {
    if (!lt.observed(t.name)) {
      unobserved.push_back(t.name);
      continue;
    }
    const AceFigure w = lt.ace(t.name, g.start_ps, g.end_ps);
    const AceFigure s = lt.ace(t.name, space.from_ps, space.to_ps, t.ranges);
    nlohmann::json kernels = nlohmann::json::array();
    for (auto& [from, to] : g.kernels) {  // each kernel's part of the campaign's window
      const AceFigure k = lt.ace(t.name, std::max(from, space.from_ps), std::min(to, space.to_ps), t.ranges);
      kernels.push_back({k.live_bit_ps, k.total_bit_ps});
    }
    targets.push_back({{"name", t.name}, {"bits", w.bits}, {"live_bit_ps", w.live_bit_ps},
                       {"total_bit_ps", w.total_bit_ps}, {"kernels", kernels},
                       {"space", {{"bits", s.bits}, {"live_bit_ps", s.live_bit_ps}, {"total_bit_ps", s.total_bit_ps}}}});
  }
  return {{"pruning", pruning}, {"observed", targets}, {"unobserved", unobserved},
          {"window_ps", {space.from_ps, space.to_ps}}};
}

std::string equivalence_key(const Fault& f, const LiveInterval& iv) {
  // xor_mask and zero_value change the word whatever `bit` says (an exhaustive campaign draws them at
  // every bit): the same fault, so one class; keying on the bit would run each copy. Copies at one
  // instant are one fault even where the instant is its own class (a read's edge, a write's edge).
  const bool uses_bit = f.model != FaultModel::XorMask && f.model != FaultModel::ZeroValue;
  const bool own_instant = !(iv.kind == LiveInterval::Live && iv.shared);
  if (own_instant && (uses_bit || f.duration != Duration::Transient || f.trigger != TriggerKind::Time)) return {};
  return fmt::format("{}|{}|{}|{}|{}|{}|{}{}", f.target, f.index, uses_bit ? int64_t(f.bit) : -1, f.nbits, f.mask,
                     int(f.model), own_instant ? "@" : "", own_instant ? f.time_ps : iv.next_ps);
}

}  // namespace gpuvp::fi
