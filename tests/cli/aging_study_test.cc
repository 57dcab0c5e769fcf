// `gpuvp aging-study` (docs/power.md, "Aging study"): a small study on tk1's 6 lane clusters, the
// distribution unit's settings as a run sees them, and bad study files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "common/refused_file.h"

using namespace gpuvp::test;
using nlohmann::json;

namespace {
std::vector<double> doubles(const json& j) { return j.get<std::vector<double>>(); }
}  // namespace

TEST_CASE("aging study: policies change which clusters work") {
  const std::string out = temp_path("aging_study_out");
  RunResult r = run_gpuvp(fmt::format("aging-study {}/power/tiny_aging.json --out {} -p tk1", GPUVP_TEST_DATA, out));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json s = json::parse(slurp(out + "/summary.json"));
  CHECK(slurp(out + "/summary.txt").find("aging-aware") != std::string::npos);
  std::filesystem::remove_all(out);
  REQUIRE(s["runs"].size() == 6);  // 2 maps x (even, even-subset, aging-aware)
  for (const json& run : s["runs"]) {
    INFO(run.dump());
    CHECK(run["kernel_cycles"] > 0);
    for (double d : doubles(run["duty"])) CHECK(d <= 1.0);  // a cluster takes one warp instruction per cycle
    const std::vector<double> off = doubles(run["offsets_v"]), duty = doubles(run["duty"]);
    const std::vector<double> deg = doubles(run["degradation"]);
    const auto limits = run["limits"].get<std::vector<unsigned>>();
    REQUIRE(limits.size() == 6);
    double worst = 0;
    for (size_t c = 0; c < 6; ++c) {
      if (limits[c] == 0) {  // gated: no work, no aging, only its variation
        CHECK(duty[c] == 0.0);
        CHECK(run["shift_v"][c] == 0.0);
        CHECK_THAT(deg[c], Catch::Matchers::WithinRel(std::pow(1 - off[c] / 0.6, -1.3) - 1, 1e-9));
      } else {
        CHECK(duty[c] > 0.0);
        worst = std::max(worst, deg[c]);
      }
    }
    CHECK(run["worst"] == worst);
    if (run["policy"] == "even") {
      CHECK(limits == std::vector<unsigned>(6, 1));
      for (size_t c = 1; c < 6; ++c) CHECK_THAT(duty[c], Catch::Matchers::WithinRel(duty[0], 0.02));
    }
    if (run["policy"] == "even-subset") CHECK(limits == std::vector<unsigned>{1, 1, 1, 1, 0, 0});
    if (run["policy"] == "aging-aware") {
      // Formation gates the two clusters of highest Vth0 (the slowest) and works the four others.
      std::vector<size_t> order = {0, 1, 2, 3, 4, 5};
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return off[a] < off[b]; });
      CHECK(limits[order[4]] == 0);
      CHECK(limits[order[5]] == 0);
      unsigned sum = 0;
      for (unsigned l : limits) sum += l;
      CHECK(sum == 16);  // one round
    }
  }
  REQUIRE(s["summary"].size() == 3);
  CHECK(s["summary"][0]["policy"] == "even");
  CHECK(s["summary"][0]["beats_even"] == 0.0);
  for (const json& p : s["summary"]) {
    CHECK(p["beats_even"] >= 0.0);
    CHECK(p["beats_even"] <= 1.0);
  }
}

namespace {
// The power law and the alpha-power delay written out (docs/power.md, "NBTI aging"; tk1 keeps the
// defaults Vdd 1.1 V, Vth0 0.5 V, 350 K).
double power_law(double offset, double duty, double t_s) {
  if (duty <= 0) return 0;
  const double kt = 8.617e-5 * 350, d = std::pow(duty / (1 + std::sqrt((1 - duty) / 2)), 1.0 / 6);
  return d * 0.027e-12 * std::pow(0.6 - offset, 4.5) *
         (5.5e12 * std::exp(-0.08 / kt) * std::pow(t_s, 1.0 / 6) + 8e11 * std::exp(-0.03 / kt));
}
}  // namespace

TEST_CASE("aging study: replan_years makes the plan again from the aging so far") {
  const std::string out = temp_path("aging_replan_out");
  RunResult r =
      run_gpuvp(fmt::format("aging-study {}/power/tiny_aging_replan.json --out {} -p tk1", GPUVP_TEST_DATA, out));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json s = json::parse(slurp(out + "/summary.json"));
  std::filesystem::remove_all(out);
  CHECK(s["replan_years"] == 1.0);
  REQUIRE(s["runs"].size() == 4);  // 2 maps x (even, aging-aware)
  const double year = 365.25 * 24 * 3600;
  for (const json& run : s["runs"]) {
    INFO(run.dump());
    REQUIRE(run["plans"].size() == 3);  // three years, one plan a year
    const std::vector<double> off = doubles(run["offsets_v"]);
    std::vector<double> stress(6, 0.0);  // duty-years so far
    for (size_t k = 0; k < 3; ++k) {
      const auto limits = run["plans"][k].get<std::vector<unsigned>>();
      const std::vector<double> duty = doubles(run["plan_duties"][k]);
      if (run["policy"] == "aging-aware") {
        // Formation gates the two clusters of highest threshold now: variation plus the aging of the
        // years before, the power law at each cluster's average duty so far.
        std::vector<double> now(6);
        for (size_t c = 0; c < 6; ++c) now[c] = off[c] + (k ? power_law(off[c], stress[c] / double(k), double(k) * year) : 0.0);
        std::vector<size_t> order = {0, 1, 2, 3, 4, 5};
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return now[a] < now[b]; });
        CHECK(limits[order[4]] == 0);
        CHECK(limits[order[5]] == 0);
      } else {
        CHECK(limits == std::vector<unsigned>(6, 1));
      }
      for (size_t c = 0; c < 6; ++c) stress[c] += duty[c];
    }
    // The end: each cluster at its average duty over the three years.
    const std::vector<double> duty = doubles(run["duty"]), shift = doubles(run["shift_v"]);
    for (size_t c = 0; c < 6; ++c) {
      CHECK_THAT(duty[c], Catch::Matchers::WithinRel(stress[c] / 3, 1e-12));
      CHECK_THAT(shift[c], Catch::Matchers::WithinRel(power_law(off[c], stress[c] / 3, 3 * year), 1e-9));
    }
  }
}

TEST_CASE("aging study: a bad study file names the file and the key") {
  auto check = [](const std::string& text, const std::string& want) { check_refused_file("aging-study -p tk1", text, want); };
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k"}, "maps": 0})",
        "maps: 0 is not a whole number from 1 to 2^30");
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k"}, "policies": ["fastest"]})",
        "policies[0]: \"fastest\" is not a policy (even, even-subset, aging-aware)");
  check(R"({"ptx": "k.ptx", "application": {"name": "a"}})", "application.kernel: missing or not a string");
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k"}, "years": -1})",
        "years: -1 is not a number of years above 0 and at most 1000");
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k"}, "replan_years": 0})",
        "replan_years: 0 is not a number of years above 0 and at most 1000");
  // A misspelt key would leave its default in force (50 maps for "mapz").
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k"}, "mapz": 1})",
        "unknown key 'mapz' (known: ptx, application, maps, seed, years, needed, round, replan_years, policies)");
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k", "grids": 2}})",
        "application: unknown key 'grids' (known: name, kernel, grid, block, launches, args)");
  check(R"({"ptx": "k.ptx", "application": {"name": "a", "kernel": "k", "args": ["out:abc"]}})",
        "application.args[0]: \"out:abc\": an argument is \"out:N\" or \"in:N\" (N f32 elements, a whole number from "
        "1 to 2^30)");
  // Checked against the platform before anything runs: tk1's SM has 192 / 32 = 6 lane clusters.
  check(R"({"ptx": ")" GPUVP_TEST_DATA R"(/../../experiments/wear/wear_kernels.ptx",
           "application": {"name": "a", "kernel": "compute_heavy"}, "needed": 7})",
        "needed: 7 clusters, the SM has 6 (power.clusters)");
}

TEST_CASE("aging study: NBTI and power parameters outside the models' range are refused, naming the keys") {
  auto refused = [](const std::string& set, const std::string& want) {
    const std::string out = temp_path("aging_refused_out");
    RunResult r =
        run_gpuvp(fmt::format("aging-study -p tk1 {}/power/tiny_aging.json --set {} --out {}", GPUVP_TEST_DATA, set, out));
    INFO(set << "\n" << r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(want) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
  };
  refused("nbti.vth0=1.2", "nbti.vth0 = 1.2 V is not below nbti.vdd = 1.1 V");
  // The largest draw is sqrt(-2 ln 2^-54) = 8.65 sigma_v; it must stay below Vth0 = 0.5 V and Vdd - Vth0 = 0.6 V.
  refused("nbti.sigma_v=0.5", "nbti.sigma_v = 0.5 V: a variation map draws offsets up to 8.65 sigma_v = 4.33 V");
  refused("nbti.sigma_v=0.0579", "below 0.0578 V here");
  refused("power.clusters=7", "power.clusters = 7 exceeds the SM's 6 lane clusters (sm.sps / sm.warp_size = 192 / 32)");
}

TEST_CASE("distribution unit: limits that do not fit the SM are refused, naming the key") {
  RunResult r = run_gpuvp(
      "exec -p tk1 --ptx " GPUVP_TEST_DATA "/../../experiments/wear/wear_kernels.ptx -k compute_heavy --grid 1 "
      "--block 32 --arg buf:f32:32 --arg i32:1 --set power.enabled=true --set distribution.policy=ratio "
      "--set distribution.limits=4:3");
  CHECK(r.status == 2);
  CHECK(r.err.find("distribution.limits: '4:3' has 2 limits, the SM has 6 lane clusters") != std::string::npos);
}

// tx2's SM has 4 lane clusters of 32 lanes: a lane warp instruction holds its cluster one cycle. compute_heavy
// with 100 iterations runs 6 lane instructions per iteration (4 fma, add, setp; the branch is control):
// 600 per warp, 16 blocks of 8 warps over 2 SMs = 64 warps per SM, 38400 lane instructions per SM. With
// limits l_c the busiest cluster takes max(l) / sum(l) of them, one per cycle: a lower bound on the cycles.
TEST_CASE("distribution: a gated or favoured cluster takes throughput away (lane instructions one per cycle)") {
  const auto cycles = [](const std::string& limits) {
    const std::string stats = temp_path("distribution_cycles.json");
    RunResult r = run_gpuvp(fmt::format(
        "exec -p tx2 --ptx {}/../../experiments/wear/wear_kernels.ptx -k compute_heavy --grid 16 --block 256 "
        "-a buf:f32:4096:zero -a u32:100 --set power.enabled=true --set distribution.policy=ratio "
        "--set distribution.limits={} --stats {}",
        GPUVP_TEST_DATA, limits, stats));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const uint64_t c = json::parse(slurp(stats))["kernel_cycles"];
    std::filesystem::remove(stats);
    return double(c);
  };
  const double even = cycles("1:1:1:1"), one = cycles("1:0:0:0"), half = cycles("2:1:1:0");
  CHECK(even >= 38400.0 / 4);
  CHECK(one >= 38400.0);
  CHECK(half >= 38400.0 / 2);
  // Four clusters carry the lanes' work about four times as fast as one (the bound is nearly met).
  CHECK(one >= 2.5 * even);
  CHECK(one <= 1.25 * 38400.0);
}

namespace {
// compute_heavy on tx2 at 1 GHz (1 ns a cycle; 0.04 W static per powered SM at v0 = vdd = 0.8 V, 4 lane
// clusters) with the distribution unit at `limits`: the statistics and the power trace.
struct GatedRun {
  json stats;
  std::vector<double> trace_static_j;  // per SM: the trace's static power over its rows' lengths
};
GatedRun gated_run(const std::string& limits, const std::string& share) {
  const std::string stats = temp_path("gated_stats.json"), trace = temp_path("gated_trace.csv");
  RunResult r = run_gpuvp(fmt::format(
      "exec -p tx2 --ptx {}/../../experiments/wear/wear_kernels.ptx -k compute_heavy --grid 4 --block 128 "
      "-a buf:f32:512:zero -a u32:20 --set gpu.clock_mhz=1000 --set power.enabled=true "
      "--set distribution.policy=ratio --set distribution.limits={} --set power.cluster_static_share={} "
      "--stats {} --power-trace {}",
      GPUVP_TEST_DATA, limits, share, stats, trace));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  GatedRun g{json::parse(slurp(stats)), std::vector<double>(2, 0.0)};
  std::istringstream rows(slurp(trace));
  std::string line;
  std::getline(rows, line);  // interval,start_ps,end_ps,sm,dynamic_w,static_w,...
  while (std::getline(rows, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    REQUIRE(f.size() == 10);
    g.trace_static_j.at(std::stoul(f[3])) += std::stod(f[5]) * (std::stod(f[2]) - std::stod(f[1])) * 1e-12;
  }
  std::filesystem::remove(stats);
  std::filesystem::remove(trace);
  return g;
}
}  // namespace

TEST_CASE("power gating of lane clusters: a gated cluster draws none of its share of the SM's static power") {
  // Static energy of SM k by hand: 0.04 W x its powered cycles x 1 ns x (1 - share x gated / 4).
  const auto check = [](const GatedRun& g, double factor) {
    double sum = 0;
    for (size_t k = 0; k < 2; ++k) {
      const json& e = g.stats["sms"][k]["energy"];
      INFO("SM " << k << ": " << e.dump());
      const double powered = e["powered_cycles"].get<double>();
      CHECK(powered > 0);
      const double hand = 0.04 * powered * 1e-9 * factor;
      CHECK_THAT(e["static_j"].get<double>(), Catch::Matchers::WithinRel(hand, 1e-9));
      CHECK_THAT(g.trace_static_j[k], Catch::Matchers::WithinRel(hand, 1e-6));  // (the trace's 6 digits)
      sum += e["static_j"].get<double>();
    }
    CHECK_THAT(g.stats["energy"]["sm_static_j"].get<double>(), Catch::Matchers::WithinRel(sum, 1e-12));
  };
  const GatedRun one = gated_run("1:1:1:0", "0.5"), two = gated_run("1:1:0:0", "0.5");
  const GatedRun none = gated_run("1:1:1:1", "0.5"), unshared = gated_run("1:1:1:0", "0");
  check(one, 1 - 0.5 / 4);    // 0.875
  check(two, 1 - 0.5 * 2 / 4);  // 0.75
  check(none, 1.0);           // no cluster gated: the SM's whole static power
  check(unshared, 1.0);       // a share of 0: the clusters draw nothing of their own to save
  // The share changes power only, not timing: the same powered cycles and dynamic energy with either.
  for (size_t k = 0; k < 2; ++k) {
    CHECK(one.stats["sms"][k]["energy"]["powered_cycles"] == unshared.stats["sms"][k]["energy"]["powered_cycles"]);
    CHECK(one.stats["sms"][k]["energy"]["dynamic_j"] == unshared.stats["sms"][k]["energy"]["dynamic_j"]);
  }
  CHECK(one.stats["launches"][0]["dynamic_energy_j"] == unshared.stats["launches"][0]["dynamic_energy_j"]);
}

TEST_CASE("aging study: energy per policy, and nbti.temperature = thermal ages at the SM's steady temperature") {
  const auto study = [](const std::string& set) {
    const std::string out = temp_path("aging_thermal_out");
    RunResult r =
        run_gpuvp(fmt::format("aging-study {}/power/tiny_aging.json --out {} -p tk1 {}", GPUVP_TEST_DATA, out, set));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const json s = json::parse(slurp(out + "/summary.json"));
    std::filesystem::remove_all(out);
    return s;
  };
  const json th = study("--set nbti.temperature=thermal");
  // tk1: one SM, R_v 20 K/W, no lateral coupling, ambient 318.15 K: the run repeated settles at
  // 318.15 + 20 P on average, P the SM's mean power over the run; the power law by hand at that temperature.
  const double year = 365.25 * 24 * 3600;
  double even_k = 0;
  for (const json& run : th["runs"]) {
    INFO(run.dump());
    REQUIRE(run["plan_temps_k"].size() == 1);  // planned once
    const double p = run["plan_power_w"][0], t = run["temp_k"];
    CHECK(p > 0);
    CHECK_THAT(t, Catch::Matchers::WithinRel(318.15 + 20 * p, 1e-12));
    CHECK(run["plan_temps_k"][0] == t);
    if (run["policy"] == "even") even_k = t;
    const std::vector<double> off = doubles(run["offsets_v"]), duty = doubles(run["duty"]), shift = doubles(run["shift_v"]);
    const double kt = 8.617e-5 * t;
    for (size_t c = 0; c < 6; ++c) {
      const double a = duty[c], d = a > 0 ? std::pow(a / (1 + std::sqrt((1 - a) / 2)), 1.0 / 6) : 0.0;
      const double hand = d * 0.027e-12 * std::pow(0.6 - off[c], 4.5) *
                          (5.5e12 * std::exp(-0.08 / kt) * std::pow(3 * year, 1.0 / 6) + 8e11 * std::exp(-0.03 / kt));
      CHECK_THAT(shift[c], Catch::Matchers::WithinRel(hand, 1e-9));
    }
    CHECK(run["energy_j"] > run["static_j"]);
    CHECK(run["static_j"] > 0.0);
  }
  // The fixed path at even distribution's temperature gives even distribution's shifts.
  const json fx = study(fmt::format("--set nbti.temp_k={:.17g}", even_k));
  for (size_t i = 0; i < fx["runs"].size(); ++i) {
    if (fx["runs"][i]["policy"] != "even") continue;
    REQUIRE(th["runs"][i]["policy"] == "even");
    CHECK(fx["runs"][i]["temp_k"] == even_k);
    const std::vector<double> a = doubles(fx["runs"][i]["shift_v"]), b = doubles(th["runs"][i]["shift_v"]);
    for (size_t c = 0; c < 6; ++c) CHECK_THAT(a[c], Catch::Matchers::WithinRel(b[c], 1e-12));
  }
  // Energy per policy, over even distribution's (the hand-worked static energy of a gated cluster is the
  // test above).
  for (const json& p : th["summary"]) {
    INFO(p.dump());
    CHECK(p["energy_vs_even"] > 0.0);
    if (p["policy"] == "even") CHECK(p["energy_vs_even"] == 1.0);
  }
}
