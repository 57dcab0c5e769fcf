#include "sw/workloads/conv3x3.h"

#include <algorithm>
#include <cmath>

#include "sw/kernels/kernels.h"
#include "sw/runtime/object_host.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::conv3x3 {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  Inputs in;
  in.width = positive_param(cfg, "width", 32);
  in.height = positive_param(cfg, "height", 32);
  Rng rng(seed);
  in.image.resize(size_t(in.width * in.height));
  for (auto& v : in.image) v = std::floor(rng.uniform(0.0f, 256.0f));
  in.w = {1.0f / 16, 2.0f / 16, 1.0f / 16, 2.0f / 16, 4.0f / 16, 2.0f / 16, 1.0f / 16, 2.0f / 16, 1.0f / 16};  // a blur
  return in;
}

namespace {
// The nine (weight, pixel) terms of output pixel (y, x), clamped at the borders as the kernel does.
template <class F>
void terms(const Inputs& in, int64_t y, int64_t x, F f) {
  for (int64_t dy = -1; dy <= 1; ++dy)
    for (int64_t dx = -1; dx <= 1; ++dx) {
      const int64_t yy = std::clamp(y + dy, int64_t{0}, in.height - 1), xx = std::clamp(x + dx, int64_t{0}, in.width - 1);
      f(double(in.w[size_t((dy + 1) * 3 + dx + 1)]) * double(in.image[size_t(yy * in.width + xx)]));
    }
}
}  // namespace

std::vector<double> reference(const Inputs& in) {
  std::vector<double> out(in.image.size(), 0.0);
  for (int64_t y = 0; y < in.height; ++y)
    for (int64_t x = 0; x < in.width; ++x) terms(in, y, x, [&](double t) { out[size_t(y * in.width + x)] += t; });
  return out;
}

Result check(const Inputs& in, const std::vector<float>& out) {
  const auto ref = reference(in);
  Checker chk;
  if (out.size() != ref.size()) chk.fail(fmt::format("out has {} pixels, expected {}", out.size(), ref.size()));
  for (int64_t y = 0; y < in.height; ++y)
    for (int64_t x = 0; x < in.width; ++x) {
      const size_t i = size_t(y * in.width + x);
      if (i >= out.size()) continue;
      double mag = 0;
      terms(in, y, x, [&](double t) { mag += std::fabs(t); });
      chk.near("out", i, out[i], ref[i], 1e-5, 1e-6, mag);
    }
  Result r;
  chk.finish(r);
  append_bytes(r.output, out);
  return r;
}

namespace {
class Conv3x3 : public Workload {
 public:
  std::string name() const override { return "conv3x3"; }
  std::string description() const override { return "3 x 3 filter (blur) of a float image, weights in global memory"; }
  std::string kernel_source() const override { return "conv3x3"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"width", 32}, {"height", 32}}},
        {"odd", {{"width", 20}, {"height", 12}}},
        {"wide", {{"width", 64}, {"height", 16}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    Inputs in = generate(cfg, seed);
    const size_t n = in.image.size();
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr din = rt.upload(in.image), dw = rt.upload(in.w), dout = rt.malloc(n * sizeof(float));
    rt::name_allocation(rt, din, "image");
    rt::name_allocation(rt, dw, "weights");
    rt::name_allocation(rt, dout, "out");
    rt.memset(dout, 0, n * sizeof(float));
    rt::KernelArgs args;
    args.ptr(dout).ptr(din).ptr(dw).i32(int32_t(in.width)).i32(int32_t(in.height));
    rt.launch(m, "conv3x3", {ceil_div(in.width, 16), ceil_div(in.height, 16)}, {16, 16}, args, 0, cfg.blocks_per_core);
    auto out = rt.download<float>(dout, n);
    for (auto p : {din, dw, dout}) rt.free(p);
    return check(in, out);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<Conv3x3>(); }

}  // namespace gpuvp::wl::conv3x3
