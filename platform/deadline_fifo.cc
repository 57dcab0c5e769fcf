// FIFO baseline: every application's kernels in one stream, launched at its release: kernels run in
// release order, one application's after another's, whatever their priorities.
#include "platform/deadline_policy.h"

namespace gpuvp::deadline {
namespace {

class Fifo : public WholeKernels {
 public:
  std::string name() const override { return "fifo"; }

 protected:
  rt::Stream stream_for(const AppState&, Gpu& gpu) override {
    if (!stream_) stream_ = gpu.new_stream(0);
    return stream_;
  }

 private:
  rt::Stream stream_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_fifo() { return std::make_unique<Fifo>(); }

}  // namespace gpuvp::deadline
