#include "models/memory/dram_bus.h"

#include <cmath>
#include <iterator>

#include "models/common/digest.h"

namespace gpuvp {

namespace {
uint64_t to_ps(const sc_core::sc_time& t) { return uint64_t(std::llround(t.to_seconds() * 1e12)); }
// A millionth of a ps: instants that differ by less are equal (keeps 0.5 * 1000 from becoming 501
// through a last-bit error, and a transfer that exactly fills a gap from fitting).
constexpr double kEps = 1e-6;
}  // namespace

sc_core::sc_time DramBus::ps(double t) { return sc_core::sc_time(std::ceil(t - kEps), sc_core::SC_PS); }

sc_core::sc_time DramBus::free_at() const { return busy_.empty() ? sc_core::SC_ZERO_TIME : ps(end_of(*busy_.rbegin())); }

uint64_t DramBus::timing_digest(uint64_t now) const {
  uint64_t h = 0;
  for (const auto& p : busy_)
    if (end_of(p) > double(now) - kEps) h = digest_fold(digest_fold(h, p.first - now), p.second);
  return h;
}

DramBus::Slot DramBus::reserve(const sc_core::sc_time& arrival, uint64_t bytes) {
  // Nothing is offered before the current time: periods over by then are history.
  const double now = double(to_ps(sc_core::sc_time_stamp()));
  while (!busy_.empty() && end_of(*busy_.begin()) <= now - kEps) busy_.erase(busy_.begin());
  const uint64_t a = to_ps(arrival);
  const double len = double(bytes) * ps_per_byte_;
  // The period at or before the arrival, if the arrival falls in it, sets the earliest start; then
  // every period that starts before the transfer would end pushes it past that period.
  auto next = busy_.upper_bound(a);
  Periods::iterator at = busy_.end();  // the period the transfer continues, if any
  double t = double(a);
  if (next != busy_.begin() && end_of(*std::prev(next)) > t - kEps) {
    at = std::prev(next);
    t = end_of(*at);
  }
  while (next != busy_.end() && t + len > double(next->first) + kEps) {
    at = next++;
    t = end_of(*at);
  }
  if (at == busy_.end()) at = busy_.emplace(a, 0).first;  // the bus is idle at the arrival
  const Slot s{at->second == 0 ? arrival : ps(t), sc_core::sc_time(0, sc_core::SC_PS)};
  at->second += bytes;
  bytes_ += bytes;
  // The transfer filled the gap exactly: the next period continues this one.
  if (next != busy_.end() && end_of(*at) >= double(next->first) - kEps) {
    at->second += next->second;
    busy_.erase(next);
    return {s.start, ps(t + len)};
  }
  return {s.start, ps(end_of(*at))};
}

}  // namespace gpuvp
