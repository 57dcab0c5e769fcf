#include "rtl/flop_accesses.h"

#include <algorithm>
#include <stdexcept>

namespace gpuvp::rtl {

namespace {

constexpr size_t kMemoLimit = size_t{1} << 12;

size_t flop_index(const VModel& m, const std::string& name) {
  const auto& fl = m.flops();
  for (size_t i = 0; i < fl.size(); ++i)
    if (fl[i].name == name) return i;
  throw std::invalid_argument("rtl: " + m.module() + " has no flip-flop " + name);
}

// The values a fault may leave in a word of `width` bits holding `v` (the word itself excluded).
std::vector<uint64_t> probe_values(uint64_t v, unsigned width) {
  const uint64_t ones = mask_bits(~uint64_t{0}, width);
  std::vector<uint64_t> p;
  for (unsigned b = 0; b < width; ++b) p.push_back(v ^ (uint64_t{1} << b));
  p.push_back(0);
  p.push_back(ones);
  // A population count of the word (smp_done_array against the active SMs) sees how many bits are
  // set, which single flips change by one only.
  if (width <= 16)
    for (unsigned k = 2; k < width; ++k) p.push_back((uint64_t{1} << k) - 1);
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  p.erase(std::remove(p.begin(), p.end(), v), p.end());
  return p;
}

void load(const VModel& m, const std::vector<uint64_t>& state) {
  const auto& fl = m.flops();
  for (size_t i = 0; i < fl.size(); ++i) {
    Var v = fl[i].var;
    v.set(state[i]);
  }
}

void save(const VModel& m, std::vector<uint64_t>& state) {
  const auto& fl = m.flops();
  state.resize(fl.size());
  for (size_t i = 0; i < fl.size(); ++i) state[i] = fl[i].var.get();
}

}  // namespace

FlopAccesses::FlopAccesses(VModel& m, Registry& reg, const std::string& path, uint64_t period_ps,
                           const std::vector<std::string>& observed, const std::vector<std::string>& consumed,
                           const std::string& strobe)
    : m_(m), reg_(reg), period_(period_ps), strobe_(flop_index(m, strobe)) {
  for (const std::string& name : observed) {
    Target& t = reg.at_mut(path + "." + name);
    t.reads_observed = true;
    const bool c = std::find(consumed.begin(), consumed.end(), name) != consumed.end();
    words_.push_back({flop_index(m, name), &t, c});
  }
  fate_.assign(words_.size(), Fate::Held);
}

void FlopAccesses::clock_from(const std::vector<uint64_t>& state, std::vector<uint64_t>& next) {
  load(m_, state);
  m_.edge();  // every eval() recomputes the combinational logic from the flip-flops as they are
  save(m_, next);
  ++probes_;
}

// The fate of word w at this edge: every probe's next state is the unfaulted one (write), or the
// unfaulted one with the probe held in the word (held); anything else is a read.
FlopAccesses::Fate FlopAccesses::fate_of(const Word& w, const std::vector<uint64_t>& state,
                                         const std::vector<uint64_t>& next) {
  bool dead = false, held = false;
  std::vector<uint64_t> faulted = state;
  for (uint64_t v : probe_values(state[w.flop], m_.flops()[w.flop].var.width())) {
    faulted[w.flop] = v;
    clock_from(faulted, probe_next_);
    if (probe_next_ == next) {
      dead = true;
    } else {
      // Held: the word keeps the probe (as it keeps its own value) and no other flip-flop saw it.
      const uint64_t own = probe_next_[w.flop];
      probe_next_[w.flop] = next[w.flop];
      if (probe_next_ != next || own != v || next[w.flop] != state[w.flop]) return Fate::Read;
      held = true;
    }
    if (dead && held) return Fate::Read;
  }
  return dead ? Fate::Write : Fate::Held;
}

// The skipped edges between the last evaluated one and `next_edge_ps` (exclusive) had its state and
// inputs: a read fate reads at each of them, a write fate overwrites at each of them.
void FlopAccesses::close_gap(uint64_t next_edge_ps) {
  if (!any_ || next_edge_ps <= last_ps_ + period_) return;
  const uint64_t first = last_ps_ + period_, last = next_edge_ps - period_;
  for (size_t i = 0; i < words_.size(); ++i) {
    const Target& t = *words_[i].target;
    if (fate_[i] == Fate::Read) {
      if (last > first) reg_.note(t, 0, Access::ReadSpan, first, last);
      else reg_.note(t, 0, Access::Read, first);
    } else if (fate_[i] == Fate::Write) {
      reg_.note(t, 0, Access::Write, last);
    }
  }
}

size_t FlopAccesses::KeyHash::operator()(const std::vector<uint64_t>& k) const {
  uint64_t h = 0x9E3779B97F4A7C15u;
  for (uint64_t v : k) h = (h ^ v) * 0xBF58476D1CE4E5B9u + (h >> 29);
  return static_cast<size_t>(h);
}

// The fates of this edge (state_ saved, inputs on the ports) by evaluation.
void FlopAccesses::probe_edge() {
  clock_from(state_, next_);
  const bool strobe = next_[strobe_] != 0;
  for (size_t i = 0; i < words_.size(); ++i) {
    Fate f = fate_of(words_[i], state_, next_);
    if (words_[i].consumed && strobe && f == Fate::Held) f = Fate::Read;
    fate_[i] = f;
  }
  load(m_, state_);  // the design as it was: the wrapper clocks the real edge next
}

void FlopAccesses::before_edge(uint64_t t_ps) {
  if (!reg_.recording()) {
    any_ = false;
    return;
  }
  close_gap(t_ps);
  save(m_, state_);
  if (memoise_) {
    key_ = state_;
    for (const Var& p : m_.ports()) key_.push_back(p.get());
    const auto it = memo_.find(key_);
    if (it != memo_.end()) {
      fate_ = it->second;
    } else {
      probe_edge();
      // Bounded: a design whose states never repeat would only grow it.
      if (memo_.size() >= kMemoLimit) memo_.clear();
      memo_.emplace(key_, fate_);
    }
  } else {
    probe_edge();
  }
  for (size_t i = 0; i < words_.size(); ++i)
    if (fate_[i] != Fate::Held)
      reg_.note(*words_[i].target, 0, fate_[i] == Fate::Read ? Access::Read : Access::Write, t_ps);
  last_ps_ = t_ps;
  any_ = true;
}

void FlopAccesses::finish(uint64_t now_ps) {
  if (!reg_.recording()) return;
  // The skipped edges up to and including the last edge at or before now.
  close_gap(now_ps / period_ * period_ + period_);
  any_ = false;
}

}  // namespace gpuvp::rtl
