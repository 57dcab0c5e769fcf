// Campaigns on the tx2 caches' registered arrays (docs/caches.md, "Registered state"): every run is
// classified (a known outcome, never a tool error) and targets the arrays asked for. vectorAdd's few
// KiB are small next to the arrays, so most flips land in lines it never uses and are masked;
// tests/platform/integration/cache_fault_test.cc shows one reaching the host through a dirty line.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <string>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using gpuvp::fi::test::TempDir;

namespace {
std::map<std::string, int> run_campaign(const std::string& stem, const std::string& set, const std::string& targets,
                                        int count) {
  TempDir d(stem);
  const std::string file = d(stem + ".json");
  fi::test::write_file(file, fmt::format(R"({{
  "name": "{}",
  "platform": {{"preset": "tx2", "set": {{{}}}}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}},
  "targets": ["{}"],
  "fault": {{"model": "bit_flip", "duration": "transient"}},
  "size": {{"count": {}}},
  "seed": 7,
  "workers": 2
}}
)",
                                         stem, set, targets, count));
  test::RunResult r = test::run_gpuvp(fmt::format("campaign run {} --db {} -q", file, d("c.db")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const fi::test::ExportTable t = fi::test::export_table(d("c.db"));
  REQUIRE(t.rows.size() == size_t(count));
  std::map<std::string, int> outcomes;
  for (auto& row : t.rows) {
    CHECK(row.at("target").rfind(targets.substr(0, targets.size() - 1), 0) == 0);
    ++outcomes[row.at("outcome")];
  }
  return outcomes;
}
}  // namespace

TEST_CASE("cache campaign: bit flips in the tx2 L2's arrays are all classified, none a tool error") {
  const auto o = run_campaign("l2_campaign", "", "gpu.l2.*", 40);
  CHECK(o.count("tool_error") == 0);
}

TEST_CASE("cache campaign: bit flips in SM 0's L1 arrays (plain loads cached) are all classified, none a tool error") {
  const auto o = run_campaign("l1_campaign", R"("sm.l1d.cache_global": true)", "gpu.sm0.l1d.*", 40);
  CHECK(o.count("tool_error") == 0);
}
