// scripts/plot_timeline.py draws a --timeline file; bad input is a message and exit status 2.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;

namespace {
std::string script() { return std::string(GPUVP_TEST_DATA) + "/../../scripts/plot_timeline.py"; }
}  // namespace

TEST_CASE("plot_timeline: a run's timeline becomes a PNG with every block and SM") {
  std::string tl = temp_path("tl.json"), png = temp_path("tl.png");
  REQUIRE(run_gpuvp(fmt::format("run --preset flexgrip --set sm.count=4 --workload vectorAdd --launch fi32 --timeline {}", tl))
              .status == 0);
  auto r = run_cmd(fmt::format("/usr/bin/python3 {} {} {}", script(), tl, png));
  INFO(r.err);
  REQUIRE(r.status == 0);
  // fi32: 32 blocks over 4 SMs, one kernel.
  CHECK_THAT(r.out, Contains("32 blocks, 4 SMs, 1 kernel(s)"));
  std::string bytes = slurp(png);
  REQUIRE(bytes.size() > 1000);
  CHECK(bytes.compare(1, 3, "PNG") == 0);
  std::remove(tl.c_str());
  std::remove(png.c_str());
}

TEST_CASE("plot_timeline: unreadable or foreign files are refused with the file named") {
  std::string bad = temp_path("bad.json");
  {
    std::ofstream(bad) << "{\"traceEvents\": [";
  }
  auto r = run_cmd(fmt::format("/usr/bin/python3 {} {} /tmp/x.png", script(), bad));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(bad) && Contains("not valid JSON"));
  {
    std::ofstream(bad) << R"({"something": 1})";
  }
  r = run_cmd(fmt::format("/usr/bin/python3 {} {} /tmp/x.png", script(), bad));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("no traceEvents list"));
  r = run_cmd(fmt::format("/usr/bin/python3 {} /nonexistent.json /tmp/x.png", script()));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("/nonexistent.json: cannot read"));
  std::remove(bad.c_str());
}
