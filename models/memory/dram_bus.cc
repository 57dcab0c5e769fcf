#include "models/memory/dram_bus.h"

#include <cmath>

namespace gpuvp {

namespace {
uint64_t to_ps(const sc_core::sc_time& t) { return uint64_t(std::llround(t.to_seconds() * 1e12)); }
}  // namespace

// A tolerance of a millionth of a ps keeps 0.5 * 1000 from becoming 501 through a last-bit error.
sc_core::sc_time DramBus::ps(double t) { return sc_core::sc_time(std::ceil(t - 1e-6), sc_core::SC_PS); }

DramBus::Slot DramBus::reserve(const sc_core::sc_time& arrival, uint64_t bytes) {
  const uint64_t a = to_ps(arrival);
  const double free = exact_free();
  Slot s;
  if (double(a) >= free - 1e-6) {  // the bus is idle: a new busy period starts with this transfer
    origin_ = a;
    period_bytes_ = 0;
    s.start = arrival;
  } else {
    s.start = ps(free);
  }
  period_bytes_ += bytes;
  bytes_ += bytes;
  s.end = ps(exact_free());
  return s;
}

}  // namespace gpuvp
