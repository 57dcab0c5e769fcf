#include "sw/workloads/reduction.h"

#include "sw/kernels/kernels.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::reduction {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  int64_t n = positive_param(cfg, "n", 512);
  Inputs in;
  in.blocks = positive_param(cfg, "blocks", 2);
  in.threads = positive_param(cfg, "threads", 64);
  if (n > 65536) throw std::invalid_argument(fmt::format("reduction '{}': n must be <= 65536, got {}", cfg.name, n));
  if (in.threads % 32 != 0 || in.threads > 1024)
    throw std::invalid_argument(
        fmt::format("reduction '{}': threads must be a multiple of 32 <= 1024, got {}", cfg.name, in.threads));
  Rng rng(seed);
  in.in.resize(n);
  for (auto& v : in.in) v = float(rng.range(-256, 256)) / 256.0f;
  return in;
}

std::vector<double> reference(const Inputs& in) {
  std::vector<double> out(in.blocks, 0.0);
  int64_t stride = in.blocks * in.threads;
  for (size_t i = 0; i < in.in.size(); ++i) out[(int64_t(i) % stride) / in.threads] += in.in[i];
  return out;
}

Result check(const Inputs& in, const std::vector<float>& out) {
  auto ref = reference(in);
  Checker chk;
  if (out.size() != ref.size()) chk.fail(fmt::format("out has {} elements, expected {}", out.size(), ref.size()));
  for (size_t b = 0; b < ref.size() && b < out.size(); ++b) chk.exact("out", b, out[b], float(ref[b]));
  Result r;
  chk.finish(r);
  append_bytes(r.output, out);
  return r;
}

namespace {
class Reduction : public Workload {
 public:
  std::string name() const override { return "reduction"; }
  std::string description() const override {
    return "float sum: grid-stride partial sums, __shfl_down_sync within warps, shared memory across warps";
  }
  std::string kernel_source() const override { return "reduction"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"n", 512}, {"blocks", 2}, {"threads", 64}}},
        {"medium", {{"n", 4096}, {"blocks", 8}, {"threads", 128}}},
        {"tail", {{"n", 1000}, {"blocks", 3}, {"threads", 96}}},
        {"single", {{"n", 2048}, {"blocks", 1}, {"threads", 256}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    Inputs in = generate(cfg, seed);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr din = rt.upload(in.in), dout = rt.malloc(in.blocks * sizeof(float));
    rt.memset(dout, 0, in.blocks * sizeof(float));
    rt::KernelArgs args;
    args.ptr(din).ptr(dout).i32(int32_t(in.in.size()));
    rt.launch(m, "reduction", {uint32_t(in.blocks)}, {uint32_t(in.threads)}, args, 0, cfg.blocks_per_core);
    auto out = rt.download<float>(dout, in.blocks);
    rt.free(din);
    rt.free(dout);
    return check(in, out);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<Reduction>(); }

}  // namespace gpuvp::wl::reduction
