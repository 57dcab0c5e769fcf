#pragma once
// Instruction scheduling of the assembler (the `asm.schedule` key): `nvcc` keeps the PTX's order,
// `vp` reorders each basic block so that values are consumed soon after they are produced
// (vulnerable-period-aware scheduling, docs/vulnerable-period.md). Both compute the same results.
#include <string>

#include "sw/ptx/parser.h"

namespace gpuvp::ptx {

enum class Schedule { Nvcc, Vp };

// "nvcc" or "vp"; std::invalid_argument naming the accepted values otherwise.
Schedule parse_schedule(const std::string& name);
const char* schedule_name(Schedule s);

// The module with every function body in the order `s` gives it.
Module reschedule(const Module& m, Schedule s);

}  // namespace gpuvp::ptx
