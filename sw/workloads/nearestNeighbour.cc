#include "sw/workloads/nearestNeighbour.h"

#include <stdexcept>

#include "sw/kernels/kernels.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::nearest_neighbour {

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  int64_t n = positive_param(cfg, "records", 512);
  Rng rng(seed);
  Inputs in;
  in.latlng.resize(2 * n);
  // As Rodinia's hurricane generator: latitude 7..70, longitude 0..358.
  for (int64_t i = 0; i < n; ++i) {
    in.latlng[2 * i] = rng.uniform(7.0f, 70.0f);
    in.latlng[2 * i + 1] = rng.uniform(0.0f, 358.0f);
  }
  in.lat = rng.uniform(7.0f, 70.0f);
  in.lng = rng.uniform(0.0f, 358.0f);
  return in;
}

double distance(float lat, float lng, float qlat, float qlng) {
  double a = double(qlat) - lat, b = double(qlng) - lng;
  return std::sqrt(a * a + b * b);
}

std::vector<double> reference(const Inputs& in) {
  std::vector<double> d(in.records());
  for (size_t i = 0; i < d.size(); ++i) d[i] = distance(in.latlng[2 * i], in.latlng[2 * i + 1], in.lat, in.lng);
  return d;
}

Result check(const Inputs& in, const std::vector<float>& dist) {
  auto ref = reference(in);
  Checker chk;
  if (dist.size() != ref.size()) chk.fail(fmt::format("distances has {} elements, expected {}", dist.size(), ref.size()));
  for (size_t i = 0; i < ref.size() && i < dist.size(); ++i)
    chk.near("distances", i, dist[i], ref[i], 3e-5, 1e-6, ref[i]);
  Result r;
  chk.finish(r);
  append_bytes(r.output, dist);
  return r;
}

namespace {
class NearestNeighbour : public Workload {
 public:
  std::string name() const override { return "nearestNeighbour"; }
  std::string description() const override {
    return "Rodinia nn: Euclidean distance of each (lat, lng) record to a query point";
  }
  std::string kernel_source() const override { return "nearestNeighbour"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"records", 100}, {"blocks", 4}, {"threads", 32}}},
        {"grid2d", {{"records", 500}, {"blocks", 4}, {"grid_y", 2}, {"threads", 64}}},
        {"medium", {{"records", 1024}, {"blocks", 8}, {"threads", 128}}},
        {"fi16", {{"records", 512}, {"blocks", 16}, {"threads", 32}}, 8},
        {"fi32", {{"records", 1024}, {"blocks", 32}, {"threads", 32}}, 8},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t blocks = positive_param(cfg, "blocks", 4), threads = positive_param(cfg, "threads", 32);
    int64_t gy = positive_param(cfg, "grid_y", 1);
    Inputs in = generate(cfg, seed);
    int64_t n = int64_t(in.records());
    if (blocks * gy * threads < n)
      throw std::invalid_argument(fmt::format("nearestNeighbour '{}': {} x {} x {} threads do not cover {} records",
                                              cfg.name, blocks, gy, threads, n));
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr dloc = rt.upload(in.latlng), ddist = rt.malloc(n * sizeof(float));
    rt.memset(ddist, 0, n * sizeof(float));
    rt::KernelArgs args;
    args.ptr(dloc).ptr(ddist).i32(int32_t(n)).f32(in.lat).f32(in.lng);
    rt.launch(m, "nearestNeighbour", {uint32_t(blocks), uint32_t(gy)}, {uint32_t(threads)}, args, 0,
              cfg.blocks_per_core);
    auto dist = rt.download<float>(ddist, n);
    rt.free(dloc);
    rt.free(ddist);
    return check(in, dist);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<NearestNeighbour>(); }

}  // namespace gpuvp::wl::nearest_neighbour
