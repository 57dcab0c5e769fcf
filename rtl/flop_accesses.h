#pragma once
// Access recording for a Verilated design's flip-flops (ACE analysis and fault-space pruning,
// docs/rtl.md "Access recording"). Verilator shows flip-flop values, not which logic reads them, so
// the fate of a word at an evaluated edge is found by evaluation: with the inputs of the edge on the
// ports, the flip-flops are saved, the word is set to a probe value, the edge is clocked, every
// flip-flop (every output is one: Moore machines) is compared with the unfaulted edge, and the
// flip-flops are restored. Over all probes:
//   - next state always the unfaulted one: the word is overwritten (or logically masked): a write;
//   - next state always the unfaulted one with the word still holding the probe: held, nothing read
//     it: no access (the fault persists to the next edge unchanged);
//   - anything else (another flip-flop changed, the word's own next value depends on it, or probes
//     disagree): a read.
// Probes: every single-bit flip of the word's value, 0, all ones, and for words of up to 16 bits
// every count of low ones (2^p - 1: what a population count of the word can see).
//
// The design is clocked only at edges that can change it (clock gating, docs/rtl.md). A skipped edge
// has the state and inputs of the last evaluated one, and a fault there wakes the wrapper, which
// evaluates the next edge: so the fate found at an evaluated edge holds at every skipped edge after it.
// A read fate is recorded as one read span over them, a write fate as a write at the last of them.
//
// The design is deterministic: an edge's fates follow from its flip-flops and input ports alone, so
// the fates found at an edge are kept by that key and reused, unprobed, at every later edge with the
// same state and inputs (the arbiters repeat a handful of states over a run).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/registry.h"
#include "rtl/verilated_model.h"

namespace gpuvp::rtl {

class FlopAccesses {
 public:
  enum class Fate : uint8_t { Held, Write, Read };

  // `observed`: the flip-flop names (VModel::flops() names) whose accesses are recorded; each must be
  // registered as `path`.<name>, and is marked Target::reads_observed. `consumed`: the observed output
  // flip-flops that a consumer outside the design samples after an edge at which `strobe` (a flip-flop
  // name) is non-zero in the next state (the SMs sample the launch outputs when their smp_en rises).
  FlopAccesses(VModel& m, Registry& reg, const std::string& path, uint64_t period_ps, const std::vector<std::string>& observed,
               const std::vector<std::string>& consumed, const std::string& strobe);

  // Called at an evaluated edge at `t_ps` with the inputs already on the ports, before the edge is
  // clocked; leaves the design exactly as it found it. Records nothing while the registry does not record.
  void before_edge(uint64_t t_ps);
  // The edges skipped after the last evaluated one, up to the end of the run.
  void finish(uint64_t now_ps);
  // The fates found at the last evaluated edge, one per observed flip-flop (tests).
  const std::vector<Fate>& last_fates() const { return fate_; }
  uint64_t probes() const { return probes_; }
  // Off: every edge is probed (tests compare the fates both ways).
  void set_memoise(bool on) { memoise_ = on; }

 private:
  struct Word {
    size_t flop;            // index in VModel::flops()
    const Target* target;
    bool consumed;
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint64_t>& k) const;
  };
  void clock_from(const std::vector<uint64_t>& state, std::vector<uint64_t>& next);
  Fate fate_of(const Word& w, const std::vector<uint64_t>& state, const std::vector<uint64_t>& next);
  void probe_edge();
  void close_gap(uint64_t next_edge_ps);

  VModel& m_;
  Registry& reg_;
  uint64_t period_;
  std::vector<Word> words_;
  size_t strobe_;
  std::vector<Fate> fate_;           // at the last evaluated edge
  uint64_t last_ps_ = 0;
  bool any_ = false;                 // an edge was evaluated while recording
  std::vector<uint64_t> state_, next_, probe_next_;
  uint64_t probes_ = 0;
  bool memoise_ = true;
  std::vector<uint64_t> key_;  // flip-flops, then input ports
  std::unordered_map<std::vector<uint64_t>, std::vector<Fate>, KeyHash> memo_;
};

}  // namespace gpuvp::rtl
