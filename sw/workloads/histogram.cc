#include "sw/workloads/histogram.h"

#include "sw/kernels/kernels.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::histogram {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  int64_t n = positive_param(cfg, "n", 1024);
  int64_t hot = cfg.get("hot_percent", 0);
  if (hot < 0 || hot > 100)
    throw std::invalid_argument(fmt::format("histogram '{}': hot_percent must be in [0, 100]", cfg.name));
  Rng rng(seed);
  uint8_t hot_value = uint8_t(rng.next());
  Inputs in;
  in.data.resize(n);
  for (auto& v : in.data) v = rng.range(0, 99) < hot ? hot_value : uint8_t(rng.next());
  return in;
}

std::vector<uint32_t> reference(const Inputs& in) {
  std::vector<uint32_t> bins(256, 0);
  for (uint8_t v : in.data) ++bins[v];
  return bins;
}

Result check(const Inputs& in, const std::vector<uint32_t>& bins) {
  auto ref = reference(in);
  Checker chk;
  if (bins.size() != ref.size()) chk.fail(fmt::format("bins has {} entries, expected 256", bins.size()));
  for (size_t i = 0; i < ref.size() && i < bins.size(); ++i) chk.exact("bins", i, bins[i], ref[i]);
  Result r;
  chk.finish(r);
  append_bytes(r.output, bins);
  return r;
}

namespace {
class Histogram : public Workload {
 public:
  std::string name() const override { return "histogram"; }
  std::string description() const override {
    return "256-bin byte histogram: atomicAdd on per-block shared bins, then on global bins";
  }
  std::string kernel_source() const override { return "histogram"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"n", 1024}, {"blocks", 4}, {"threads", 64}}},
        {"skewed", {{"n", 2048}, {"blocks", 8}, {"threads", 32}, {"hot_percent", 50}}},
        {"stride", {{"n", 4096}, {"blocks", 2}, {"threads", 128}}},
        {"tail", {{"n", 1000}, {"blocks", 3}, {"threads", 100}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t blocks = positive_param(cfg, "blocks", 4), threads = positive_param(cfg, "threads", 64);
    Inputs in = generate(cfg, seed);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr dd = rt.upload(in.data), db = rt.malloc(256 * sizeof(uint32_t));
    rt.memset(db, 0, 256 * sizeof(uint32_t));
    rt::KernelArgs args;
    args.ptr(dd).ptr(db).i32(int32_t(in.data.size()));
    rt.launch(m, "histogram", {uint32_t(blocks)}, {uint32_t(threads)}, args, 0, cfg.blocks_per_core);
    auto bins = rt.download<uint32_t>(db, 256);
    rt.free(dd);
    rt.free(db);
    return check(in, bins);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<Histogram>(); }

}  // namespace gpuvp::wl::histogram
