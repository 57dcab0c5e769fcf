#include "sw/workloads/timerSpin.h"

#include "sw/kernels/kernels.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::timer_spin {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  int64_t blocks = positive_param(cfg, "blocks", 4);
  int64_t spin = cfg.get("spin_ns", 1000), jitter = cfg.get("jitter_ns", 0);
  if (spin < 0 || jitter < 0)
    throw std::invalid_argument(fmt::format("timerSpin '{}': spin_ns and jitter_ns must be >= 0", cfg.name));
  Rng rng(seed);
  Inputs in;
  in.spin_ns.resize(blocks);
  for (auto& s : in.spin_ns) s = uint64_t(spin + (jitter > 0 ? rng.range(0, jitter) : 0));
  in.sleep_ns = uint32_t(cfg.get("sleep_ns", 100));
  return in;
}

Result check(const Inputs& in, const Output& out, uint32_t nsm) {
  Checker chk;
  size_t n = in.spin_ns.size();
  if (out.start.size() != n || out.end.size() != n || out.sm.size() != n)
    chk.fail(fmt::format("output arrays have {}/{}/{} entries, expected {}", out.start.size(), out.end.size(),
                         out.sm.size(), n));
  for (size_t b = 0; b < n && b < out.start.size() && b < out.end.size() && b < out.sm.size(); ++b) {
    if (out.end[b] < out.start[b])
      chk.fail(fmt::format("block {}: end {} before start {}", b, out.end[b], out.start[b]));
    else if (out.end[b] - out.start[b] < in.spin_ns[b])
      chk.fail(fmt::format("block {}: spun {} ns, expected >= {}", b, out.end[b] - out.start[b], in.spin_ns[b]));
    if (out.sm[b] >= nsm) chk.fail(fmt::format("sm[{}]: got {} expected < {}", b, out.sm[b], nsm));
  }
  Result r;
  chk.finish(r);
  append_bytes(r.output, out.start);
  append_bytes(r.output, out.end);
  append_bytes(r.output, out.sm);
  return r;
}

namespace {
class TimerSpin : public Workload {
 public:
  std::string name() const override { return "timerSpin"; }
  std::string description() const override {
    return "each block spins on %globaltimer (with nanosleep) and records start, end and SM id";
  }
  std::string kernel_source() const override { return "timerSpin"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"blocks", 4}, {"threads", 32}, {"spin_ns", 2000}}},
        {"single", {{"blocks", 1}, {"threads", 32}, {"spin_ns", 1000}}},
        {"exchange", {{"blocks", 16}, {"threads", 32}, {"spin_ns", 1000}}, 8},
        {"jitter", {{"blocks", 8}, {"threads", 64}, {"spin_ns", 1000}, {"jitter_ns", 2000}}},
        // One simulated second of spinning, sleeping 1 ms (the nanosleep maximum) per iteration:
        // the SMs sleep almost all the time (bench/bench.cc measures its host cost).
        {"second", {{"blocks", 4}, {"threads", 32}, {"spin_ns", 1000000000}, {"sleep_ns", 1000000}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t threads = positive_param(cfg, "threads", 32);
    uint32_t nsm = uint32_t(positive_param(cfg, "nsm", rt.device().sm_count));
    Inputs in = generate(cfg, seed);
    size_t n = in.spin_ns.size();
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr dstart = rt.malloc(n * 8), dend = rt.malloc(n * 8), dsm = rt.malloc(n * 4),
               dspin = rt.upload(in.spin_ns);
    rt.memset(dstart, 0, n * 8);
    rt.memset(dend, 0, n * 8);
    rt.memset(dsm, 0xff, n * 4);
    rt::KernelArgs args;
    args.ptr(dstart).ptr(dend).ptr(dsm).ptr(dspin).u32(in.sleep_ns);
    rt.launch(m, "timerSpin", {uint32_t(n)}, {uint32_t(threads)}, args, 0, cfg.blocks_per_core);
    Output out{rt.download<uint64_t>(dstart, n), rt.download<uint64_t>(dend, n), rt.download<uint32_t>(dsm, n)};
    for (auto p : {dstart, dend, dsm, dspin}) rt.free(p);
    return check(in, out, nsm);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<TimerSpin>(); }

}  // namespace gpuvp::wl::timer_spin
