// Priority-stream baseline: one stream per priority class, under the GPU's queue rules. The TX2 has two
// hardware levels: high applications go to a high-priority stream, medium and low ones each to a stream
// of the low level (so medium and low share the low EE queue in launch order, A1/A2).
#include "platform/deadline_policy.h"

namespace gpuvp::deadline {
namespace {

class PriorityStreams : public WholeKernels {
 public:
  std::string name() const override { return "priority_streams"; }

 protected:
  rt::Stream stream_for(const AppState& a, Gpu& gpu) override {
    rt::Stream& s = streams_[size_t(a.app->priority)];
    if (!s) s = gpu.new_stream(a.app->priority == Priority::High ? -1 : 0);
    return s;
  }

 private:
  rt::Stream streams_[3] = {0, 0, 0};
};

}  // namespace

std::unique_ptr<Policy> make_priority_streams() { return std::make_unique<PriorityStreams>(); }

}  // namespace gpuvp::deadline
