#pragma once
// Lifetimes of registered state, from the accesses the golden run recorded (GoldenRun::accesses):
// which interval a fault falls in (fault-space pruning) and how much of each target's bit-time is
// live (ACE analysis). A transient fault in a word matters only through the next access to that word:
// a write replaces it (dead interval, the fault is masked), a read exposes it (live interval; every
// fault of the interval has the same effect). Only targets whose owner reports every read and write
// (TargetDesc::observed) are analysed; the others are simply not pruned.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "faultinj/engine.h"
#include "faultinj/fault.h"
#include "faultinj/fault_list.h"

#include <nlohmann/json.hpp>

namespace gpuvp::fi {

// Where a fault stands against the accesses of its word.
struct LiveInterval {
  enum Kind {
    Unknown,  // not an observed target, not a transient fault at an instant, or at a write's instant
    Dead,     // the next access is a write, or none before the end of the run
    Live,     // the next access is a read
  } kind = Unknown;
  uint64_t next_ps = 0;  // Live and Dead: the instant of the next access (Dead with no access: 0)
  bool shared = false;   // Live: strictly between two access instants (a class other faults may share)
};

// The ACE figures of one target (or a sum of targets) over a window.
struct AceFigure {
  uint64_t bits = 0;            // width x words
  double live_bit_ps = 0;       // sum over bits of the time their value will still be read
  double total_bit_ps = 0;      // bits x window length
  double ratio() const { return total_bit_ps > 0 ? live_bit_ps / total_bit_ps : 0; }
};

class Lifetimes {
 public:
  // `only`: the targets whose accesses are indexed (a campaign's selection; empty: every target). The
  // golden run records every observed target, and indexing the SMs' register accesses word by word for
  // a campaign on the block scheduler cost hundreds of megabytes and most of its host time.
  explicit Lifetimes(const GoldenRun& g, const std::set<std::string>& only = {});

  bool observed(const std::string& target) const;
  // The interval of a transient fault in `target` word `idx` injected at `t_ps` (a clock edge). An
  // access at the fault's own instant is ordered arbitrarily against the injection, so: any read there
  // makes the fault live, unshared; only writes there leave it Unknown (run it).
  LiveInterval interval(const std::string& target, uint64_t idx, uint64_t t_ps) const;
  LiveInterval interval(const Fault& f) const;
  // Live bit-time of `target` within [from, to) (observed targets indexed: see `only`), over the words
  // `words` (empty: every word of the target).
  AceFigure ace(const std::string& target, uint64_t from_ps, uint64_t to_ps, const WordRanges& words = {}) const;
  std::vector<std::string> observed_targets() const;  // registry order
  std::vector<std::string> unobserved_targets() const;

 private:
  struct Word {
    std::vector<AccessEvent> ev;   // by time
    std::vector<uint64_t> cover;   // cover[i]: the last edge read by a span among ev[0..i]
  };
  const Word* word(const std::string& target, uint64_t idx) const;

  std::map<std::string, const TargetDesc*> targets_;
  std::vector<const TargetDesc*> order_;
  std::map<std::pair<uint32_t, uint64_t>, Word> words_;  // (serial, word)
};

// A campaign's pending faults after pruning: those to simulate, those recorded Masked without running
// (dead interval), and for each simulated fault the others of its live interval, which share its run.
struct PrunePlan {
  std::vector<Fault> to_run;
  std::vector<RunResult> dead;
  std::map<uint64_t, std::vector<uint64_t>> followers;
};
// The fault that runs for a shared live interval keeps its id but moves to the interval's last clock
// edge (its run forks as late as the class allows; the store keeps the drawn instant).
PrunePlan plan_pruning(std::vector<Fault> faults, const Lifetimes& lt, const GoldenRun& g);
uint64_t last_edge_before(uint64_t next_ps, uint64_t t_ps, uint64_t period_ps);
// The result of a fault that shares the run `rep` made for another fault of its live interval.
RunResult shared_result(const RunResult& rep, uint64_t fault_id);
// A campaign's fault space: the targets (with the words it draws from: a register file's allocated
// words, an index range) and the window [from_ps, to_ps) of the clock edges it draws.
struct FaultSpace {
  std::vector<TargetInfo> targets;
  uint64_t from_ps = 0, to_ps = 0;
};
// What the store keeps of the golden run's lifetimes (meta `lifetimes`, JSON): per observed target of
// the fault space its ACE figures over the fault space (`space`: its words over its window, and per
// kernel: the kernel's part of the window) and over the whole target and execution window (`bits`,
// `live_bit_ps`, `total_bit_ps`), and the targets that were not observed.
nlohmann::json lifetimes_summary(const Lifetimes& lt, const GoldenRun& g, bool pruning, const FaultSpace& space);

// A key that is equal for two faults exactly when one run stands for both (same target, word, bits,
// model and live interval; for xor_mask and zero_value, which ignore the bit, also the same instant);
// empty for a fault that must run on its own.
std::string equivalence_key(const Fault& f, const LiveInterval& iv);

}  // namespace gpuvp::fi
