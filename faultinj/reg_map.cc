#include "faultinj/reg_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "faultinj/engine.h"

namespace gpuvp::fi {

void RegAllocRecorder::retired(RetiredInst& r) {
  const uint64_t ps = r.cycle * period_ps_;
  if (current_.size() <= r.warp) current_.resize(r.warp + 1, 0);
  size_t& cur = current_[r.warp];
  // A warp slot keeps its storage for its block's life; a new block there (same kernel, same place)
  // extends the record, another kernel or place starts one.
  if (cur) {
    RegAlloc& a = allocs_[cur - 1];
    if (a.base == r.reg_base && a.num_regs == r.num_regs && a.entry == r.entry) {
      a.last_ps = std::max(a.last_ps, ps);
      if (next_) next_->retired(r);
      return;
    }
  }
  allocs_.push_back({sm_, r.warp, r.reg_base, r.num_regs, r.entry, ps, ps});
  cur = allocs_.size();
  if (next_) next_->retired(r);
}

std::optional<unsigned> regs_target_sm(const std::string& target) {
  constexpr const char* kPrefix = "gpu.sm";
  constexpr const char* kSuffix = ".regs";
  if (target.rfind(kPrefix, 0) != 0 || target.size() <= 11 || target.compare(target.size() - 5, 5, kSuffix) != 0)
    return std::nullopt;
  const std::string digits = target.substr(6, target.size() - 11);
  if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return unsigned(std::stoul(digits));
}

WordRanges allocated_words(const GoldenRun& g, unsigned sm) {
  WordRanges r;
  for (const RegAlloc& a : g.reg_allocs)
    if (a.sm == sm && a.num_regs) r.emplace_back(2 * a.base, 2 * (a.base + uint64_t{a.num_regs} * 32));
  std::sort(r.begin(), r.end());
  WordRanges merged;
  for (const auto& x : r) {
    if (!merged.empty() && x.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, x.second);
    else
      merged.push_back(x);
  }
  return merged;
}

namespace {
// How far instant ps lies from an allocation's life (0 inside it).
uint64_t distance(const RegAlloc& a, uint64_t ps) {
  return ps < a.first_ps ? a.first_ps - ps : ps > a.last_ps ? ps - a.last_ps : 0;
}

std::string reg_name(const GoldenRun& g, const RegAlloc& a, uint64_t r, bool high) {
  std::string name = fmt::format("slot {}", r);
  for (const LaunchSpan& l : g.launches)
    if (l.entry == a.entry && r < l.reg_names.size() && !l.reg_names[r].empty()) name = l.reg_names[r];
  return high ? name + ".hi" : name;
}
}  // namespace

int alloc_of(const GoldenRun& g, unsigned sm, uint64_t word, uint64_t ps) {
  const uint64_t slot = word / 2;
  int best = -1;
  for (size_t i = 0; i < g.reg_allocs.size(); ++i) {
    const RegAlloc& a = g.reg_allocs[i];
    if (a.sm != sm || slot < a.base || slot >= a.base + uint64_t{a.num_regs} * 32) continue;
    if (best < 0 || distance(a, ps) < distance(g.reg_allocs[size_t(best)], ps)) best = int(i);
  }
  return best;
}

RegPlace place_in(const GoldenRun& g, const RegAlloc& a, uint64_t word) {
  const uint64_t off = word / 2 - a.base;
  return RegPlace{a.warp, unsigned(off % 32), reg_name(g, a, off / 32, word % 2 == 1)};
}

std::optional<RegPlace> place_of(const GoldenRun& g, unsigned sm, uint64_t word, uint64_t ps) {
  const int a = alloc_of(g, sm, word, ps);
  if (a < 0) return std::nullopt;
  return place_in(g, g.reg_allocs[size_t(a)], word);
}

}  // namespace gpuvp::fi
