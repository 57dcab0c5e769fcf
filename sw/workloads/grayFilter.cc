#include "sw/workloads/grayFilter.h"

#include "sw/kernels/kernels.h"
#include "sw/runtime/object_host.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::gray_filter {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  Inputs in;
  in.width = positive_param(cfg, "width", 16);
  in.height = positive_param(cfg, "height", 16);
  Rng rng(seed);
  size_t n = size_t(in.width * in.height);
  in.r.resize(n);
  in.g.resize(n);
  in.b.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = rng.next();
    in.r[i] = uint8_t(v);
    in.g[i] = uint8_t(v >> 8);
    in.b[i] = uint8_t(v >> 16);
  }
  return in;
}

double gray(uint8_t r, uint8_t g, uint8_t b) { return 0.299 * r + 0.587 * g + 0.114 * b; }

std::vector<double> reference(const Inputs& in) {
  std::vector<double> out(in.r.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = gray(in.r[i], in.g[i], in.b[i]);
  return out;
}

Result check(const Inputs& in, const std::vector<float>& out) {
  auto ref = reference(in);
  Checker chk;
  if (out.size() != ref.size()) chk.fail(fmt::format("gray has {} pixels, expected {}", out.size(), ref.size()));
  for (size_t i = 0; i < ref.size() && i < out.size(); ++i) chk.near("gray", i, out[i], ref[i], 1e-5, 1e-6, ref[i]);
  Result r;
  chk.finish(r);
  append_bytes(r.output, out);
  return r;
}

namespace {
class GrayFilter : public Workload {
 public:
  std::string name() const override { return "grayFilter"; }
  std::string description() const override { return "RGB (three 8-bit planes) to float gray, 2-D grid of 2-D blocks"; }
  std::string kernel_source() const override { return "grayFilter"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"width", 16}, {"height", 16}, {"bx", 8}, {"by", 8}}},
        {"odd", {{"width", 20}, {"height", 12}, {"bx", 8}, {"by", 8}}},
        {"wide", {{"width", 64}, {"height", 8}, {"bx", 16}, {"by", 4}}},
        {"fi16", {{"width", 64}, {"height", 64}, {"bx", 16}, {"by", 16}}, 4},
        {"fi64", {{"width", 64}, {"height", 64}, {"bx", 8}, {"by", 8}}, 8},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t bx = positive_param(cfg, "bx", 8), by = positive_param(cfg, "by", 8);
    Inputs in = generate(cfg, seed);
    size_t n = in.r.size();
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr dr = rt.upload(in.r), dg = rt.upload(in.g), db = rt.upload(in.b), dout = rt.malloc(n * sizeof(float));
    rt::name_allocation(rt, dr, "r");
    rt::name_allocation(rt, dg, "g");
    rt::name_allocation(rt, db, "b");
    rt::name_allocation(rt, dout, "out");
    rt.memset(dout, 0, n * sizeof(float));
    rt::KernelArgs args;
    args.ptr(dr).ptr(dg).ptr(db).ptr(dout).i32(int32_t(in.width)).i32(int32_t(in.height));
    rt::Dim3 grid{ceil_div(in.width, bx), ceil_div(in.height, by)};
    rt.launch(m, "grayFilter", grid, {uint32_t(bx), uint32_t(by)}, args, 0, cfg.blocks_per_core);
    auto out = rt.download<float>(dout, n);
    for (auto p : {dr, dg, db, dout}) rt.free(p);
    return check(in, out);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<GrayFilter>(); }

}  // namespace gpuvp::wl::gray_filter
