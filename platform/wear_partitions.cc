// Building and choosing wear policies; partitions as SM masks and their rotation.
#include <fmt/format.h>

#include <stdexcept>

#include "platform/wear_policy.h"

namespace gpuvp {

std::unique_ptr<WearPolicy> make_wear_policy(const WearPolicyConfig& c) {
  if (c.name == "baseline") return make_baseline_policy();
  if (c.name == "fixed") return make_fixed_policy(c.rotations, c.longest_s);
  if (c.name == "monitoring") return make_monitoring_policy(c.threshold);
  if (c.name == "uniform") return make_uniform_policy();
  throw std::invalid_argument(
      fmt::format("wear policy '{}' unknown (baseline, fixed, monitoring, uniform)", c.name));
}

std::vector<uint64_t> partition_masks(const std::vector<unsigned>& sizes, unsigned sms) {
  if (sms > 64) throw std::invalid_argument(fmt::format("partitions: {} SMs, at most 64", sms));
  std::vector<uint64_t> out;
  unsigned first = 0;
  for (unsigned s : sizes) {
    if (s == 0) throw std::invalid_argument("partitions: an application's partition has no SM");
    if (first + s > sms)
      throw std::invalid_argument(fmt::format("partitions: {} SMs asked for, the GPU has {}", first + s, sms));
    out.push_back(((s == 64 ? ~uint64_t{0} : (uint64_t{1} << s) - 1)) << first);
    first += s;
  }
  return out;
}

uint64_t rotate_mask(uint64_t mask, unsigned sms) {
  const uint64_t all = sms == 64 ? ~uint64_t{0} : (uint64_t{1} << sms) - 1;
  const uint64_t top = (mask >> (sms - 1)) & 1;
  return ((mask << 1) & all) | top;
}

}  // namespace gpuvp
