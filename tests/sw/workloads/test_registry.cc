// Registry, configurations, kernel entry points, and host code driven through a fake runtime.
#include <catch2/catch.hpp>

#include <set>

#include "fake_runtime.h"
#include "sw/kernels/kernels.h"
#include "sw/workloads/workload.h"

using namespace gpuvp::wl;
using Catch::Matchers::Contains;

TEST_CASE("registry lists every workload once, with at least three configurations", "[workloads]") {
  std::vector<std::string> expected = {"vectorAdd", "scalarProd", "grayFilter", "nearestNeighbour", "timerSpin",
                                       "reduction", "matrixMul",  "histogram",  "mandelbrot",       "bfs",
                                       "matVec",    "conv3x3"};
  std::vector<std::string> names;
  for (auto& w : all()) names.push_back(w->name());
  CHECK(names == expected);
  for (auto& w : all()) {
    INFO(w->name());
    CHECK(find(w->name()) == w.get());
    CHECK_FALSE(w->description().empty());
    auto cfgs = w->configs();
    CHECK(cfgs.size() >= 3);
    std::set<std::string> unique;
    for (auto& c : cfgs) unique.insert(c.name);
    CHECK(unique.size() == cfgs.size());
    CHECK(config_named(*w, cfgs.front().name).name == cfgs.front().name);
    CHECK_NOTHROW(gpuvp::kernels::ptx(w->kernel_source()));
  }
}

TEST_CASE("find and config_named report unknown names", "[workloads]") {
  CHECK(find("vectoradd") == nullptr);
  CHECK(find("") == nullptr);
  const Workload* w = find("vectorAdd");
  REQUIRE(w);
  CHECK_THROWS_AS(config_named(*w, "huge"), std::invalid_argument);
  CHECK_THROWS_WITH(config_named(*w, "huge"), Contains("vectorAdd") && Contains("huge") && Contains("small") &&
                                                  Contains("fi16") && Contains("fi32"));
}

TEST_CASE("reference-study configurations match fault-injection.md", "[workloads]") {
  struct Row {
    const char* workload;
    const char* config;
    int64_t blocks, threads;
    uint32_t bpc;
  };
  for (auto r : {Row{"vectorAdd", "fi16", 16, 32, 8}, Row{"vectorAdd", "fi32", 32, 32, 8},
                 Row{"scalarProd", "fi16", 16, 512, 2}, Row{"scalarProd", "fi32", 32, 512, 2},
                 Row{"nearestNeighbour", "fi16", 16, 32, 8}, Row{"nearestNeighbour", "fi32", 32, 32, 8}}) {
    INFO(r.workload << " " << r.config);
    auto c = config_named(*find(r.workload), r.config);
    CHECK(c.get("blocks", 0) == r.blocks);
    CHECK(c.get("threads", 0) == r.threads);
    CHECK(c.blocks_per_core == r.bpc);
  }
  auto g16 = config_named(*find("grayFilter"), "fi16");
  CHECK(g16.get("width", 0) / g16.get("bx", 0) == 4);
  CHECK(g16.get("height", 0) / g16.get("by", 0) == 4);
  CHECK(g16.get("bx", 0) * g16.get("by", 0) == 256);
  CHECK(g16.blocks_per_core == 4);
  auto g64 = config_named(*find("grayFilter"), "fi64");
  CHECK(g64.get("width", 0) / g64.get("bx", 0) == 8);
  CHECK(g64.get("height", 0) / g64.get("by", 0) == 8);
  CHECK(g64.get("bx", 0) * g64.get("by", 0) == 64);
  CHECK(g64.blocks_per_core == 8);
}

TEST_CASE("every configuration's host code launches existing entries with matching arguments", "[workloads]") {
  // The fake runtime executes nothing, so results are mismatches; what is checked is that the
  // launches name real PTX entries, pass arguments of the parameters' sizes, and free all memory.
  const std::map<std::string, std::set<std::string>> entries = {
      {"vectorAdd", {"vectorAdd"}},   {"scalarProd", {"scalarProd"}}, {"grayFilter", {"grayFilter"}},
      {"nearestNeighbour", {"nearestNeighbour"}}, {"timerSpin", {"timerSpin"}}, {"reduction", {"reduction"}},
      {"matrixMul", {"matrixMul"}},   {"histogram", {"histogram"}},   {"mandelbrot", {"mandelbrot"}},
      {"bfs", {"bfsStep", "bfsUpdate"}}, {"matVec", {"matVec"}},        {"conv3x3", {"conv3x3"}}};
  for (auto& w : all()) {
    for (auto& c : w->configs()) {
      INFO(w->name() << " / " << c.name);
      gpuvp::test::FakeRuntime rt;
      Result r;
      REQUIRE_NOTHROW(r = w->run(rt, c, 1));
      CHECK_FALSE(r.output.empty());
      CHECK_FALSE(r.message.empty());
      CHECK(rt.live_allocations() == 0);
      REQUIRE_FALSE(rt.calls.empty());
      for (auto& call : rt.calls) {
        CHECK(entries.at(w->name()).count(call.kernel) == 1);
        CHECK(call.blocks_per_core == c.blocks_per_core);
      }
    }
  }
}

TEST_CASE("launch geometry of the reference-study configurations", "[workloads]") {
  auto geometry = [](const char* w, const char* c) {
    gpuvp::test::FakeRuntime rt;
    find(w)->run(rt, config_named(*find(w), c), 1);
    REQUIRE(rt.calls.size() == 1);
    return rt.calls[0];
  };
  auto v = geometry("vectorAdd", "fi32");
  CHECK((v.grid.x == 32 && v.block.x == 32 && v.blocks_per_core == 8));
  auto s = geometry("scalarProd", "fi16");
  CHECK((s.grid.x == 16 && s.block.x == 512 && s.blocks_per_core == 2));
  auto g = geometry("grayFilter", "fi16");
  CHECK((g.grid.x == 4 && g.grid.y == 4 && g.block.x == 16 && g.block.y == 16 && g.blocks_per_core == 4));
  auto g8 = geometry("grayFilter", "fi64");
  CHECK((g8.grid.x == 8 && g8.grid.y == 8 && g8.block.x == 8 && g8.block.y == 8 && g8.blocks_per_core == 8));
  auto n = geometry("nearestNeighbour", "fi16");
  CHECK((n.grid.x == 16 && n.block.x == 32 && n.blocks_per_core == 8));
}

TEST_CASE("PTX parameter lists as the fake runtime reads them", "[workloads]") {
  auto sizes = gpuvp::test::FakeRuntime::param_sizes(gpuvp::kernels::ptx("mandelbrot"), "mandelbrot");
  CHECK(sizes == std::vector<size_t>{8, 4, 4, 4, 4, 4, 4, 4});
  CHECK(gpuvp::test::FakeRuntime::param_sizes(gpuvp::kernels::ptx("timerSpin"), "timerSpin") ==
        std::vector<size_t>{8, 8, 8, 8, 4});
}
