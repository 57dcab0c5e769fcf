#pragma once
// histogram: 256-bin byte histogram, shared-memory then global atomics.
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::histogram {

struct Inputs {
  std::vector<uint8_t> data;
};
// Params: n, blocks, threads, hot_percent (share of bytes equal to one seeded hot value, default 0).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
std::vector<uint32_t> reference(const Inputs& in);
// Exact.
Result check(const Inputs& in, const std::vector<uint32_t>& bins);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::histogram
