#include "sw/workloads/vectorAdd.h"

#include <stdexcept>

#include "sw/kernels/kernels.h"
#include "sw/runtime/object_host.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::vector_add {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  int64_t n = positive_param(cfg, "n", 512);
  Rng rng(seed);
  Inputs in;
  in.a.resize(n);
  in.b.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    in.a[i] = rng.uniform(-100.0f, 100.0f);
    in.b[i] = rng.uniform(-100.0f, 100.0f);
  }
  return in;
}

std::vector<double> reference(const Inputs& in) {
  std::vector<double> c(in.a.size());
  for (size_t i = 0; i < c.size(); ++i) c[i] = double(in.a[i]) + double(in.b[i]);
  return c;
}

Result check(const Inputs& in, const std::vector<float>& c) {
  auto ref = reference(in);
  Checker chk;
  if (c.size() != ref.size()) chk.fail(fmt::format("c has {} elements, expected {}", c.size(), ref.size()));
  for (size_t i = 0; i < ref.size() && i < c.size(); ++i)
    chk.near("c", i, c[i], ref[i], 1e-5, 1e-30, std::fabs(ref[i]));
  Result r;
  chk.finish(r);
  append_bytes(r.output, c);
  return r;
}

namespace {
class VectorAdd : public Workload {
 public:
  std::string name() const override { return "vectorAdd"; }
  std::string description() const override { return "float vector addition c[i] = a[i] + b[i]"; }
  std::string kernel_source() const override { return "vectorAdd"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"n", 512}, {"blocks", 16}, {"threads", 32}}},
        {"medium", {{"n", 1024}, {"blocks", 32}, {"threads", 32}}},
        {"large", {{"n", 4096}, {"blocks", 16}, {"threads", 256}}},
        {"tail", {{"n", 1000}, {"blocks", 8}, {"threads", 128}}},
        {"fi16", {{"n", 512}, {"blocks", 16}, {"threads", 32}}, 8},
        {"fi32", {{"n", 1024}, {"blocks", 32}, {"threads", 32}}, 8},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t blocks = positive_param(cfg, "blocks", 16), threads = positive_param(cfg, "threads", 32);
    Inputs in = generate(cfg, seed);
    int64_t n = int64_t(in.a.size());
    if (blocks * threads < n)
      throw std::invalid_argument(fmt::format("vectorAdd '{}': {} x {} threads do not cover n = {}", cfg.name,
                                              blocks, threads, n));
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr da = rt.upload(in.a), db = rt.upload(in.b), dc = rt.malloc(n * sizeof(float));
    rt::name_allocation(rt, da, "a");
    rt::name_allocation(rt, db, "b");
    rt::name_allocation(rt, dc, "c");
    rt.memset(dc, 0, n * sizeof(float));
    rt::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).i32(int32_t(n));
    rt.launch(m, "vectorAdd", {uint32_t(blocks)}, {uint32_t(threads)}, args, 0, cfg.blocks_per_core);
    auto c = rt.download<float>(dc, n);
    rt.free(da);
    rt.free(db);
    rt.free(dc);
    return check(in, c);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<VectorAdd>(); }

}  // namespace gpuvp::wl::vector_add
