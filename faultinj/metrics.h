#pragma once
// Campaign metrics (fault-injection.md, "Metrics"): Wilson intervals, AVF tables per outcome class,
// target and structure, the study's MTBF, and FIT/MTBF from a raw per-bit upset rate.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "faultinj/fault.h"

namespace gpuvp::fi {

struct Interval {
  double lo = 0;
  double hi = 1;
};

// Wilson score interval of the proportion k/n at normal quantile z; n = 0 gives [0, 1].
Interval wilson(uint64_t k, uint64_t n, double z = 1.96);

// Run counts of one group of faults (all, one target, one structure).
struct ClassCounts {
  uint64_t runs = 0;  // every run, tool errors included
  std::array<uint64_t, kOutcomeCount> by_outcome{};
  std::array<uint64_t, kDueKindCount> by_due{};  // DUE runs by kind

  // Faults actually injected: runs minus tool errors (a fault that could not be applied says
  // nothing about the design). The AVF denominator.
  uint64_t injected() const;
  uint64_t count(Outcome o) const { return by_outcome[static_cast<int>(o)]; }
  // count(o) / injected() (0 when nothing was injected); ToolError is over all runs instead.
  double avf(Outcome o) const;
  Interval ci(Outcome o, double z = 1.96) const;
};

// One finished run as the metrics see it.
struct RunPoint {
  std::string target;
  Outcome outcome = Outcome::Masked;
  DueKind due = DueKind::None;
  std::string kernel;      // RunRecord::kernel ("" none)
  std::string inst_class;  // RunRecord::inst_class ("" none)
  std::string ptx_reg;     // RunRecord::reg_name: a register-file word's PTX register ("" none)
};

struct AvfTables {
  ClassCounts all;
  std::map<std::string, ClassCounts> per_target;
  std::map<std::string, ClassCounts> per_structure;
  // Per launch running at the fault's instant (kNoLaunch for runs without one), and per instruction
  // class of instruction-output faults (other runs are left out).
  std::map<std::string, ClassCounts> per_kernel;
  std::map<std::string, ClassCounts> per_class;
  // Per PTX register of register-file faults ("%r2", "%rd1.hi": the word's register in the golden run).
  std::map<std::string, ClassCounts> per_ptx_reg;
};
constexpr const char* kNoLaunch = "(none: between launches, rate mode)";

// The semantic structure a registered target belongs to, across SMs (docs/campaigns.md, "Structures"):
// register file, predicates, warp control, shared memory, SM control, block scheduler, arbiters, L1
// data caches, L2 cache, configuration block, global memory, constant memory, system memory, bus
// links; "other" for a name none of these claims.
std::string structure_of(const std::string& target);

AvfTables avf_tables(const std::vector<RunPoint>& runs);

// The FlexGripPlus study's MTBF for SDCs: cross section = sdc / injected, flux = 1 / exec_time,
// MTBF = 1 / (cross section x flux) = exec_time / cross section, in the unit of exec_time.
// +inf when there is no SDC (or nothing injected).
double study_mtbf(uint64_t sdc, uint64_t injected, double exec_time);

// FIT (failures per 1e9 device hours) = raw FIT per bit x bits x AVF; MTBF hours = 1e9 / FIT
// (+inf when FIT is 0).
double fit(double raw_fit_per_bit, uint64_t bits, double avf);

// The raw upset rate reports use when neither `gpuvp report --raw-fit` nor the campaign file's
// raw_fit_per_bit gives one: 1e-3 FIT per bit, i.e. 1000 FIT per Mbit (10^6 bits), the order of magnitude
// commonly cited for unprotected SRAM at sea level (R. Baumann, "Radiation-induced soft errors in advanced
// semiconductor technologies", IEEE TDMR 5(3), 2005). A default, not a property of any design.
constexpr double kDefaultRawFitPerBit = 1e-3;
double mtbf_hours_of_fit(double fit);

// A number for reports: "inf" for +inf, else up to `digits` significant digits.
std::string format_number(double x, int digits = 6);

}  // namespace gpuvp::fi
