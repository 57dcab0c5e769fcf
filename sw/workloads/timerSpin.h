#pragma once
// timerSpin: every block spins on %globaltimer for its spin time and records start, end and SM id.
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::timer_spin {

struct Inputs {
  std::vector<uint64_t> spin_ns;  // per block: spin_ns + a seeded draw in [0, jitter_ns]
  uint32_t sleep_ns = 0;
};
// Params: blocks, threads, spin_ns, jitter_ns (default 0), sleep_ns (default 100), nsm (SM count the
// ids are checked against; default 16, the largest any preset allows).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
struct Output {
  std::vector<uint64_t> start, end;
  std::vector<uint32_t> sm;
};
// Every block: end >= start, end - start >= its spin time, sm < nsm.
Result check(const Inputs& in, const Output& out, uint32_t nsm);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::timer_spin
