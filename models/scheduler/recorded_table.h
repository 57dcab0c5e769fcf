#pragma once
// A registered table whose owner reports every read and write of its words while the registry records
// (access recording: ACE and pruning, docs/campaigns.md "Lifetimes, ACE and pruning"), at the simulated
// instant `now` gives. Reads go through get(), writes through set().
//
// One entry per word and instant: the dispatcher's queue walks read a word many times in one
// evaluation, and a read after a write of the same instant sees the value just written (a fault from
// before the instant was overwritten: the free slot before a fill stays dead). A write after a read of
// the same instant is reported (the read saw the old value).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/common/registry.h"

namespace gpuvp {

template <typename T>
class RecordedTable {
 public:
  explicit RecordedTable(size_t words, T init = T{}) : v_(words, init), last_(words) {}

  // Registers the table; with `now` (the simulated instant, ps) its accesses are reported and it is
  // observed, without it neither.
  void add(Registry& reg, const std::string& name, unsigned width, std::function<uint64_t()> now,
           std::function<void()> on_write = {}) {
    reg.add_array(name, width, v_.data(), v_.size(), std::move(on_write));
    if (!now) return;
    reg_ = &reg;
    now_ = std::move(now);
    target_ = &reg.at(name);
    reg.at_mut(name).reads_observed = true;
  }

  bool recording() const { return reg_ && reg_->recording(); }
  T get(size_t i) const {
    if (recording()) note(i, false);
    return v_[i];
  }
  void set(size_t i, T value) {
    v_[i] = value;
    if (recording()) note(i, true);
  }
  // Reads at every instant from `from_ps` to `to_ps` that get() does not see (the evaluations a flip of
  // the word would wake its owner for).
  void note_reads(size_t i, uint64_t from_ps, uint64_t to_ps) const {
    if (recording()) reg_->note(*target_, i, Access::ReadSpan, from_ps, to_ps);
  }
  // A word's new value computed from a get() of it just before (an increment): reported as that read
  // alone, since the new value depends on every bit of the old one.
  void update(size_t i, T value) { v_[i] = value; }
  size_t size() const { return v_.size(); }

 private:
  struct Last {
    uint64_t ps = ~uint64_t{0};
    bool write = false;
  };
  void note(size_t i, bool write) const {
    const uint64_t t = now_();
    Last& l = last_[i];
    if (l.ps == t && (!write || l.write)) return;  // read again, or written again, in this instant
    l = {t, write};
    reg_->note(*target_, i, write ? Access::Write : Access::Read, t);
  }

  std::vector<T> v_;
  mutable std::vector<Last> last_;
  Registry* reg_ = nullptr;
  std::function<uint64_t()> now_;
  const Target* target_ = nullptr;
};

}  // namespace gpuvp
