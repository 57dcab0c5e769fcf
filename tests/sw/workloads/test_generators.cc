// Input generators: deterministic for a seed, different across seeds, sized by the configuration.
#include <catch2/catch.hpp>

#include <set>

#include "sw/workloads/bfs.h"
#include "sw/workloads/grayFilter.h"
#include "sw/workloads/histogram.h"
#include "sw/workloads/mandelbrot.h"
#include "sw/workloads/matrixMul.h"
#include "sw/workloads/nearestNeighbour.h"
#include "sw/workloads/reduction.h"
#include "sw/workloads/scalarProd.h"
#include "sw/workloads/timerSpin.h"
#include "sw/workloads/vectorAdd.h"

using namespace gpuvp::wl;

namespace {
LaunchConfig cfg_of(const std::string& workload, const std::string& config) {
  const Workload* w = find(workload);
  REQUIRE(w != nullptr);
  return config_named(*w, config);
}

// Same seed: equal; other seed: different; for every configuration of the workload.
template <typename Gen, typename Key>
void deterministic(const std::string& workload, Gen gen, Key key) {
  for (auto& c : find(workload)->configs()) {
    INFO(workload << " / " << c.name);
    CHECK(key(gen(c, 42)) == key(gen(c, 42)));
    CHECK(key(gen(c, 42)) != key(gen(c, 43)));
  }
}
}  // namespace

TEST_CASE("generators are deterministic per seed and differ across seeds", "[workloads]") {
  deterministic("vectorAdd", vector_add::generate, [](const vector_add::Inputs& in) { return std::tie(in.a, in.b); });
  deterministic("scalarProd", scalar_prod::generate, [](const scalar_prod::Inputs& in) { return std::tie(in.a, in.b); });
  deterministic("grayFilter", gray_filter::generate,
                [](const gray_filter::Inputs& in) { return std::tie(in.r, in.g, in.b); });
  deterministic("nearestNeighbour", nearest_neighbour::generate,
                [](const nearest_neighbour::Inputs& in) { return std::tie(in.latlng, in.lat, in.lng); });
  deterministic("reduction", reduction::generate, [](const reduction::Inputs& in) { return in.in; });
  deterministic("matrixMul", matrix_mul::generate, [](const matrix_mul::Inputs& in) { return std::tie(in.A, in.B); });
  deterministic("histogram", histogram::generate, [](const histogram::Inputs& in) { return in.data; });
  deterministic("mandelbrot", mandelbrot::generate, [](const mandelbrot::Inputs& in) { return std::tie(in.x0, in.y0); });
  deterministic("bfs", bfs::generate, [](const bfs::Inputs& in) { return std::tie(in.graph.edges, in.state.cost); });
}

TEST_CASE("timerSpin generator: deterministic, per-block jitter differs across seeds", "[workloads]") {
  for (auto& c : find("timerSpin")->configs()) CHECK(timer_spin::generate(c, 5).spin_ns == timer_spin::generate(c, 5).spin_ns);
  auto c = cfg_of("timerSpin", "jitter");
  CHECK(timer_spin::generate(c, 5).spin_ns != timer_spin::generate(c, 6).spin_ns);
}

TEST_CASE("generators follow the configuration sizes", "[workloads]") {
  CHECK(vector_add::generate(cfg_of("vectorAdd", "fi32"), 1).a.size() == 1024);
  auto sp = scalar_prod::generate(cfg_of("scalarProd", "fi16"), 1);
  CHECK(sp.a.size() == 16 * 512);
  auto gf = gray_filter::generate(cfg_of("grayFilter", "odd"), 1);
  CHECK(gf.r.size() == 20 * 12);
  CHECK(nearest_neighbour::generate(cfg_of("nearestNeighbour", "small"), 1).records() == 100);
  auto mm = matrix_mul::generate(cfg_of("matrixMul", "odd"), 1);
  CHECK(mm.A.size() == 20 * 24);
  CHECK(mm.B.size() == 24 * 40);
  // reduction inputs are multiples of 2^-8 in [-1, 1]: any summation order is exact.
  for (float v : reduction::generate(cfg_of("reduction", "medium"), 1).in) {
    CHECK(std::fabs(v) <= 1.0f);
    CHECK(v * 256.0f == std::floor(v * 256.0f));
  }
  // histogram "skewed": about half the bytes are one value.
  auto h = histogram::reference(histogram::generate(cfg_of("histogram", "skewed"), 1));
  CHECK(*std::max_element(h.begin(), h.end()) > 2048 / 3);
}

TEST_CASE("bfs generator: a symmetric connected CSR graph and a mid-search state", "[workloads]") {
  for (auto& c : find("bfs")->configs()) {
    INFO(c.name);
    auto in = bfs::generate(c, 9);
    const auto& g = in.graph;
    REQUIRE(g.size() == c.get("nodes", 0));
    std::set<std::pair<int32_t, int32_t>> edges;
    for (int32_t v = 0; v < g.size(); ++v) {
      REQUIRE(g.nodes[2 * v] + g.nodes[2 * v + 1] <= int32_t(g.edges.size()));
      for (int32_t i = g.nodes[2 * v]; i < g.nodes[2 * v] + g.nodes[2 * v + 1]; ++i) edges.insert({v, g.edges[i]});
    }
    for (auto [a, b] : edges) CHECK(edges.count({b, a}) == 1);
    // Starting state: the frontier is exactly the nodes of cost `level`.
    int64_t level = c.get("level", 1);
    for (int32_t v = 0; v < g.size(); ++v) CHECK(bool(in.state.mask[v]) == (in.state.cost[v] == level));
    // Running to the end reaches every node.
    bfs::Inputs all = in;
    all.levels = 0;
    for (int32_t cost : bfs::reference(all).cost) CHECK(cost >= 0);
  }
}
