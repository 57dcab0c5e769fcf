#include "sw/workloads/matrixMul.h"

#include <algorithm>

#include "sw/kernels/kernels.h"
#include "sw/runtime/object_host.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::matrix_mul {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  Inputs in;
  in.M = positive_param(cfg, "M", 16);
  in.K = positive_param(cfg, "K", 16);
  in.N = positive_param(cfg, "N", 16);
  if (in.K > 1024) throw std::invalid_argument(fmt::format("matrixMul '{}': K must be <= 1024", cfg.name));
  Rng rng(seed);
  in.A.resize(in.M * in.K);
  in.B.resize(in.K * in.N);
  for (auto& v : in.A) v = rng.uniform(-1.0f, 1.0f);
  for (auto& v : in.B) v = rng.uniform(-1.0f, 1.0f);
  return in;
}

std::vector<double> reference(const Inputs& in) {
  std::vector<double> C(in.M * in.N, 0.0);
  for (int64_t i = 0; i < in.M; ++i)
    for (int64_t j = 0; j < in.N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < in.K; ++k) s += double(in.A[i * in.K + k]) * double(in.B[k * in.N + j]);
      C[i * in.N + j] = s;
    }
  return C;
}

Result check(const Inputs& in, const std::vector<float>& C) {
  auto ref = reference(in);
  double rel = std::max(1e-5, double(in.K) * 0x1p-23);
  Checker chk;
  if (C.size() != ref.size()) chk.fail(fmt::format("C has {} elements, expected {}", C.size(), ref.size()));
  for (int64_t i = 0; i < in.M; ++i)
    for (int64_t j = 0; j < in.N; ++j) {
      size_t idx = size_t(i * in.N + j);
      if (idx >= C.size()) continue;
      double mag = 0;
      for (int64_t k = 0; k < in.K; ++k) mag += std::fabs(double(in.A[i * in.K + k]) * double(in.B[k * in.N + j]));
      chk.near("C", idx, C[idx], ref[idx], rel, 1e-30, mag);
    }
  Result r;
  chk.finish(r);
  append_bytes(r.output, C);
  return r;
}

namespace {
class MatrixMul : public Workload {
 public:
  std::string name() const override { return "matrixMul"; }
  std::string description() const override { return "float matrix product with 16 x 16 shared-memory tiles"; }
  std::string kernel_source() const override { return "matrixMul"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"M", 16}, {"K", 16}, {"N", 16}}},
        {"square32", {{"M", 32}, {"K", 32}, {"N", 32}}},
        {"odd", {{"M", 20}, {"K", 24}, {"N", 40}}},
        {"rect", {{"M", 64}, {"K", 16}, {"N", 32}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    Inputs in = generate(cfg, seed);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    size_t nc = size_t(in.M * in.N);
    rt::DevPtr da = rt.upload(in.A), db = rt.upload(in.B), dc = rt.malloc(nc * sizeof(float));
    rt::name_allocation(rt, da, "A");
    rt::name_allocation(rt, db, "B");
    rt::name_allocation(rt, dc, "C");
    rt.memset(dc, 0, nc * sizeof(float));
    rt::KernelArgs args;
    args.ptr(dc).ptr(da).ptr(db).i32(int32_t(in.M)).i32(int32_t(in.K)).i32(int32_t(in.N));
    rt.launch(m, "matrixMul", {ceil_div(in.N, 16), ceil_div(in.M, 16)}, {16, 16}, args, 0, cfg.blocks_per_core);
    auto C = rt.download<float>(dc, nc);
    for (auto p : {da, db, dc}) rt.free(p);
    return check(in, C);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<MatrixMul>(); }

}  // namespace gpuvp::wl::matrix_mul
