// `gpuvp wear-study` (docs/power.md, "Wear study"): a small study on 4 SMs, and bad study files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "common/refused_file.h"

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
  // Fixed R = 2 rotates exactly twice, at T/3 and 2T/3 (T the baseline's longest application): each at
  // the end of the first sample interval (power.interval = 500 cycles of 1429 ps, 1/700 MHz at the 1 ps
  // resolution: 0.7145 us) at or after its instant, both strictly inside the run.
  CHECK(s["runs"][1]["policy"] == "fixed R=2");
  CHECK(s["runs"][1]["rotations"] == 2);
  const std::vector<double> base_done = s["runs"][0]["completion_us"], at = s["runs"][1]["rotation_us"];
  const double t = std::max(base_done[0], base_done[1]), interval_us = 0.7145;
  REQUIRE(at.size() == 2);
  for (size_t k = 0; k < 2; ++k) {
    INFO("rotation " << k + 1 << " at " << at[k] << " us, T = " << t << " us");
    CHECK(at[k] >= t * double(k + 1) / 3);
    CHECK(at[k] < t * double(k + 1) / 3 + interval_us + 1e-6);
  }
  CHECK(s["runs"][3]["policy"] == "uniform");
  CHECK(s["runs"][3]["rotations"] == 0);

  // Uniform, the ideal balance: the applications keep their partitions (the power of each SM does not
  // depend on any placement of uniform's), every SM wears at the mean of the baseline's cr_k, and the
  // normalised GPU cr is mean / max of the baseline's per-SM cr, recomputed here from the baseline's row.
  const std::vector<double> base = s["runs"][0]["cr"];
  double sum = 0, max = 0;
  for (double c : base) {
    sum += c;
    max = std::max(max, c);
  }
  REQUIRE(max > 0);
  CHECK(max > sum / 4 * 1.2);  // the high/low mix wears unevenly: the case tests something
  for (double c : s["runs"][3]["cr"]) CHECK(c == Approx(sum / 4).epsilon(1e-9));
  CHECK(s["runs"][3]["normalised_gpu_cr"].get<double>() == Approx(sum / 4 / max).epsilon(1e-9));
  CHECK(s["runs"][3]["completion_us"] == s["runs"][0]["completion_us"]);

  // Rotation keeps the applications' speed: each keeps its SM count, and a rotation costs at most the
  // drain of one block (blocks running on the SM an application leaves finish there while its next
  // blocks wait for room on the SM it gains).
  for (size_t i : {size_t(1), size_t(2)}) {
    INFO(s["runs"][i]["policy"] << ", rotations " << s["runs"][i]["rotations"]);
    const double drain = s["runs"][0]["longest_block_us"].get<double>();
    REQUIRE(drain > 0);
    for (size_t a = 0; a < 2; ++a)
      CHECK(std::abs(s["runs"][i]["completion_us"][a].get<double>() -
                     s["runs"][0]["completion_us"][a].get<double>()) <= drain);
  }
  CHECK(s["runs"][2]["rotations"] >= 1);  // monitoring rotated too

  // Each run's mean temperatures over the run are the steady state of its mean power through the
  // floorplan: 4 SMs in a row (gtx480: 5 columns, R_v 4 K/W, R_lat 10 K/W),
  // (1/R_v + d_k/R_lat) x_k - sum_j x_j / R_lat = P_k, solved here by elimination along the row.
  // (Not monitoring: warm, its sensors wear faster and it rotates other than in its pilot run.)
  for (size_t i : {size_t(0), size_t(1), size_t(3)}) {
    INFO(s["runs"][i]["policy"]);
    const std::vector<double> p = s["runs"][i]["power_w"], t = s["runs"][i]["temp_k"];
    REQUIRE(p.size() == 4);
    std::vector<double> diag(4), rhs = p, x(4);
    for (size_t k = 0; k < 4; ++k) diag[k] = 0.25 + (k == 0 || k == 3 ? 0.1 : 0.2);
    for (size_t k = 1; k < 4; ++k) {  // the subdiagonal's -0.1 eliminated
      const double f = -0.1 / diag[k - 1];
      diag[k] -= f * -0.1;
      rhs[k] -= f * rhs[k - 1];
    }
    x[3] = rhs[3] / diag[3];
    for (size_t k = 3; k-- > 0;) x[k] = (rhs[k] + 0.1 * x[k + 1]) / diag[k];
    for (size_t k = 0; k < 4; ++k) CHECK(std::abs(t[k] - (318.15 + x[k])) < 0.01);
  }
}

// The window repeats for years, and C R_v = 8 ms is far longer than it: each SM starts the run in the
// periodic state of the run repeated, whose mean is the steady state of the run's mean power (without
// lateral coupling T_amb + R_v P, worked here from the reported power).
TEST_CASE("wear study: each SM's mean temperature is the steady state of its mean power") {
  const std::string out = temp_path("wear_warm_out");
  RunResult r = run_gpuvp(fmt::format("wear-study {}/power/tiny_warm_study.json --out {} -p gtx480 --set sm.count=4 "
                                      "--set thermal.r_lateral=0",
                                      GPUVP_TEST_DATA, out));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json s = json::parse(slurp(out + "/summary.json"));
  std::filesystem::remove_all(out);
  REQUIRE(s["runs"].size() == 1);
  const json& run = s["runs"][0];
  const std::vector<double> p = run["power_w"], t = run["temp_k"], t0 = run["initial_k"];
  REQUIRE(p.size() == 4);
  const size_t hot = size_t(std::max_element(p.begin(), p.end()) - p.begin());
  // A warm start worth testing: the hottest SM sits over 1 K above ambient, where from ambient its mean
  // would rise by about P x run / 2C, 0.4 W x 0.15 ms / 4 mJ/K = 0.015 K.
  CHECK(4 * p[hot] > 1.0);
  for (size_t k = 0; k < 4; ++k) {
    INFO("SM " << k << ": " << p[k] << " W");
    CHECK(std::abs(t[k] - (318.15 + 4 * p[k])) < 0.01);
    // It starts within the swing of a period, about period x P / C: 0.15 ms x 2 W / 2 mJ/K = 0.15 K.
    CHECK(std::abs(t0[k] - (318.15 + 4 * p[k])) < 0.5);
  }
}

TEST_CASE("wear study: a bad study file names the file and the key") {
  auto check = [](const std::string& text, const std::string& want) {
    check_refused_file("wear-study -p gtx480", text, want);
  };
  const std::string app = R"({"name": "a", "kernel": "compute_heavy")";
  check(R"({"ptx": "k.ptx", "applications": [)" + app + R"(}], "partitions": [[1, 2]]})",
        "partitions[0]: not an array of 1 SM counts (one per application)");
  // Misspelt keys would leave their defaults in force (every policy for "polices").
  check(R"({"ptx": "k.ptx", "applications": [)" + app + R"(}], "partitions": [[1]], "polices": ["fixed"]})",
        "unknown key 'polices' (known: ptx, applications, partitions, policies, rotations, thresholds, years)");
  check(R"({"ptx": "k.ptx", "applications": [)" + app + R"(, "grids": 2}], "partitions": [[1]]})",
        "applications[0]: unknown key 'grids' (known: name, kernel, grid, block, launches, args)");
  // A threshold of 0.5 ps would be 0: refused with its key, not after the baseline has run.
  check(R"({"ptx": "k.ptx", "applications": [)" + app + R"(}], "partitions": [[1]], "thresholds": [0.5]})",
        "thresholds[0]: 0.5 is not a whole number of sensor ps from 1 to 2^53");
  check(R"({"ptx": "k.ptx", "applications": [)" + app + R"(, "args": [7, "out:abc"]}], "partitions": [[1]]})",
        "applications[0].args[1]: \"out:abc\": an argument is \"out:N\" or \"in:N\" (N f32 elements, a whole number "
        "from 1 to 2^30)");
  check(R"({"ptx": "k.ptx", "applications": [)" + app + R"(}], "partitions": [[1]], "thresholds": [1], "years": 5000})",
        "years: 5000 is not a number of years above 0 and at most 1000");
  // Checked against the platform before anything runs: gtx480 has 15 SMs and 256 MiB of global memory.
  const std::string ptx = R"({"ptx": ")" GPUVP_TEST_DATA R"(/../../experiments/wear/wear_kernels.ptx", )";
  check(ptx + R"("applications": [)" + app + "}, " + app + R"(}], "partitions": [[8, 7], [9, 7]], "thresholds": [1]})",
        "partitions[1]: 16 SMs asked for, the GPU has 15 (sm.count; at most 64)");
  check(ptx + R"("applications": [)" + app + R"(, "args": ["out:67108864", "in:1"]}], "partitions": [[1]],
                 "thresholds": [1]})",
        "applications: the buffers take 268435460 bytes, global memory holds 268435456 (gmem.size_mib)");
}
