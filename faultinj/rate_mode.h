#pragma once
// Rate mode (docs/campaigns.md, "Rate mode"): several faults per run, arriving as a Poisson process at
// a rate per million kernel cycles over chosen components of one SM: its register file and the
// results of its functional units (instruction_output.h's U_* groups), as the published
// vulnerable-period evaluation injected (10, 50, 100 faults per million cycles).
//
// A run is one Fault of the store: target "gpu.smK.rate", event "rate:<rate>:<components>" (the
// components comma-separated), count = the number of faults K it received, mask = its seed, time_ps
// = the instant its first fault forks at. expand_rate_fault() draws its K faults again from the seed
// and the golden run, the same in the campaign process and in the run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faultinj/fault.h"
#include "faultinj/instruction_output.h"

namespace gpuvp::fi {

struct GoldenRun;  // engine.h

constexpr const char* kRateRegisters = "registers";  // the component name of the SM's register file

struct RateSpec {
  double per_million_cycles = 0;
  unsigned sm = 0;
  std::vector<std::string> components;  // "registers" and U_* group names
  // Register faults over the whole file instead of the words the kernels allocated (the campaign's
  // "allocated_only": false); the event ends in ":all".
  bool whole_regfile = false;
};

// "rate:50:registers,U_INT" (":all" appended with whole_regfile) and back; none for another event.
std::string rate_event(const RateSpec& r);
std::optional<RateSpec> parse_rate_event(const std::string& event);
inline bool is_rate(const Fault& f) { return f.event.rfind("rate:", 0) == 0; }

// The instruction-output targets a rate campaign's golden run must count (its U_* components).
std::vector<InstOutputTarget> rate_inst_targets(const RateSpec& r);

// The expected number of faults of one run: rate x the golden run's kernel cycles / 10^6.
double rate_mean(const RateSpec& r, uint64_t kernel_cycles);
// A Poisson draw of mean `mean` from `seed` (inversion of the distribution function, exact in double
// for means up to several hundred).
uint64_t poisson(uint64_t seed, double mean);

// `n` runs of a rate campaign: each with its seed, its number of faults and its first instant.
std::vector<Fault> rate_faults(const RateSpec& r, const GoldenRun& g, uint64_t n, uint64_t seed);

// The faults of one run, by instant: a register-file fault (target gpu.smK.regs, a word and bit, a
// clock edge of the execution window) or a unit-result fault (an instruction-output fault of the
// component's group, one lane); each bit_flip. Throws std::invalid_argument when the golden run lacks
// what a component needs.
std::vector<Fault> expand_rate_fault(const Fault& run, const GoldenRun& g);

}  // namespace gpuvp::fi
