#pragma once
// The fault list of a campaign: which targets, and a uniform sample of the fault space
// (every state bit of the selected targets x every clock edge of the window).
//
// Sampling (deterministic on any machine: integers only, our own PRNG):
//  - PRNG: splitmix64 seeded with the campaign seed; uniform(m) draws a value in [0, m) by rejection
//    (draws r until r >= 2^64 mod m, returns r mod m), so it has no modulo bias.
//  - The fault space is numbered p = bit * E + edge, bit in [0, B) over the concatenated bits of the
//    targets (target by target in the given order, word by word, bit 0 first), edge in [0, E) over the
//    clock edges k * period that lie in [window start, window end).
//  - n distinct points are drawn with Floyd's algorithm (for j = N-n .. N-1: t = uniform(j+1);
//    take t unless taken, else j), so every n-subset is equally likely and exactly n draws are used.
//  - The faults are sorted by (time, bit number) and numbered 0..n-1 in that order.
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "faultinj/fault.h"

namespace gpuvp::fi {

using WordRanges = std::vector<std::pair<uint64_t, uint64_t>>;  // [lo, hi) word indices, sorted, disjoint
// The sum of the ranges' lengths, and the k-th word of them (k below that sum; else std::out_of_range).
uint64_t word_count(const WordRanges& r);
uint64_t nth_word(const WordRanges& r, uint64_t k);
// The words in both.
WordRanges intersect(const WordRanges& a, const WordRanges& b);

struct TargetInfo {
  TargetInfo() = default;
  TargetInfo(std::string n, unsigned w, uint64_t c, WordRanges r = {})
      : name(std::move(n)), width(w), count(c), ranges(std::move(r)) {}
  std::string name;
  unsigned width = 0;  // bits per word, 1..64
  uint64_t count = 1;  // words
  // The words faults may hit when not all of them: an index range of the campaign file
  // (gpu.sm0.regs[0:1023]), the words the kernels allocated (reg_map.h). Empty: every word.
  WordRanges ranges;
  uint64_t words() const { return ranges.empty() ? count : word_count(ranges); }
};

// A target glob with an optional index range at its end: "gpu.sm0.regs[0:1023]" (first and last
// word, both included), "gpu.sm0.regs[7]" (one word), each a decimal or 0x integer. Throws
// std::invalid_argument saying what is wrong with a malformed or reversed range.
struct TargetGlob {
  std::string glob;
  std::optional<std::pair<uint64_t, uint64_t>> range;  // [first, last], both included
};
TargetGlob parse_target_glob(const std::string& text);

// splitmix64 (Steele, Lea, Flood 2014; Vigna's reference constants).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  uint64_t uniform(uint64_t m);  // in [0, m), m > 0, unbiased

 private:
  uint64_t state_;
};

// Whole-string glob match: '*' any run of characters, '?' any one character. Linear in
// |pattern| x |text| at worst, no exponential backtracking.
bool glob_match(const std::string& pattern, const std::string& text);

// The targets whose name matches an include glob and no exclude glob, in the order of `all`; an
// include with an index range (parse_target_glob) limits the words of the targets it matches to it
// (several includes matching one target: the union). Throws std::invalid_argument naming the globs
// when nothing is left, or naming targets[i] when its range passes the end of a target it matches.
std::vector<TargetInfo> select_targets(const std::vector<TargetInfo>& all, const std::vector<std::string>& include,
                                       const std::vector<std::string>& exclude);

// Bits of all targets, clock edges in [start, end), and their product N (the fault space size).
// Throw std::overflow_error when a count does not fit in 64 bits, std::invalid_argument for a width
// outside 1..64 or a zero period.
uint64_t total_bits(const std::vector<TargetInfo>& targets);
uint64_t edge_count(uint64_t window_start_ps, uint64_t window_end_ps, uint64_t clock_period_ps);
uint64_t fault_space_size(const std::vector<TargetInfo>& targets, uint64_t window_start_ps, uint64_t window_end_ps,
                          uint64_t clock_period_ps);

// n faults drawn uniformly without replacement from the fault space (see the top of this file),
// with the template's model and duration, a Time trigger, sorted by time with ids 0..n-1.
// Throws std::invalid_argument when n exceeds the fault space.
std::vector<Fault> make_fault_list(const std::vector<TargetInfo>& targets, const FaultTemplate& ft,
                                   uint64_t window_start_ps, uint64_t window_end_ps, uint64_t clock_period_ps,
                                   uint64_t n, uint64_t seed);

}  // namespace gpuvp::fi
