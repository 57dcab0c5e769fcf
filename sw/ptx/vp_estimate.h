#pragma once
// Design-time estimate of register vulnerable periods (docs/vulnerable-period.md): for each value a
// kernel produces, the time from the producing instruction's issue to its last consumer's issue,
// from the data-dependence graph and a per-instruction issue-to-next-issue time; summed per
// register, per basic block and in total.
#include <functional>
#include <string>
#include <vector>

#include "sw/ptx/parser.h"

namespace gpuvp::ptx::vp {

// An instruction's timing for one warp: cycles from its issue until the warp may issue its next
// instruction (`issue`), and until an instruction that reads its result may issue (`result`; later
// than `issue` only for what a scoreboard lets the warp run past, such as a global load's data).
struct Step {
  double issue = 0, result = 0;
};
using StepCycles = std::function<Step(const isa::Inst&)>;

struct Value {
  size_t producer = 0;  // body index
  size_t consumer = 0;  // its last consumer (the longest edge)
  std::string reg;      // register or predicate name
  size_t block = 0;     // the producer's basic block
  double cycles = 0;
};

struct Estimate {
  std::vector<Value> values;  // produced values with at least one consumer
  std::vector<std::pair<std::string, double>> per_reg;  // every register and predicate, declaration order
  std::vector<double> per_block;
  double total = 0;
};

// `trips`: the iterations assumed for every loop (the estimate runs before the kernel does).
Estimate estimate(const Function& f, const StepCycles& step, double trips);

}  // namespace gpuvp::ptx::vp
