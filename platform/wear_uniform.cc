// uniform: partitions ignored, any application on any SM (the balance an ideal scheduler reaches).
#include "platform/wear_policy.h"

namespace gpuvp {

namespace {
class UniformPolicy : public WearPolicy {
 public:
  bool partitioned() const override { return false; }
  bool rotate(double, const std::vector<uint64_t>&) override { return false; }
};
}  // namespace

std::unique_ptr<WearPolicy> make_uniform_policy() { return std::make_unique<UniformPolicy>(); }

}  // namespace gpuvp
