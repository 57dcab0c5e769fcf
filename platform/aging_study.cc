#include "platform/aging_study.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "models/power/cluster_plan.h"
#include "models/power/power_accounting.h"
#include "platform/config/json_text.h"
#include "platform/forked_json.h"
#include "platform/platform.h"
#include "platform/user_file.h"

namespace gpuvp::aging {

namespace {

[[noreturn]] void bad(const std::string& file, const std::string& key, const std::string& why) {
  throw ConfigError(fmt::format("{}: {}: {}", file, key, why));
}

std::vector<std::string> parse_policies(const nlohmann::json& j, const std::string& file) {
  std::vector<std::string> out = {"even"};  // the reference of every comparison
  if (!j.contains("policies")) return {"even", "even-subset", "aging-aware"};
  if (!j["policies"].is_array() || j["policies"].empty()) bad(file, "policies", "not a non-empty array");
  const auto& known = power::cluster_planners();
  for (size_t i = 0; i < j["policies"].size(); ++i) {
    const nlohmann::json& p = j["policies"][i];
    if (!p.is_string() || std::find(known.begin(), known.end(), p.get<std::string>()) == known.end())
      bad(file, fmt::format("policies[{}]", i),
          fmt::format("{} is not a policy (even, even-subset, aging-aware)", json_shown(p)));
    if (std::find(out.begin(), out.end(), p.get<std::string>()) == out.end()) out.push_back(p);
  }
  return out;
}

}  // namespace

Study parse(const nlohmann::json& j, const std::string& file) {
  Study s;
  s.file = file;
  if (!j.is_object()) bad(file, "(top)", "not a JSON object");
  wear::known_keys(j, {"ptx", "application", "maps", "seed", "years", "needed", "round", "replan_years", "policies"},
                   file, "");
  if (!j.contains("ptx") || !j["ptx"].is_string()) bad(file, "ptx", "missing or not a string");
  s.ptx_path = j["ptx"];
  if (!j.contains("application")) bad(file, "application", "missing");
  s.app = wear::parse_app(j["application"], file, "application");
  s.maps = wear::positive(j.value("maps", nlohmann::json(50)), file, "maps");
  s.seed = wear::positive(j.value("seed", nlohmann::json(1)), file, "seed");
  s.round = wear::positive(j.value("round", nlohmann::json(32)), file, "round");
  if (j.contains("needed")) s.needed = wear::positive(j["needed"], file, "needed");
  if (j.contains("years")) s.years = wear::study_years(j["years"], file, "years");
  if (j.contains("replan_years")) s.replan_years = wear::study_years(j["replan_years"], file, "replan_years");
  s.policies = parse_policies(j, file);
  return s;
}

namespace {

unsigned cluster_count(const Config& cfg) {
  const unsigned sps = unsigned(cfg.i("sm.sps")), warp = unsigned(cfg.i("sm.warp_size"));
  return power::PowerConfig::from(cfg.params("power", "gpu.power"), cfg.params("thermal", "gpu.thermal"),
                                  cfg.params("em", "gpu.em"), sps, warp, 1e-9)
      .clusters;
}

}  // namespace

void check(const Config& cfg, const Study& s) {
  const unsigned n = cluster_count(cfg);
  if (s.needed > n)
    throw ConfigError(fmt::format("{}: needed: {} clusters, the SM has {} (power.clusters)", s.file, s.needed, n));
  wear::check_buffers(cfg, {s.app}, s.file, "application");
}

Study load(const std::string& path, const Config& cfg) {
  Study s = parse(read_user_json(path, "aging study file"), path);
  s.ptx_path = wear::study_ptx(s.ptx_path, path);
  check(cfg, s);
  return s;
}

namespace {

constexpr double kYear = power::PowerAccounting::kSecondsPerYear;

struct Measured {
  std::vector<double> duty;
  uint64_t kernel_cycles = 0;
  double energy_j = 0, static_j = 0;  // SM 0's over the run (dynamic and static; static)
  double power_w = 0;  // SM 0's mean power over the run
  double temp_k = 0;   // SM 0's mean temperature with the run repeated: the steady state of every SM's mean power
};

// The application's launches with the SM's distribution unit at `limits`: each cluster of SM 0's
// warp instructions over the cycles the SM was powered (one cycle per instruction on its cluster).
nlohmann::json measure(const Config& cfg, const Study& s, const std::string& ptx, const std::vector<unsigned>& limits) {
  Config c = cfg;
  std::string text;
  for (unsigned l : limits) text += (text.empty() ? "" : ":") + std::to_string(l);
  c.set("distribution.policy", "ratio", "aging-study");
  c.set("distribution.limits", text, "aging-study");
  Platform p(c);
  p.run([&](rt::Runtime& rt) {
    const rt::Module m = rt.load_module(ptx, s.ptx_path);
    const rt::KernelArgs args = wear::make_args(rt, s.app);
    for (unsigned l = 0; l < s.app.launches; ++l) rt.launch(m, s.app.kernel, {s.app.grid}, {s.app.block}, args);
    rt.synchronize();
  });
  const power::SmEnergy& e = p.power()->sms().at(0);
  std::vector<double> duty;
  for (size_t k = 0; k < limits.size(); ++k)
    duty.push_back(e.powered_cycles ? double(e.cluster_warp_insts[k]) / double(e.powered_cycles) : 0.0);
  // Run over and over for the years, every SM settles to the periodic state of the run, whose mean
  // temperature is the steady state of its mean power through the network (docs/power.md, "Wear study").
  std::vector<double> mean_w;
  for (const power::SmEnergy& k : p.power()->sms())
    mean_w.push_back(k.em.elapsed_s > 0 ? (k.dynamic_j + k.static_j) / k.em.elapsed_s : 0.0);
  const double temp_k = power::steady_temps(p.power()->config().thermal, mean_w).at(0);
  return {{"duty", duty},
          {"kernel_cycles", p.stats().kernel_cycles},
          {"energy_j", e.dynamic_j + e.static_j},
          {"static_j", e.static_j},
          {"power_w", mean_w.at(0)},
          {"temp_k", temp_k}};
}

// Runs are cached by limits: even and even-subset ask the same of every map.
class Runner {
 public:
  Runner(const Config& cfg, const Study& s) : cfg_(cfg), s_(s), ptx_(read_user_file(s.ptx_path, s.file + ": ptx")) {
    cfg_.set("power.enabled", true, "aging-study");
  }
  const Measured& operator()(const std::vector<unsigned>& limits) {
    auto it = cache_.find(limits);
    if (it != cache_.end()) return it->second;
    const nlohmann::json j = json_in_child([&] { return measure(cfg_, s_, ptx_, limits); },
                                           fmt::format("aging-study: {} with limits {}", s_.file, json_dump(limits)));
    return cache_[limits] = {j["duty"].get<std::vector<double>>(), j["kernel_cycles"].get<uint64_t>(),
                             j["energy_j"].get<double>(), j["static_j"].get<double>(), j["power_w"].get<double>(),
                             j["temp_k"].get<double>()};
  }

 private:
  Config cfg_;
  const Study& s_;
  std::string ptx_;
  std::map<std::vector<unsigned>, Measured> cache_;
};

// The study's years as re-planning periods (seconds): replan_years each, the last one what remains.
std::vector<double> periods(const Study& s) {
  if (s.replan_years <= 0 || s.replan_years >= s.years) return {s.years * kYear};
  std::vector<double> out;
  for (double done = 0; done < s.years * (1 - 1e-12); done += s.replan_years)
    out.push_back(std::min(s.replan_years, s.years - done) * kYear);
  return out;
}

// One map under one policy: before each period the policy plans from every cluster's aging so far
// (power::PlanInput::stress_s), the run with that plan gives each cluster's duty, and the period adds
// duty x length to its stress. The clusters are aged at the end (history_shift); the worst working
// cluster is one of the last plan's. Under nbti.temperature = thermal each plan is made at the SM's
// temperature of the period before (the first at `first_k`, even distribution's) and the clusters age at
// the periods' temperatures averaged over time (each period's run's, aging_temp_k).
void plan_and_age(MapRun& r, const power::PlanInput& first, const std::string& policy, Runner& measured,
                  const power::NbtiParams& fixed, double first_k, const std::vector<double>& lengths) {
  power::PlanInput in = first;
  const size_t n = in.offsets.size();
  in.stress_s.assign(n, 0.0);
  in.elapsed_s = 0;
  std::vector<double> last_duty;
  const double span = std::accumulate(lengths.begin(), lengths.end(), 0.0);
  power::NbtiParams np = fixed;
  np.temp_k = first_k;
  double temp_s = 0;  // temperature x time over the periods (K s)
  for (size_t k = 0; k < lengths.size(); ++k) {
    in.horizon_s = lengths[k];
    r.plans.push_back(power::make_cluster_planner(policy, np)->limits(in));
    const Measured& got = measured(r.plans.back());
    r.kernel_cycles = got.kernel_cycles;
    r.mean_cycles += double(got.kernel_cycles) * lengths[k] / span;
    r.energy_j = got.energy_j;
    r.static_j = got.static_j;
    r.mean_energy_j += got.energy_j * lengths[k] / span;
    r.mean_static_j += got.static_j * lengths[k] / span;
    r.plan_duties.push_back(got.duty);
    r.plan_power_w.push_back(got.power_w);
    r.plan_temps_k.push_back(power::aging_temp_k(fixed, {got.temp_k}, 0));
    temp_s += r.plan_temps_k.back() * lengths[k];
    np.temp_k = r.plan_temps_k.back();
    last_duty = got.duty;
    if (k + 1 == lengths.size()) break;  // the last period's stress goes to history_shift as its own
    for (size_t c = 0; c < n; ++c) in.stress_s[c] += got.duty[c] * lengths[k];
    in.elapsed_s += lengths[k];
  }
  r.limits = r.plans.back();
  // (Fixed: every period's temperature is nbti.temp_k, and so is their mean, exactly.)
  np.temp_k = r.plan_temps_k.size() == 1 || !fixed.thermal ? r.plan_temps_k.back() : temp_s / span;
  r.temp_k = np.temp_k;
  const auto nbti = power::make_power_law_nbti(np);
  const auto delay = power::make_alpha_power_delay(np);
  r.worst = 0;
  const double total = in.elapsed_s + in.horizon_s;
  for (size_t c = 0; c < n; ++c) {
    r.duty.push_back(in.elapsed_s > 0 ? (in.stress_s[c] + last_duty[c] * in.horizon_s) / total : last_duty[c]);
    r.shift_v.push_back(
        power::history_shift(*nbti, np, r.offsets_v[c], in.stress_s[c], in.elapsed_s, last_duty[c], in.horizon_s));
    r.degradation.push_back(delay->degradation(r.offsets_v[c] + r.shift_v[c]));
    if (r.limits[c] > 0) r.worst = std::max(r.worst, r.degradation[c]);  // a gated cluster sets no clock
  }
}

}  // namespace

std::vector<MapRun> run(const Config& cfg, const Study& s) {
  check(cfg, s);
  const unsigned n = cluster_count(cfg);
  const power::NbtiParams np = power::NbtiParams::from(cfg.params("nbti", "gpu.nbti"));
  const auto variation = power::make_normal_variation(np);
  Runner measured(cfg, s);
  // Equal shares: the SM's busy share (every cluster's instructions per powered cycle) over the working clusters.
  const Measured& even_run = measured(std::vector<unsigned>(n, 1));
  const std::vector<double> even = even_run.duty;
  const double even_k = power::aging_temp_k(np, {even_run.temp_k}, 0);
  double busy = 0;
  for (double d : even) busy += d;
  const unsigned needed = s.needed ? s.needed : n;
  const std::vector<double> lengths = periods(s);
  std::vector<MapRun> out;
  for (unsigned m = 0; m < s.maps; ++m) {
    const power::PlanInput in{variation->offsets(s.seed, m, n), needed, std::min(1.0, busy / needed), s.years * kYear,
                              s.round};
    for (const std::string& policy : s.policies) {
      MapRun r;
      r.map = m;
      r.policy = policy;
      r.offsets_v = in.offsets;
      plan_and_age(r, in, policy, measured, np, even_k, lengths);
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<PolicySummary> summarise(const Study& s, const std::vector<MapRun>& runs) {
  std::map<unsigned, const MapRun*> even;
  for (const MapRun& r : runs)
    if (r.policy == "even") even[r.map] = &r;
  std::vector<PolicySummary> out;
  for (const std::string& policy : s.policies) {
    PolicySummary p;
    p.policy = policy;
    unsigned n = 0, beats = 0;
    for (const MapRun& r : runs) {
      if (r.policy != policy) continue;
      ++n;
      p.mean_worst += r.worst;
      p.max_worst = std::max(p.max_worst, r.worst);
      beats += r.worst < even[r.map]->worst ? 1 : 0;
      p.cycles_vs_even += r.mean_cycles / even[r.map]->mean_cycles;
      p.energy_vs_even += r.mean_energy_j / even[r.map]->mean_energy_j;
      p.static_vs_even += r.mean_static_j / even[r.map]->mean_static_j;
      p.mean_temp_k += r.temp_k;
    }
    p.mean_worst /= std::max(n, 1u);
    p.cycles_vs_even /= std::max(n, 1u);
    p.energy_vs_even /= std::max(n, 1u);
    p.static_vs_even /= std::max(n, 1u);
    p.mean_temp_k /= std::max(n, 1u);
    p.beats_even = n ? double(beats) / n : 0.0;
    out.push_back(p);
  }
  return out;
}

nlohmann::json to_json(const Study& s, const std::vector<MapRun>& runs) {
  nlohmann::json j = {{"application", s.app.name}, {"maps", s.maps}, {"seed", s.seed}, {"years", s.years},
                      {"replan_years", s.replan_years > 0 && s.replan_years < s.years ? s.replan_years : s.years},
                      {"policies", s.policies}, {"runs", nlohmann::json::array()}, {"summary", nlohmann::json::array()}};
  for (const MapRun& r : runs)
    j["runs"].push_back({{"map", r.map},
                         {"policy", r.policy},
                         {"offsets_v", r.offsets_v},
                         {"limits", r.limits},
                         {"plans", r.plans},
                         {"plan_duties", r.plan_duties},
                         {"duty", r.duty},
                         {"shift_v", r.shift_v},
                         {"degradation", r.degradation},
                         {"worst", r.worst},
                         {"kernel_cycles", r.kernel_cycles},
                         {"mean_cycles", r.mean_cycles},
                         {"energy_j", r.energy_j},
                         {"static_j", r.static_j},
                         {"mean_energy_j", r.mean_energy_j},
                         {"mean_static_j", r.mean_static_j},
                         {"plan_power_w", r.plan_power_w},
                         {"plan_temps_k", r.plan_temps_k},
                         {"temp_k", r.temp_k}});
  for (const PolicySummary& p : summarise(s, runs))
    j["summary"].push_back(
        {{"policy", p.policy}, {"mean_worst", p.mean_worst}, {"max_worst", p.max_worst}, {"beats_even", p.beats_even},
         {"cycles_vs_even", p.cycles_vs_even}, {"energy_vs_even", p.energy_vs_even},
         {"static_vs_even", p.static_vs_even}, {"temp_k", p.mean_temp_k}});
  return j;
}

std::string table(const Study& s, const std::vector<MapRun>& runs) {
  std::string t = fmt::format("{:<14} {:>16} {:>15} {:>11} {:>15} {:>15} {:>15} {:>10}\n", "policy",
                              "mean worst (%)", "max worst (%)", "beats even", "cycles vs even", "energy vs even",
                              "static vs even", "aged at K");
  for (const PolicySummary& p : summarise(s, runs))
    t += fmt::format("{:<14} {:>16.3f} {:>15.3f} {:>10.0f}% {:>15.3f} {:>15.4f} {:>15.4f} {:>10.2f}\n", p.policy,
                     p.mean_worst * 100, p.max_worst * 100, p.beats_even * 100, p.cycles_vs_even, p.energy_vs_even,
                     p.static_vs_even, p.mean_temp_k);
  return t;
}

}  // namespace gpuvp::aging
