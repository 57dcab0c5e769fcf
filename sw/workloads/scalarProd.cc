#include "sw/workloads/scalarProd.h"

#include <stdexcept>

#include "sw/kernels/kernels.h"
#include "sw/runtime/object_host.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::scalar_prod {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  Inputs in;
  in.vectors = positive_param(cfg, "vectors", 4);
  in.elements = positive_param(cfg, "elements", 256);
  Rng rng(seed);
  size_t total = size_t(in.vectors * in.elements);
  in.a.resize(total);
  in.b.resize(total);
  for (size_t i = 0; i < total; ++i) {
    in.a[i] = rng.uniform(-1.0f, 1.0f);
    in.b[i] = rng.uniform(-1.0f, 1.0f);
  }
  return in;
}

std::vector<double> reference(const Inputs& in) {
  std::vector<double> c(in.vectors, 0.0);
  for (int64_t v = 0; v < in.vectors; ++v)
    for (int64_t i = 0; i < in.elements; ++i) c[v] += double(in.a[v * in.elements + i]) * double(in.b[v * in.elements + i]);
  return c;
}

Result check(const Inputs& in, const std::vector<float>& c) {
  auto ref = reference(in);
  Checker chk;
  if (c.size() != ref.size()) chk.fail(fmt::format("C has {} elements, expected {}", c.size(), ref.size()));
  for (size_t v = 0; v < ref.size() && v < c.size(); ++v) {
    double mag = 0;
    for (int64_t i = 0; i < in.elements; ++i)
      mag += std::fabs(double(in.a[v * in.elements + i]) * double(in.b[v * in.elements + i]));
    chk.near("C", v, c[v], ref[v], 1e-5, 1e-30, mag);
  }
  Result r;
  chk.finish(r);
  append_bytes(r.output, c);
  return r;
}

namespace {
class ScalarProd : public Workload {
 public:
  std::string name() const override { return "scalarProd"; }
  std::string description() const override {
    return "dot products of float vector pairs, shared-memory tree reduction per block";
  }
  std::string kernel_source() const override { return "scalarProd"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"vectors", 4}, {"elements", 256}, {"blocks", 4}, {"threads", 64}}},
        {"multi", {{"vectors", 8}, {"elements", 200}, {"blocks", 4}, {"threads", 32}}},
        {"wide", {{"vectors", 2}, {"elements", 1024}, {"blocks", 2}, {"threads", 128}}},
        {"fi16", {{"vectors", 16}, {"elements", 512}, {"blocks", 16}, {"threads", 512}}, 2},
        {"fi32", {{"vectors", 32}, {"elements", 512}, {"blocks", 32}, {"threads", 512}}, 2},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t blocks = positive_param(cfg, "blocks", 4), threads = positive_param(cfg, "threads", 64);
    if (threads > 512 || (threads & (threads - 1)) != 0)
      throw std::invalid_argument(
          fmt::format("scalarProd '{}': threads must be a power of two <= 512, got {}", cfg.name, threads));
    Inputs in = generate(cfg, seed);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr da = rt.upload(in.a), db = rt.upload(in.b), dc = rt.malloc(in.vectors * sizeof(float));
    rt::name_allocation(rt, da, "a");
    rt::name_allocation(rt, db, "b");
    rt::name_allocation(rt, dc, "c");
    rt.memset(dc, 0, in.vectors * sizeof(float));
    rt::KernelArgs args;
    args.ptr(dc).ptr(da).ptr(db).i32(int32_t(in.vectors)).i32(int32_t(in.elements));
    rt.launch(m, "scalarProd", {uint32_t(blocks)}, {uint32_t(threads)}, args, 0, cfg.blocks_per_core);
    auto c = rt.download<float>(dc, in.vectors);
    rt.free(da);
    rt.free(db);
    rt.free(dc);
    return check(in, c);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<ScalarProd>(); }

}  // namespace gpuvp::wl::scalar_prod
