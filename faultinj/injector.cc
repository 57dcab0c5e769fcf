#include "faultinj/injector.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <systemc>

namespace gpuvp::fi {

std::string check_applicable(const Registry& reg, const Fault& f) {
  if (!reg.contains(f.target)) return fmt::format("no target '{}' in the registry", f.target);
  const Target& t = reg.at(f.target);
  if (f.index >= t.count) return fmt::format("{}: word {} beyond its {} words", f.target, f.index, t.count);
  const bool uses_bit = f.model != FaultModel::XorMask;
  if (uses_bit && f.bit >= t.width) return fmt::format("{}: bit {} beyond its width {}", f.target, f.bit, t.width);
  if (f.model == FaultModel::XorMask && mask_bits(f.mask, t.width) == 0)
    return fmt::format("{}: mask {:#x} has no bit inside its width {}", f.target, f.mask, t.width);
  return "";
}

namespace {

// Keeps a held fault applied: at every clock edge, the value the design left gets the fault again.
// For a flip, "the value the design left" is the value seen if it changed since the last edge.
void hold(Registry& reg, Fault f, uint64_t period_ps, uint64_t faulty) {
  const Target& t = reg.at(f.target);
  const sc_core::sc_time period = sc_core::sc_time::from_value(period_ps);
  const bool forever = f.duration == Duration::Permanent;
  const sc_core::sc_time end = sc_core::sc_time_stamp() + sc_core::sc_time::from_value(f.hold_ps);
  while (forever || sc_core::sc_time_stamp() + period <= end) {
    sc_core::wait(period);
    const uint64_t now = t.get(f.index);
    if (now == faulty) continue;  // the design has not touched it
    faulty = apply(f, now, t.width);
    reg.write(f.target, faulty, f.index);
  }
}

}  // namespace

void inject(Registry& reg, const Fault& f, uint64_t period_ps) {
  const std::string why = check_applicable(reg, f);
  if (!why.empty()) throw std::invalid_argument(why);
  const Target& t = reg.at(f.target);
  const uint64_t faulty = apply(f, t.get(f.index), t.width);
  reg.write(f.target, faulty, f.index);
  if (f.duration == Duration::Transient) return;
  sc_core::sc_spawn_options opt;
  sc_core::sc_spawn([&reg, f, period_ps, faulty] { hold(reg, f, period_ps, faulty); },
                    sc_core::sc_gen_unique_name("fault_hold"), &opt);
}

}  // namespace gpuvp::fi
