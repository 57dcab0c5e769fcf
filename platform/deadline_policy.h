#pragma once
// The host-side framework of deadline-aware scheduling (docs/deadline.md): a policy decides, at every
// release of an application and every completion of one of its (sub-)kernels, what to launch where.
// The runner (deadline_run.h) owns the applications' state and the GPU; a policy sees both through
// AppState and Gpu. One file per policy: deadline_fifo.cc, deadline_streams.cc, deadline_split.cc.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/deadline_apps.h"
#include "sw/runtime/runtime.h"

namespace gpuvp::deadline {

// A (sub-)kernel launched and not yet seen complete: blocks [first, last) of kernel `kernel`.
struct InFlight {
  uint64_t launch = 0;
  size_t kernel = 0;
  uint64_t first = 0, last = 0;
  rt::Stream stream = 0;  // the stream it was launched in
};

struct AppState {
  const App* app = nullptr;
  bool released = false, finished = false;
  uint64_t finish_ns = 0;               // scenario time of its last block's completion
  std::vector<uint64_t> launched, completed;  // per kernel: blocks launched, blocks completed
  std::vector<InFlight> inflight;
  rt::Stream stream = 0;                // the stream its next launch goes to (0: none yet)
  uint32_t set = 0;                     // its SM set (0: none yet)
  uint64_t sms = 0;                     // the SMs of that set now

  uint64_t deadline_at() const { return app->release_ns + app->deadline_ns; }
  // The kernel whose blocks complete next (its kernels run in order), and the next one to launch.
  size_t current() const;
  size_t next_to_launch() const;
};

// What a policy may do, in scenario time (ns from the start of the run of its set).
class Gpu {
 public:
  virtual ~Gpu() = default;
  virtual uint64_t now_ns() const = 0;
  virtual unsigned sms() const = 0;
  virtual const Config& config() const = 0;
  virtual uint64_t launch_latency_ns() const = 0;
  virtual rt::Stream new_stream(int cuda_priority) = 0;  // -1 high, 0 low
  virtual uint32_t new_sm_set(uint64_t sms) = 0;
  virtual void set_sms(uint32_t set, uint64_t sms) = 0;
  // Launches blocks [first, last) of kernel k of `a` in its stream on its SM set (0: every SM); the
  // call takes the driver's launch latency of host time.
  virtual void launch(AppState& a, size_t k, uint64_t first, uint64_t last) = 0;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // At a release or a completion: `active` are the released, unfinished applications in release order.
  virtual void decide(const std::vector<AppState*>& active, Gpu& gpu) = 0;
  // `a` has finished (before the decision that follows).
  virtual void finished(AppState& /*a*/) {}
};

// Baselines without splitting: each application's kernels launched whole, in order, at its release, in
// the stream stream_for gives it (FIFO: one stream for all; priority streams: one per priority).
class WholeKernels : public Policy {
 public:
  void decide(const std::vector<AppState*>& active, Gpu& gpu) override;

 protected:
  virtual rt::Stream stream_for(const AppState& a, Gpu& gpu) = 0;
};

std::unique_ptr<Policy> make_fifo();
std::unique_ptr<Policy> make_priority_streams();
std::unique_ptr<Policy> make_split();
// By name (fifo, priority_streams, split); throws std::invalid_argument naming the known ones.
std::unique_ptr<Policy> make_policy(const std::string& name);

// R(A, n): the time `a` still needs on n SMs, its current kernel's remaining fraction of E plus every
// later kernel's launch latency and E (docs/deadline.md, "The technique").
uint64_t remaining_ns(const AppState& a, unsigned n, const Gpu& gpu);

}  // namespace gpuvp::deadline
