// `gpuvp wear-study` (docs/power.md, "Wear study"): a small study on 4 SMs, and bad study files.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "common/subprocess.h"

using namespace gpuvp::test;
using nlohmann::json;

TEST_CASE("wear study: every application stays on its partition as it rotates") {
  const std::string out = temp_path("wear_study_out");
  RunResult r = run_gpuvp(fmt::format("wear-study {}/power/tiny_study.json --out {} -p gtx480 --set sm.count=4",
                                      GPUVP_TEST_DATA, out));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json s = json::parse(slurp(out + "/summary.json"));
  CHECK(!slurp(out + "/summary.txt").empty());
  std::filesystem::remove_all(out);
  REQUIRE(s["runs"].size() == 4);  // baseline, fixed R=2, monitoring 20000, uniform
  CHECK(s["runs"][0]["policy"] == "baseline");
  CHECK(s["runs"][0]["rotations"] == 0);
  CHECK(s["runs"][0]["normalised_gpu_cr"] == 1.0);
  for (const json& run : s["runs"]) {
    INFO(run["policy"]);
    CHECK(run["cr"].size() == 4);
    CHECK(run["blocks"] == 2 * 4 * 4);       // two applications, 4 launches of 4 blocks each
    CHECK(run["blocks_off_partition"] == 0);  // each block on its application's partition at its start
    CHECK(run["completion_us"].size() == 2);
  }
  // Fixed R = 2 rotates at T/2 and T (T the baseline's longest application): at least once inside the
  // window, at most twice.
  CHECK(s["runs"][1]["policy"] == "fixed R=2");
  CHECK(s["runs"][1]["rotations"] >= 1);
  CHECK(s["runs"][1]["rotations"] <= 2);
  CHECK(s["runs"][3]["policy"] == "uniform");
  CHECK(s["runs"][3]["rotations"] == 0);
}

TEST_CASE("wear study: a bad study file names the file and the key") {
  const std::string f = temp_path("bad_study.json");
  FILE* fp = std::fopen(f.c_str(), "w");
  REQUIRE(fp);
  std::fputs(R"({"ptx": "k.ptx", "applications": [{"name": "a", "kernel": "k"}], "partitions": [[1, 2]]})", fp);
  std::fclose(fp);
  RunResult r = run_gpuvp(fmt::format("wear-study -p gtx480 {}", f));
  std::remove(f.c_str());
  CHECK(r.status == 2);
  CHECK(r.err.find("partitions[0]: not an array of 1 SM counts (one per application)") != std::string::npos);
}
