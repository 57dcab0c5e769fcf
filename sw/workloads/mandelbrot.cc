#include "sw/workloads/mandelbrot.h"

#include "sw/kernels/kernels.h"
#include "sw/workloads/common.h"

// The reference relies on IEEE single-precision arithmetic with no contraction into fma: the
// project builds with -std=c++17 (no GNU extensions), for which GCC uses -ffp-contract=off, and
// x86-64 evaluates float in SSE registers (FLT_EVAL_METHOD 0).

namespace gpuvp::wl::mandelbrot {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  Inputs in;
  in.width = positive_param(cfg, "width", 16);
  in.height = positive_param(cfg, "height", 16);
  in.max_iter = int32_t(positive_param(cfg, "max_iter", 64));
  Rng rng(seed);
  in.x0 = -2.0f + rng.uniform(-0.05f, 0.05f);
  in.y0 = -1.25f + rng.uniform(-0.05f, 0.05f);
  in.dx = 2.5f / float(in.width);
  in.dy = 2.5f / float(in.height);
  return in;
}

int32_t iterations(float cx, float cy, int32_t max_iter) {
  float zx = 0.0f, zy = 0.0f;
  int32_t it = 0;
  while (it < max_iter) {
    float x2 = zx * zx;
    float y2 = zy * zy;
    if (x2 + y2 > 4.0f) break;
    float xy = zx * zy;
    float xy2 = xy + xy;
    zy = xy2 + cy;
    float d = x2 - y2;
    zx = d + cx;
    ++it;
  }
  return it;
}

std::vector<int32_t> reference(const Inputs& in) {
  std::vector<int32_t> out(in.width * in.height);
  for (int64_t y = 0; y < in.height; ++y)
    for (int64_t x = 0; x < in.width; ++x) {
      float sx = float(int32_t(x)) * in.dx, sy = float(int32_t(y)) * in.dy;
      out[y * in.width + x] = iterations(in.x0 + sx, in.y0 + sy, in.max_iter);
    }
  return out;
}

Result check(const Inputs& in, const std::vector<int32_t>& out) {
  auto ref = reference(in);
  Checker chk;
  if (out.size() != ref.size()) chk.fail(fmt::format("out has {} pixels, expected {}", out.size(), ref.size()));
  for (size_t i = 0; i < ref.size() && i < out.size(); ++i) chk.exact("out", i, out[i], ref[i]);
  Result r;
  chk.finish(r);
  append_bytes(r.output, out);
  return r;
}

namespace {
class Mandelbrot : public Workload {
 public:
  std::string name() const override { return "mandelbrot"; }
  std::string description() const override { return "Mandelbrot escape iteration counts, one pixel per thread"; }
  std::string kernel_source() const override { return "mandelbrot"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"width", 16}, {"height", 16}, {"bx", 8}, {"by", 8}, {"max_iter", 64}}},
        {"medium", {{"width", 32}, {"height", 32}, {"bx", 16}, {"by", 16}, {"max_iter", 128}}},
        {"odd", {{"width", 24}, {"height", 20}, {"bx", 8}, {"by", 8}, {"max_iter", 100}}},
        {"deep", {{"width", 16}, {"height", 16}, {"bx", 16}, {"by", 16}, {"max_iter", 256}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t bx = positive_param(cfg, "bx", 8), by = positive_param(cfg, "by", 8);
    Inputs in = generate(cfg, seed);
    size_t n = size_t(in.width * in.height);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr dout = rt.malloc(n * sizeof(int32_t));
    rt.memset(dout, 0xff, n * sizeof(int32_t));
    rt::KernelArgs args;
    args.ptr(dout).i32(int32_t(in.width)).i32(int32_t(in.height)).f32(in.x0).f32(in.y0).f32(in.dx).f32(in.dy).i32(
        in.max_iter);
    rt.launch(m, "mandelbrot", {ceil_div(in.width, bx), ceil_div(in.height, by)}, {uint32_t(bx), uint32_t(by)}, args,
              0, cfg.blocks_per_core);
    auto out = rt.download<int32_t>(dout, n);
    rt.free(dout);
    return check(in, out);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<Mandelbrot>(); }

}  // namespace gpuvp::wl::mandelbrot
