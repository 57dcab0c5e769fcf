#include "faultinj/fault_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace gpuvp::fi {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::uniform(uint64_t m) {
  if (m == 0) throw std::invalid_argument("uniform(0): empty range");
  const uint64_t threshold = (0 - m) % m;  // 2^64 mod m: the biased low values are redrawn
  for (;;) {
    const uint64_t r = next();
    if (r >= threshold) return r % m;
  }
}

// Two pointers: on a mismatch, go back to the last '*' and let it swallow one more character.
bool glob_match(const std::string& pattern, const std::string& text) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

uint64_t word_count(const WordRanges& r) {
  uint64_t n = 0;
  for (const auto& x : r) n += x.second - x.first;
  return n;
}

uint64_t nth_word(const WordRanges& r, uint64_t k) {
  for (const auto& x : r) {
    if (k < x.second - x.first) return x.first + k;
    k -= x.second - x.first;
  }
  throw std::out_of_range(fmt::format("word {} beyond the {} words of the ranges", k, word_count(r)));
}

WordRanges intersect(const WordRanges& a, const WordRanges& b) {
  WordRanges out;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const uint64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second ? i : j)++;
  }
  return out;
}

namespace {
// A decimal integer without leading zeros or a 0x one, as the campaign file's integers.
bool parse_index(const std::string& s, uint64_t& out) {
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const std::string digits = hex ? s.substr(2) : s;
  if (digits.empty() || digits.size() > (hex ? 16u : 19u) || (!hex && s.size() > 1 && s[0] == '0') ||
      digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
    return false;
  out = std::stoull(digits, nullptr, hex ? 16 : 10);
  return true;
}
}  // namespace

TargetGlob parse_target_glob(const std::string& text) {
  // Registered names may end in an index (gpu.sched.num_blocks[0]): select_targets takes a glob that
  // matches a name as it is before reading a range in it, and a bracket without a colon holding no
  // integer is a glob (num_blocks[*]).
  if (text.empty() || text.back() != ']') return {text, std::nullopt};
  const size_t open = text.rfind('[');
  const std::string inside = open == std::string::npos ? "" : text.substr(open + 1, text.size() - open - 2);
  const size_t colon = inside.find(':');
  uint64_t first = 0, last = 0;
  if (open != std::string::npos && open > 0 && colon == std::string::npos && !inside.empty() &&
      !parse_index(inside, first))
    return {text, std::nullopt};
  const bool ok = open != std::string::npos && open > 0 &&
                  (colon == std::string::npos
                       ? parse_index(inside, first) && parse_index(inside, last)
                       : parse_index(inside.substr(0, colon), first) && parse_index(inside.substr(colon + 1), last));
  if (!ok)
    throw std::invalid_argument("malformed index range; expected NAME[first:last] or NAME[index] (integers, "
                                "decimal or 0x, both ends included)");
  if (last < first)
    throw std::invalid_argument(fmt::format("index range [{}:{}] is reversed (first above last)", first, last));
  return {text.substr(0, open), std::make_pair(first, last)};
}

namespace {
bool any_match(const std::vector<std::string>& globs, const std::string& name) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return glob_match(g, name); });
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "(none)" : s;
}

// "SMs gpu.sm0 .. gpu.sm3" from the registry's names: a glob naming an SM beyond them says why.
std::string sm_range(const std::vector<TargetInfo>& all) {
  unsigned n = 0;  // SMs: one more than the highest N of a gpu.smN. name
  for (const TargetInfo& t : all) {
    if (t.name.rfind("gpu.sm", 0) != 0) continue;
    const size_t dot = t.name.find('.', 6);
    const std::string digits = t.name.substr(6, dot == std::string::npos ? std::string::npos : dot - 6);
    if (!digits.empty() && digits.size() < 4 && digits.find_first_not_of("0123456789") == std::string::npos)
      n = std::max(n, unsigned(std::stoul(digits)) + 1);
  }
  return n == 0 ? "no SMs" : fmt::format("{} SM{}: gpu.sm0{}", n, n == 1 ? "" : "s", n == 1 ? "" : fmt::format(" .. gpu.sm{}", n - 1));
}

// The target as the include globs that match it select it: all its words when one of them has no
// range, else the union of their ranges; none when no glob matches.
std::optional<TargetInfo> with_ranges(const TargetInfo& t, const std::vector<TargetGlob>& globs,
                                      const std::vector<std::string>& include) {
  std::optional<TargetInfo> out;
  bool whole = false;
  WordRanges r;
  for (size_t i = 0; i < globs.size(); ++i) {
    if (!glob_match(globs[i].glob, t.name)) continue;
    out = t;
    if (!globs[i].range) {
      whole = true;
      continue;
    }
    const auto [first, last] = *globs[i].range;
    if (last >= t.count)
      throw std::invalid_argument(fmt::format("targets[{}] '{}': index range [{}:{}] passes the end of {} ({} words: "
                                              "0..{})", i, include[i], first, last, t.name, t.count, t.count - 1));
    r.emplace_back(first, last + 1);
  }
  if (!out || whole) return out;
  std::sort(r.begin(), r.end());
  for (const auto& x : r) {  // merged: overlapping ranges count their words once
    if (!out->ranges.empty() && x.first <= out->ranges.back().second)
      out->ranges.back().second = std::max(out->ranges.back().second, x.second);
    else
      out->ranges.push_back(x);
  }
  return out;
}

uint64_t mul_checked(uint64_t a, uint64_t b, const char* what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error(fmt::format("{} does not fit in 64 bits", what));
  return r;
}
}  // namespace

std::vector<TargetInfo> select_targets(const std::vector<TargetInfo>& all, const std::vector<std::string>& include,
                                       const std::vector<std::string>& exclude) {
  // Every target glob must match something: a typo in one glob beside a good one would silently narrow
  // the campaign (gpu.sm0.regz next to gpu.sm0.preds). An exclude may match nothing: one campaign file
  // serves configurations that lack some state (gpu.sched.prng exists only with the random policy).
  std::vector<TargetGlob> globs;
  for (size_t i = 0; i < include.size(); ++i) {
    const bool a_name = std::any_of(all.begin(), all.end(), [&](const TargetInfo& t) { return glob_match(include[i], t.name); });
    try {
      globs.push_back(a_name ? TargetGlob{include[i], std::nullopt} : parse_target_glob(include[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("targets[{}] '{}': {}", i, include[i], e.what()));
    }
    if (std::none_of(all.begin(), all.end(), [&](const TargetInfo& t) { return glob_match(globs[i].glob, t.name); }))
      throw std::invalid_argument(fmt::format("targets[{}] '{}' matches no target of this platform ({}; `gpuvp "
                                              "targets` lists them)", i, include[i], sm_range(all)));
  }
  std::vector<TargetInfo> out;
  for (const TargetInfo& t : all) {
    if (any_match(exclude, t.name)) continue;
    std::optional<TargetInfo> kept = with_ranges(t, globs, include);
    if (kept) out.push_back(std::move(*kept));
  }
  if (out.empty())
    throw std::invalid_argument(
        fmt::format("no target matches targets [{}] minus exclude [{}]", join(include), join(exclude)));
  return out;
}

uint64_t total_bits(const std::vector<TargetInfo>& targets) {
  uint64_t sum = 0;
  for (const TargetInfo& t : targets) {
    if (t.width < 1 || t.width > 64)
      throw std::invalid_argument(fmt::format("target {}: width {} not in 1..64", t.name, t.width));
    if (__builtin_add_overflow(sum, mul_checked(t.width, t.words(), "the number of state bits"), &sum))
      throw std::overflow_error("the number of state bits does not fit in 64 bits");
  }
  return sum;
}

uint64_t edge_count(uint64_t start, uint64_t end, uint64_t period) {
  if (period == 0) throw std::invalid_argument("clock period 0");
  if (end <= start) return 0;
  auto ceil_div = [period](uint64_t x) { return x / period + (x % period != 0); };
  return ceil_div(end) - ceil_div(start);  // edges k * period with start <= k * period < end
}

uint64_t fault_space_size(const std::vector<TargetInfo>& targets, uint64_t start, uint64_t end, uint64_t period) {
  return mul_checked(total_bits(targets), edge_count(start, end, period), "the fault space size");
}

namespace {
// Floyd's algorithm: n distinct values of [0, N), sorted.
std::vector<uint64_t> sample_points(uint64_t N, uint64_t n, SplitMix64& rng) {
  std::unordered_set<uint64_t> taken;
  std::vector<uint64_t> out;
  out.reserve(n);
  for (uint64_t j = N - n; j < N; ++j) {
    uint64_t t = rng.uniform(j + 1);
    if (taken.count(t)) t = j;
    taken.insert(t);
    out.push_back(t);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Where global bit number g lies: target, word, bit. `first` holds each target's first bit number.
void locate(const std::vector<TargetInfo>& targets, const std::vector<uint64_t>& first, uint64_t g, Fault& f) {
  const size_t i = static_cast<size_t>(std::upper_bound(first.begin(), first.end(), g) - first.begin()) - 1;
  const uint64_t off = g - first[i];
  f.target = targets[i].name;
  f.index = targets[i].ranges.empty() ? off / targets[i].width : nth_word(targets[i].ranges, off / targets[i].width);
  f.bit = static_cast<unsigned>(off % targets[i].width);
}
}  // namespace

std::vector<Fault> make_fault_list(const std::vector<TargetInfo>& targets, const FaultTemplate& ft, uint64_t start,
                                   uint64_t end, uint64_t period, uint64_t n, uint64_t seed) {
  const uint64_t N = fault_space_size(targets, start, end, period);
  if (n > N) throw std::invalid_argument(fmt::format("{} faults asked of a fault space of {}", n, N));
  const uint64_t edges = edge_count(start, end, period);
  const uint64_t first_edge = start / period + (start % period != 0);
  std::vector<uint64_t> first;
  uint64_t bits = 0;
  for (const TargetInfo& t : targets) {
    first.push_back(bits);
    bits += uint64_t{t.width} * t.words();
  }
  SplitMix64 rng(seed);
  // The list is by time then bit; points are bit * edges + edge: order them by (edge, point) first,
  // which is what a stable sort of the faults on time gave, without a second list of faults.
  std::vector<uint64_t> points = sample_points(N, n, rng);
  std::sort(points.begin(), points.end(),
            [&](uint64_t a, uint64_t b) { return std::make_pair(a % edges, a) < std::make_pair(b % edges, b); });
  std::vector<Fault> faults;
  faults.reserve(n);
  for (uint64_t p : points) {
    Fault f;
    locate(targets, first, p / edges, f);
    f.time_ps = (first_edge + p % edges) * period;
    f.model = ft.model;
    f.nbits = ft.nbits;
    f.mask = ft.mask;
    f.duration = ft.duration;
    f.hold_ps = ft.hold_ps;
    f.id = faults.size();
    faults.push_back(std::move(f));
  }
  return faults;
}

}  // namespace gpuvp::fi
