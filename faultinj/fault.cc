#include "faultinj/fault.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp::fi {

namespace {
uint64_t width_mask(unsigned width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

template <class E, size_t N>
E parse(const std::string& s, const char* const (&names)[N], const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  std::string known;
  for (auto* n : names) known += (known.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument(fmt::format("{} '{}' unknown (one of {})", what, s, known));
}

constexpr const char* kModels[] = {"bit_flip", "multi_bit_flip", "stuck_at_0", "stuck_at_1", "xor_mask",
                                   "random_value", "zero_value"};
constexpr const char* kDurations[] = {"transient", "intermittent", "permanent"};
constexpr const char* kOutcomes[] = {"masked", "masked_timing", "sdc", "due", "timeout", "tool_error", "tolerable"};
constexpr const char* kDueKinds[] = {"none", "tlm", "illegal_instruction", "out_of_bounds", "trap", "died", "other",
                                   "detected"};
}  // namespace

uint64_t apply(const Fault& f, uint64_t value, unsigned width) {
  const uint64_t wm = width_mask(width);
  const uint64_t b = f.bit < 64 ? uint64_t{1} << f.bit : 0;
  switch (f.model) {
    case FaultModel::BitFlip: return (value ^ b) & wm;
    case FaultModel::MultiBitFlip: {
      uint64_t m = f.nbits >= 64 ? ~uint64_t{0} : (uint64_t{1} << f.nbits) - 1;
      return (value ^ (f.bit < 64 ? m << f.bit : 0)) & wm;
    }
    case FaultModel::StuckAt0: return value & ~b & wm;
    case FaultModel::StuckAt1: return (value | b) & wm;
    case FaultModel::XorMask: return (value ^ f.mask) & wm;
    case FaultModel::RandomValue: return f.mask & wm;
    case FaultModel::ZeroValue: return 0;
  }
  return value & wm;
}

const char* to_string(FaultModel m) { return kModels[static_cast<int>(m)]; }
const char* to_string(Duration d) { return kDurations[static_cast<int>(d)]; }
const char* to_string(Outcome o) { return kOutcomes[static_cast<int>(o)]; }
const char* to_string(DueKind k) { return kDueKinds[static_cast<int>(k)]; }
FaultModel parse_fault_model(const std::string& s) { return parse<FaultModel>(s, kModels, "fault model"); }
Duration parse_duration(const std::string& s) { return parse<Duration>(s, kDurations, "duration"); }
Outcome parse_outcome(const std::string& s) { return parse<Outcome>(s, kOutcomes, "outcome"); }
DueKind parse_due_kind(const std::string& s) { return parse<DueKind>(s, kDueKinds, "DUE kind"); }

DueKind due_kind_of(const std::string& k) {
  if (k == "tlm") return DueKind::Tlm;
  if (k == "decode" || k == "illegal") return DueKind::IllegalInstruction;
  if (k == "address" || k == "misaligned" || k == "bounds") return DueKind::OutOfBounds;
  if (k == "trap") return DueKind::Trap;
  if (k == "detected") return DueKind::Detected;
  return DueKind::Other;
}

}  // namespace gpuvp::fi
