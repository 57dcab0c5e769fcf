#include "sw/workloads/matVec.h"

#include <algorithm>
#include <cmath>

#include "sw/kernels/kernels.h"
#include "sw/runtime/object_host.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::mat_vec {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  Inputs in;
  in.M = positive_param(cfg, "M", 64);
  in.N = positive_param(cfg, "N", 64);
  Rng rng(seed);
  in.A.resize(size_t(in.M * in.N));
  in.x.resize(size_t(in.N));
  for (auto& v : in.A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : in.x) v = rng.uniform(-1.0f, 1.0f);
  return in;
}

std::vector<double> reference(const Inputs& in) {
  std::vector<double> y(size_t(in.M), 0.0);
  for (int64_t i = 0; i < in.M; ++i)
    for (int64_t j = 0; j < in.N; ++j) y[size_t(i)] += double(in.A[size_t(j * in.M + i)]) * double(in.x[size_t(j)]);
  return y;
}

Result check(const Inputs& in, const std::vector<float>& y) {
  const auto ref = reference(in);
  const double rel = std::max(1e-5, double(in.N) * 0x1p-23);
  Checker chk;
  if (y.size() != ref.size()) chk.fail(fmt::format("y has {} elements, expected {}", y.size(), ref.size()));
  for (size_t i = 0; i < ref.size() && i < y.size(); ++i) {
    double mag = 0;
    for (int64_t j = 0; j < in.N; ++j) mag += std::fabs(double(in.A[size_t(j * in.M) + i]) * double(in.x[size_t(j)]));
    chk.near("y", i, y[i], ref[i], rel, 1e-30, mag);
  }
  Result r;
  chk.finish(r);
  append_bytes(r.output, y);
  return r;
}

namespace {
class MatVec : public Workload {
 public:
  std::string name() const override { return "matVec"; }
  std::string description() const override { return "float matrix-vector product y = A x, one thread per row"; }
  std::string kernel_source() const override { return "matVec"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"M", 64}, {"N", 64}, {"threads", 32}}},
        {"odd", {{"M", 70}, {"N", 33}, {"threads", 32}}},
        {"tall", {{"M", 256}, {"N", 64}, {"threads", 64}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    const int64_t threads = positive_param(cfg, "threads", 32);
    Inputs in = generate(cfg, seed);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr da = rt.upload(in.A), dx = rt.upload(in.x), dy = rt.malloc(size_t(in.M) * sizeof(float));
    rt::name_allocation(rt, da, "A");
    rt::name_allocation(rt, dx, "x");
    rt::name_allocation(rt, dy, "y");
    rt.memset(dy, 0, size_t(in.M) * sizeof(float));
    rt::KernelArgs args;
    args.ptr(dy).ptr(da).ptr(dx).i32(int32_t(in.M)).i32(int32_t(in.N));
    rt.launch(m, "matVec", {ceil_div(in.M, threads)}, {uint32_t(threads)}, args, 0, cfg.blocks_per_core);
    auto y = rt.download<float>(dy, size_t(in.M));
    for (auto p : {da, dx, dy}) rt.free(p);
    return check(in, y);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<MatVec>(); }

}  // namespace gpuvp::wl::mat_vec
