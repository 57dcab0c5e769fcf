// monitoring: at every sample interval add each SM's sensor increase to its accumulator; when the
// largest accumulator minus the smallest reaches the threshold, rotate and clear every accumulator.
#include <algorithm>
#include <stdexcept>

#include "platform/wear_policy.h"

namespace gpuvp {

namespace {
class MonitoringPolicy : public WearPolicy {
 public:
  explicit MonitoringPolicy(uint64_t threshold) : threshold_(threshold) {}
  bool rotate(double, const std::vector<uint64_t>& sensors) override {
    if (last_.empty()) {
      last_.assign(sensors.size(), 0);
      acc_.assign(sensors.size(), 0);
    }
    for (size_t k = 0; k < sensors.size(); ++k) {
      acc_[k] += sensors[k] - last_[k];
      last_[k] = sensors[k];
    }
    auto [lo, hi] = std::minmax_element(acc_.begin(), acc_.end());
    if (*hi - *lo < threshold_) return false;
    std::fill(acc_.begin(), acc_.end(), 0);
    return true;
  }

 private:
  uint64_t threshold_;
  std::vector<uint64_t> last_, acc_;
};
}  // namespace

std::unique_ptr<WearPolicy> make_monitoring_policy(uint64_t threshold) {
  if (threshold == 0) throw std::invalid_argument("wear policy monitoring: threshold must be > 0");
  return std::make_unique<MonitoringPolicy>(threshold);
}

}  // namespace gpuvp
