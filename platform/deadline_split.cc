// The deadline-aware technique (docs/deadline.md, "The technique"): kernels split into sub-kernels of
// one wave on an application's SMs, SMs re-divided among the running applications at every release and
// completion (workload splitter), sub-kernels launched ahead so that the GPU does not idle between
// them, and the most urgent application's slack filled with single blocks of starved ones.
#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "platform/deadline_policy.h"

namespace gpuvp::deadline {
namespace {

// Sub-kernels in flight per application: the one running and the one launched ahead of it.
constexpr size_t kAhead = 2;

class Split : public Policy {
 public:
  std::string name() const override { return "split"; }

  void decide(const std::vector<AppState*>& active, Gpu& gpu) override {
    std::vector<AppState*> order = reallocation_list(active);
    const std::vector<unsigned> give = split_sms(order, gpu);
    for (size_t i = 0; i < order.size(); ++i)
      if (!give[i] && order[i]->inflight.empty()) finished(*order[i]);  // idle: its set may serve another
    place(order, give, gpu);
    for (size_t i = 0; i < order.size(); ++i)
      if (give[i]) launch_ahead(*order[i], give[i], gpu);
    fill_slack(order, give, gpu);
  }

 private:
  // Priority, then earliest deadline, then release order.
  static std::vector<AppState*> reallocation_list(const std::vector<AppState*>& active) {
    std::vector<AppState*> order = active;
    std::stable_sort(order.begin(), order.end(), [](const AppState* a, const AppState* b) {
      return std::make_tuple(int(a->app->priority), a->deadline_at()) < std::make_tuple(int(b->app->priority), b->deadline_at());
    });
    return order;
  }

  // The fewest SMs with which `a` still meets its deadline; every SM if none does.
  static unsigned needed(const AppState& a, Gpu& gpu) {
    const uint64_t now = gpu.now_ns(), due = a.deadline_at();
    for (unsigned n = 1; n <= gpu.sms(); ++n)
      if (due >= now && due - now >= remaining_ns(a, n, gpu)) return n;
    return gpu.sms();
  }

  // The workload splitter: SMs given in list order while they last; the first application that cannot
  // get what it needs takes the rest, and every one after it gets none (it waits, or runs single blocks
  // in slack).
  static std::vector<unsigned> split_sms(const std::vector<AppState*>& order, Gpu& gpu) {
    std::vector<unsigned> give(order.size(), 0);
    unsigned left = gpu.sms();
    for (size_t i = 0; i < order.size() && left; ++i) {
      const unsigned need = needed(*order[i], gpu);
      give[i] = std::min(need, left);
      left = need < left ? left - need : 0;
    }
    return give;
  }

  // Which SMs: each application keeps as many of its SMs as it is given (so a change moves as few
  // blocks as possible), then takes free ones, lowest id first. An application given none that still
  // has a sub-kernel queued (launched ahead) is confined to the SMs nobody was given, or when every
  // SM was, to those of the last application given any (the one short of SMs): its queued blocks
  // wait for an SM there, one block at a time, and never start on an SM a more urgent application
  // was given (left in its old set, they took SMs the moment a block of that application ended).
  void place(const std::vector<AppState*>& order, const std::vector<unsigned>& give, Gpu& gpu) {
    uint64_t owned = 0;
    std::vector<uint64_t> mask(order.size(), 0);
    for (size_t i = 0; i < order.size(); ++i)
      for (uint64_t m = order[i]->sms & ~owned; m && unsigned(__builtin_popcountll(mask[i])) < give[i]; m &= m - 1) {
        mask[i] |= m & -m;
        owned |= m & -m;
      }
    for (size_t i = 0; i < order.size(); ++i)
      for (unsigned sm = 0; sm < gpu.sms() && unsigned(__builtin_popcountll(mask[i])) < give[i]; ++sm)
        if (!(owned >> sm & 1)) mask[i] |= uint64_t{1} << sm, owned |= uint64_t{1} << sm;
    for (size_t i = 0; i < order.size(); ++i)
      if (mask[i] && mask[i] != order[i]->sms) move(*order[i], mask[i], gpu);
    const uint64_t all = gpu.sms() >= 64 ? ~uint64_t{0} : (uint64_t{1} << gpu.sms()) - 1;
    uint64_t spare = all & ~owned;
    for (size_t i = order.size(); i-- > 0 && !spare;) spare = mask[i];
    for (size_t i = 0; i < order.size(); ++i)
      if (spare && !give[i] && !order[i]->inflight.empty() && order[i]->set && (order[i]->sms & ~spare))
        move(*order[i], spare, gpu);
  }

  void move(AppState& a, uint64_t sms, Gpu& gpu) {
    if (!a.set) a.set = take_set(sms, gpu);
    else gpu.set_sms(a.set, sms);
    a.sms = sms;
  }

  // SM sets of finished applications are reused (the GPU has scheduler.sm_sets).
  uint32_t take_set(uint64_t sms, Gpu& gpu) {
    if (free_sets_.empty()) return gpu.new_sm_set(sms);
    const uint32_t s = free_sets_.back();
    free_sets_.pop_back();
    gpu.set_sms(s, sms);
    return s;
  }

  // A finished application's set may serve another.
 public:
  void finished(AppState& a) override {
    if (a.set) free_sets_.push_back(a.set);
    a.set = 0;
    a.sms = 0;
  }

 private:
  // Launch-ahead: one sub-kernel of one wave on its n SMs running and the next one already queued, so
  // the next starts as the running one ends whenever the launch latency is shorter than a sub-kernel.
  void launch_ahead(AppState& a, unsigned n, Gpu& gpu) {
    while (a.inflight.size() < kAhead) {
      const size_t k = a.next_to_launch();
      if (k >= a.app->kernels.size()) return;
      const Kernel& kd = a.app->kernels[k];
      const uint64_t wave = uint64_t(n) * blocks_per_sm(kd, gpu.config());
      launch(a, k, a.launched[k], std::min<uint64_t>(kd.blocks, a.launched[k] + wave), gpu);
    }
  }

  // A sub-kernel goes to a stream of its own unless a sub-kernel of an earlier kernel of `a` is in
  // flight, behind which it must wait (an application's kernels run in order). Sub-kernels of one
  // kernel are independent: in one stream, the one launched ahead would wait for every block of the
  // one before, and an SM handed to `a` meanwhile (a set enlarged) would idle while `a` has blocks
  // queued; in separate streams its blocks take any slot of the set as it frees.
  void launch(AppState& a, size_t k, uint64_t first, uint64_t last, Gpu& gpu) {
    std::vector<rt::Stream>& own = streams_[&a];
    rt::Stream s = 0;
    for (const InFlight& f : a.inflight)
      if (f.kernel < k) {
        // Launching keeps at most kAhead - 1 = 1 sub-kernel in flight, so the earlier kernel is in one stream.
        if (s && s != f.stream) throw std::logic_error("split: an earlier kernel in flight in two streams");
        s = f.stream;
      }
    for (size_t i = 0; !s && i < own.size(); ++i)
      if (std::none_of(a.inflight.begin(), a.inflight.end(), [&](const InFlight& f) { return f.stream == own[i]; })) s = own[i];
    if (!s) s = own.emplace_back(gpu.new_stream(a.app->priority == Priority::High ? -1 : 0));
    a.stream = s;
    gpu.launch(a, k, first, last);
  }

  // Slack filling: while the most urgent application's slack (deadline - now - R on its SMs) exceeds a
  // starved application's block time plus a launch, that block runs on the urgent one's SMs.
  void fill_slack(const std::vector<AppState*>& order, const std::vector<unsigned>& give, Gpu& gpu) {
    if (order.empty() || !give[0]) return;
    const AppState& top = *order[0];
    const uint64_t now = gpu.now_ns(), r = remaining_ns(top, give[0], gpu);
    if (top.deadline_at() < now + r) return;
    uint64_t slack = top.deadline_at() - now - r;
    for (size_t i = 1; i < order.size(); ++i) {
      AppState& a = *order[i];
      const size_t k = a.next_to_launch();
      if (give[i] || !a.inflight.empty() || k >= a.app->kernels.size()) continue;
      const uint64_t block = a.app->kernels[k].spin_ns + gpu.launch_latency_ns();
      if (block > slack) continue;
      slack -= block;
      if (a.sms != top.sms || !a.set) move(a, top.sms, gpu);
      launch(a, k, a.launched[k], a.launched[k] + 1, gpu);
    }
  }

  std::vector<uint32_t> free_sets_;
  std::map<const AppState*, std::vector<rt::Stream>> streams_;  // each application's sub-kernel streams
};

}  // namespace

std::unique_ptr<Policy> make_split() { return std::make_unique<Split>(); }

}  // namespace gpuvp::deadline
