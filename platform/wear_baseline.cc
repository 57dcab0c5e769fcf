// baseline: static partitions, never rotated.
#include "platform/wear_policy.h"

namespace gpuvp {

namespace {
class BaselinePolicy : public WearPolicy {
 public:
  bool rotate(double, const std::vector<uint64_t>&) override { return false; }
};
}  // namespace

std::unique_ptr<WearPolicy> make_baseline_policy() { return std::make_unique<BaselinePolicy>(); }

}  // namespace gpuvp
