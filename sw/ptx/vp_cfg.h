#pragma once
// Basic blocks, control-flow successors and loops of a function's body, for the vulnerable-period
// scheduler and estimate. A loop is what nvcc's layout makes of one: a backward branch at `tail` to
// `head`, the instructions [head, tail] its body.
#include <cstddef>
#include <vector>

#include "sw/ptx/parser.h"
#include "sw/ptx/vp_access.h"

namespace gpuvp::ptx::vp {

struct Loop {
  size_t head = 0, tail = 0;
  bool contains(size_t k) const { return k >= head && k <= tail; }
};

struct Cfg {
  std::vector<size_t> block_of;          // per instruction: its basic block
  std::vector<size_t> block_begin;       // per block: first instruction (blocks are contiguous)
  std::vector<std::vector<size_t>> succ; // per instruction; body.size() is "past the end"
  std::vector<Loop> loops;
  std::vector<unsigned> depth;           // per instruction: loops containing it
  size_t block_end(size_t b) const { return b + 1 < block_begin.size() ? block_begin[b + 1] : block_of.size(); }
};

Cfg analyse(const Function& f, const std::vector<Access>& acc);

}  // namespace gpuvp::ptx::vp
