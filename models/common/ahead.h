#pragma once
// Instants of accesses made by initiators that run ahead of simulated time (the SMs), for access
// recording (docs/campaigns.md "Lifetimes, ACE and pruning"). While one of their processes accesses
// outside the SM, it says the latest instant the access may be ordered at against a stop (its core's
// cycle); a memory recording the access takes [simulated time, that instant] for its instant. Keyed by
// the SystemC process: a transaction that waits lets other processes access meanwhile. Only set while
// the registry records (the golden run), so it costs nothing otherwise.
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuvp::ahead {

inline std::vector<std::pair<const void*, uint64_t>>& table() {
  static std::vector<std::pair<const void*, uint64_t>> t;  // few entries: the SMs' processes in an access
  return t;
}

// `who` (a process object) is ahead up to `ps` from now on; 0: no longer.
inline void set(const void* who, uint64_t ps) {
  auto& t = table();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].first == who) {
      if (ps) t[i].second = ps;
      else t.erase(t.begin() + long(i));
      return;
    }
  if (ps) t.emplace_back(who, ps);
}

inline uint64_t until(const void* who) {
  for (const auto& a : table())
    if (a.first == who) return a.second;
  return 0;
}

}  // namespace gpuvp::ahead
