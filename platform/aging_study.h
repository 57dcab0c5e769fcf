#pragma once
// An aging study (docs/power.md, "Aging study"): one application on an SM, seeded process-variation
// maps of its lane clusters, and per map and distribution policy the per-cluster stress measured in a
// run with the SM's distribution unit set as the policy asks, aged over the study's years: each
// cluster's NBTI shift and delay degradation, the worst working cluster's, and the share of maps in
// which each policy beats even distribution.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/config.h"
#include "platform/wear_study.h"

namespace gpuvp::aging {

struct Study {
  std::string file;  // for messages
  std::string ptx_path;
  wear::App app;
  unsigned maps = 50;
  uint64_t seed = 1;
  double years = 3;
  unsigned needed = 0;  // working clusters the application's profile asks for (0: every cluster)
  unsigned round = 32;  // warp instructions per distribution round
  double replan_years = 0;  // the plan is made again after every this many years of aging (0: once)
  std::vector<std::string> policies;  // "even" first (the reference)
};

// Parses a study file; ConfigError naming the file and the key for bad input.
Study parse(const nlohmann::json& j, const std::string& file);
// What the study asks of the platform `cfg` would build (`needed` within its lane clusters, buffers
// within its global memory), before anything runs; ConfigError naming the file and the key.
void check(const Config& cfg, const Study& s);
// Parses and checks a study file for `cfg`.
Study load(const std::string& path, const Config& cfg);

struct MapRun {
  unsigned map = 0;
  std::string policy;
  std::vector<double> offsets_v;       // Vth0 offset of each cluster (variation)
  std::vector<unsigned> limits;        // distribution unit limits of the last plan (0: gated)
  std::vector<std::vector<unsigned>> plans;  // every plan's limits, one per re-planning period
  std::vector<std::vector<double>> plan_duties;  // each cluster's measured duty under each plan
  std::vector<double> duty;            // measured stress duty of each cluster, averaged over the years
  std::vector<double> shift_v;         // NBTI shift after the years
  std::vector<double> degradation;     // delay degradation (variation and aging) of each cluster
  double worst = 0;                    // the worst working cluster's degradation
  uint64_t kernel_cycles = 0;          // of the last plan's run
  // Kernel cycles averaged over the periods (each plan's run weighted by its period's length): fewer
  // clusters, or unequal shares of busy ones, take throughput away.
  double mean_cycles = 0;
  // SM 0's energy (dynamic and static; static) in the last plan's run, and the run's energy averaged over
  // the periods as mean_cycles: a gated cluster draws no static power (power.cluster_static_share).
  double energy_j = 0, static_j = 0, mean_energy_j = 0, mean_static_j = 0;
  std::vector<double> plan_power_w;  // SM 0's mean power in each plan's run
  std::vector<double> plan_temps_k;  // the SM's temperature under each plan (nbti.temp_k when fixed)
  double temp_k = 0;  // the temperature the clusters aged at: the periods' averaged over time
};

struct PolicySummary {
  std::string policy;
  double mean_worst = 0, max_worst = 0;
  double beats_even = 0;  // share of maps with a lower worst degradation than even distribution's
  double cycles_vs_even = 0;  // mean over the maps of mean_cycles over even distribution's
  double energy_vs_even = 0;  // mean over the maps of mean_energy_j over even distribution's
  double static_vs_even = 0;  // the same for the static energy alone (mean_static_j)
  double mean_temp_k = 0;     // mean over the maps of the temperature aged at
};

// Every map and policy, each run on its own platform built from `cfg` (SM 0's clusters are studied).
std::vector<MapRun> run(const Config& cfg, const Study& s);
std::vector<PolicySummary> summarise(const Study& s, const std::vector<MapRun>& runs);
nlohmann::json to_json(const Study& s, const std::vector<MapRun>& runs);
std::string table(const Study& s, const std::vector<MapRun>& runs);

}  // namespace gpuvp::aging
