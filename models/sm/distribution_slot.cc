// Slot distribution (the default): a warp runs on the cluster of its warp slot modulo the clusters,
// the scheduler whose lanes run it on tk1 and tx2.
#include "models/sm/cluster_distributor.h"

namespace gpuvp::sm {

namespace {
class SlotDistributor final : public ClusterDistributor {
 public:
  explicit SlotDistributor(unsigned clusters) : n_(clusters ? clusters : 1) {}
  unsigned next(unsigned warp) override { return warp % n_; }
  unsigned slot_modulus() const override { return n_; }

 private:
  unsigned n_;
};
}  // namespace

std::unique_ptr<ClusterDistributor> make_slot_distributor(unsigned clusters) {
  return std::make_unique<SlotDistributor>(clusters);
}

}  // namespace gpuvp::sm
