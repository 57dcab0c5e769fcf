#include "cli/memprot.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <memory>

#include "cli/options.h"
#include "faultinj/mem_campaign.h"
#include "faultinj/job.h"
#include "platform/output_file.h"
#include "platform/platform.h"
#include "platform/text.h"
#include "platform/user_file.h"

namespace gpuvp {

namespace {
// Above 0: a share of 0 would make no block hot.
void add_hot_share(CLI::App* app, double& share) {
  add_real_option(app, "--hot-share", share,
                  "Hot blocks: the most accessed blocks holding at least this share of the accesses", 0, 1, true);
}
}  // namespace

void MemJobOptions::add(CLI::App* app) {
  auto* w = app->add_option("--workload,-w", workload, "Workload (gpuvp workloads lists them)");
  auto* l = app->add_option("--launch,-l", launch, "Launch configuration of the workload (default: its first)");
  add_uint_option(app, "--seed", seed, "Seed of the workload's input generator", 0, ~uint64_t{0});
  auto* f = app->add_option("--launch-file", launch_file, "JSON launch description, as gpuvp exec --launch-file reads it");
  f->excludes(w);
  f->excludes(l);
}

fi::JobFactory MemJobOptions::factory(const Config& c) const {
  if (launch_file.empty()) {
    fi::workload_job(c, workload, launch, seed);  // unknown names fail here, in the caller
    return [c, w = workload, l = launch, s = seed] { return fi::workload_job(c, w, l, s); };
  }
  const nlohmann::json d = read_user_json(launch_file, "--launch-file");
  const ExecSource src{launch_file, std::filesystem::path(launch_file).parent_path().string(), launch_file, false};
  fi::exec_job(c, d, src);  // a bad description fails here
  return [c, d, src] { return fi::exec_job(c, d, src); };
}

void ProfileOptions::add(CLI::App* app) {
  add_hot_share(app, hot_share);
  app->add_option("--csv", csv, "Write every block (rank, object, accesses, L1 misses, warps, hot) as CSV");
  app->add_option("--json", json, "Write the objects and every block's counts as JSON");
}

void MemCampaignCliOptions::add(CLI::App* app) {
  add_uint_option(app, "--runs", runs, "Faulty runs", 1, 10000000);
  add_uint_option(app, "--blocks", blocks, "Faulty 128-byte blocks per run", 1, 1024);
  add_uint_option(app, "--bits", bits, "Stuck bits per faulty word (pairwise non-adjacent)", 1, 16);
  add_uint_option(app, "--workers", workers, "Parallel runs", 1, 256);
  add_uint_option(app, "--fault-seed", fault_seed, "Seed of the fault sets", 0, ~uint64_t{0});
  app->add_option("--choice", choice, "Faulty blocks among: hot, cold, miss_weighted")
      ->check(CLI::IsMember({"hot", "cold", "miss_weighted"}));
  app->add_option("--protect-hot", protect_hot, "Protect the profile's hot objects: none, detect (duplication), "
                                                "correct (triplication)")
      ->check(CLI::IsMember({"none", "detect", "correct"}));
  add_hot_share(app, hot_share);
  app->add_option("--output-type", output_type, "Element type of a workload's output for the check")
      ->check(CLI::IsMember({"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"}));
  add_real_option(app, "--max-share", max_share, "Output check: share of elements allowed beyond the tolerance", 0, 1);
  const double inf = std::numeric_limits<double>::infinity();
  add_real_option(app, "--rel", rel, "Output check: relative tolerance per element", 0, inf);
  add_real_option(app, "--abs", abs, "Output check: absolute tolerance per element", 0, inf);
  app->add_option("--json", json, "Write the result (outcomes, timing, settings) as JSON");
}

int cmd_profile_memory(const Config& c, const MemJobOptions& jo, const ProfileOptions& o) {
  if (!o.csv.empty()) check_output(o.csv, "--csv");
  if (!o.json.empty()) check_output(o.json, "--json");
  auto job = jo.factory(c)();
  Platform p(job->config(), job->hooks());
  job->attach(p);
  MemProfiler prof(p.data_objects());
  p.data_objects().observer = &prof;
  p.run([&](rt::Runtime& rt) { job->run(rt); });
  const MemoryProfile mp = prof.result(o.hot_share);
  print_out("memory profile of {}\n{}", job->describe(), mp.table());
  std::string hot;
  for (auto& n : mp.hot_objects()) hot += (hot.empty() ? "" : ",") + n;
  print_out("hot objects: {}\n", hot.empty() ? "(none)" : hot);
  if (!o.csv.empty()) write_output(o.csv, mp.blocks_csv());
  if (!o.json.empty()) write_output(o.json, mp.to_json(true).dump(1) + "\n");
  return 0;
}

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// A run's outcome, a DUE with its kind: "sdc", "masked", "due:detected", "due:other", ...
std::string run_class(const fi::RunResult& r) {
  if (r.outcome != fi::Outcome::DUE) return fi::to_string(r.outcome);
  return std::string("due:") + fi::to_string(r.due);
}
}  // namespace

int cmd_mem_campaign(Config c, const MemJobOptions& jo, const MemCampaignCliOptions& o) {
  if (!o.json.empty()) check_output(o.json, "--json");
  for (const char* key : {"protect.duplicate", "protect.triplicate"})
    if (o.protect_hot != "none" && !c.s(key).empty())
      throw ConfigError(fmt::format("--protect-hot {} and --set {}={}: --protect-hot chooses the protected objects "
                                    "itself; give one or the other",
                                    o.protect_hot, key, c.s(key)));
  // The faults and the hot objects come from the unprotected program's profile.
  Config plain = c;
  plain.set("protect.duplicate", std::string(), "mem-campaign profile");
  plain.set("protect.triplicate", std::string(), "mem-campaign profile");
  const MemoryProfile mp = fi::profile_job(jo.factory(plain), o.hot_share);
  // Names the program does not have are refused here, before any campaign run.
  std::vector<std::string> names;
  for (const auto& obj : mp.objects) names.push_back(obj.name);
  if (std::string why = unmatched_protection(ProtectionConfig::from(c.params("protect", "")), names); !why.empty())
    throw ConfigError(why);
  const std::string hot = join(mp.hot_objects());
  if (o.protect_hot != "none")
    c.set(o.protect_hot == "detect" ? "protect.duplicate" : "protect.triplicate", hot, "--protect-hot");
  std::vector<fi::StuckSet> sets;
  try {
    auto sel = fi::block_selector(fi::parse_block_choice(o.choice), mp);
    sets = fi::draw_stuck_sets(mp, *sel, o.runs, o.blocks, o.bits, o.fault_seed);
  } catch (const std::invalid_argument& e) {  // more blocks or bits than the profile offers
    throw ConfigError(fmt::format("--blocks {} --bits {} --choice {}: {}", o.blocks, o.bits, o.choice, e.what()));
  }
  fi::MemCampaignOptions mo;
  mo.workers = o.workers;
  mo.output_type = o.output_type;
  if (o.max_share >= 0) mo.check.max_share = o.max_share;
  if (o.rel >= 0) mo.check.rel = o.rel;
  if (o.abs >= 0) mo.check.abs = o.abs;
  const fi::MemCampaignResult r = fi::run_mem_campaign(jo.factory(c), sets, mo);
  const uint64_t detected = r.by_due[size_t(fi::DueKind::Detected)];
  nlohmann::json j{{"runs", o.runs},           {"blocks", o.blocks},
                   {"bits", o.bits},           {"choice", o.choice},
                   {"hot_objects", hot},       {"duplicate", c.s("protect.duplicate")},
                   {"triplicate", c.s("protect.triplicate")},
                   {"golden_cycles", r.golden_cycles}, {"wall_seconds", r.wall_seconds},
                   {"detected", detected},     {"due_other", r.outcomes[size_t(fi::Outcome::DUE)] - detected}};
  for (int k = 0; k < fi::kOutcomeCount; ++k) j["outcomes"][fi::to_string(fi::Outcome(k))] = r.outcomes[size_t(k)];
  for (int k = 1; k < fi::kDueKindCount; ++k) j["due_kinds"][fi::to_string(fi::DueKind(k))] = r.by_due[size_t(k)];
  // Per fault set (the same sets for every protection with the same seed): a study compares runs.
  for (const auto& x : r.runs) j["run_outcomes"].push_back(run_class(x));
  print_out("{} runs, {} block(s) x {} stuck bits, blocks {}; duplicated [{}], triplicated [{}]\n", o.runs, o.blocks,
            o.bits, o.choice, c.s("protect.duplicate"), c.s("protect.triplicate"));
  for (int k = 0; k < fi::kOutcomeCount; ++k)
    if (k != int(fi::Outcome::DUE) && r.outcomes[size_t(k)])
      print_out("  {:<14} {}\n", fi::to_string(fi::Outcome(k)), r.outcomes[size_t(k)]);
  // A duplication mismatch apart from every other DUE.
  if (detected) print_out("  {:<14} {}\n", "due (detected)", detected);
  if (r.outcomes[size_t(fi::Outcome::DUE)] > detected)
    print_out("  {:<14} {}\n", "due (other)", r.outcomes[size_t(fi::Outcome::DUE)] - detected);
  print_out("golden kernel cycles {}; wall time {:.1f} s ({} workers)\n", r.golden_cycles, r.wall_seconds, o.workers);
  if (!o.json.empty()) write_output(o.json, j.dump(1) + "\n");
  return 0;
}

}  // namespace gpuvp
