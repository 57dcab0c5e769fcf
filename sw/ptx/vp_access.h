#pragma once
// What each instruction of a function reads and writes, as the vulnerable-period scheduler and
// estimate see it (docs/vulnerable-period.md). Values are numbered: register r is r, predicate q is
// nregs + q. Memory is one location (no alias analysis): every store conflicts with every access.
#include <cstdint>
#include <vector>

#include "sw/ptx/parser.h"

namespace gpuvp::ptx::vp {

struct Access {
  std::vector<uint32_t> reads, writes;   // value numbers
  bool mem_read = false, mem_write = false;
  bool fence = false;    // barrier, synchronisation or side effect: nothing moves across it
  bool control = false;  // ends a basic block (branch, call, return, exit, trap)
  bool unguarded = true; // its writes always happen (a guarded write may keep the old value)
};

std::vector<Access> accesses(const Function& f);

// Whether `b` reads what `a` writes, writes what `a` reads or writes, or conflicts with it in memory.
bool conflict(const Access& a, const Access& b);

}  // namespace gpuvp::ptx::vp
