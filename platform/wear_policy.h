#pragma once
// Wear-balancing policies for spatially multitasked applications (docs/power.md, "Wear-balancing
// policies"): each application runs on its SM partition (an SM set, docs/concurrent-kernels.md); a
// rotation shifts every partition by one SM, blocks already running finish where they are. One
// interface, one file per policy: wear_baseline.cc, wear_fixed.cc, wear_monitoring.cc, wear_uniform.cc.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

struct WearPolicyConfig {
  std::string name;          // "baseline" | "fixed" | "monitoring" | "uniform"
  unsigned rotations = 1;    // fixed: R
  double longest_s = 0;      // fixed: T, the run time of the longest application (s)
  uint64_t threshold = 0;    // monitoring: max - min of the accumulated sensor increases (sensor units)
};

class WearPolicy {
 public:
  virtual ~WearPolicy() = default;
  // The per-SM consumption rates the policy's wear balance reaches over the window, from those measured
  // on its run (`cr`, one per SM). A policy that places blocks itself reaches what was measured; an ideal
  // one that no placement realises (uniform) says what it would reach.
  virtual std::vector<double> balance(std::vector<double> cr) const { return cr; }
  // Called at the end of every sample interval, at simulated time `t_s`, with every SM's aging sensor
  // (gpu.smN.em_sensor); true: rotate the partitions now.
  virtual bool rotate(double t_s, const std::vector<uint64_t>& sensors) = 0;
};

// The policy `c.name`; std::invalid_argument naming the field for an unknown name or bad values.
std::unique_ptr<WearPolicy> make_wear_policy(const WearPolicyConfig& c);
std::unique_ptr<WearPolicy> make_baseline_policy();
std::unique_ptr<WearPolicy> make_fixed_policy(unsigned rotations, double longest_s);
std::unique_ptr<WearPolicy> make_monitoring_policy(uint64_t threshold);
std::unique_ptr<WearPolicy> make_uniform_policy();

// Partitions of `sizes` SMs each, consecutive from SM 0 (bit i: SM i); std::invalid_argument when they
// need more than `sms` SMs or one is empty.
std::vector<uint64_t> partition_masks(const std::vector<unsigned>& sizes, unsigned sms);
// `mask` shifted by one SM, modulo `sms` (SM sms-1 wraps to SM 0).
uint64_t rotate_mask(uint64_t mask, unsigned sms);

}  // namespace gpuvp
