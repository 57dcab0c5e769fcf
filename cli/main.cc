// gpuvp command line: run workloads, print configurations and targets, disassemble PTX.
// Exit status: 0 success, 1 wrong result or device error, 2 bad input (configuration, arguments,
// malformed PTX), 3 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <systemc>
#include <cstdlib>

#include "faultinj/campaign.h"
#include "faultinj/campaign_file.h"
#include "faultinj/store.h"
#include "cli/compare.h"
#include "cli/cuda.h"
#include "cli/exec.h"
#include "cli/deadline.h"
#include "cli/experiment.h"
#include "cli/memprot.h"
#include "cli/options.h"
#include "cli/rta.h"
#include "cli/vp.h"
#include "cli/wear_study.h"
#include "cli/aging_study.h"
#include "cli/run.h"
#include "cli/sweep.h"
#include "platform/text.h"
#include "platform/experiment_run.h"
#include "platform/config/json_text.h"
#include "platform/config/config_doc.h"
#include "platform/int_text.h"
#include "platform/output_file.h"
#include "platform/platform.h"
#include "platform/run_outputs.h"
#include "platform/user_file.h"
#include "sw/isa/address_map.h"
#include "sw/isa/config_regs.h"
#include "sw/kernels/kernels.h"
#include "sw/ptx/assembler.h"
#include "sw/isa/disassembler.h"
#include "sw/ptx/parser.h"
#include "sw/workloads/workload.h"

using namespace gpuvp;

namespace {

struct ConfigOpts {
  std::string preset = "tx2";
  std::vector<std::string> files;
  std::vector<std::string> sets;
  std::vector<std::string> logs;
  void add(CLI::App* app) {
    app->add_option("--preset,-p", preset, "Platform preset (flexgrip, tk1, tx2, gtx480)");
    app->add_option("--config,-c", files, "JSON configuration file(s) applied after the preset");
    // One value per occurrence: `--set K=V FILE` leaves FILE to the command.
    app->add_option("--set,-s", sets, "Override one key: --set sm.count=4, or one instance's: --set gpu.sm1.warp_policy=gto (repeatable)")
        ->allow_extra_args(false);
    app->add_option("--log", logs, "Log level of a module and those below it: --log gpu.sched=debug (repeatable)")
        ->allow_extra_args(false);
  }
  Config build() const {
    Config c = Config::preset(preset);
    for (auto& f : files) c.merge_file(f);
    for (auto& s : sets) c.set(s);
    if (!logs.empty()) {
      std::string spec = c.s("log.modules");
      for (auto& l : logs) spec += (spec.empty() ? "" : ",") + l;
      c.set("log.modules", spec, "--log");
    }
    c.validate();
    return c;
  }
};

// disasm has no preset: it refuses the .const and .global variables no configuration's memories could
// hold (the schema's largest sizes), before allocating them.
ptx::Layout disasm_layout() {
  ptx::Layout lay{amap::kSystemBase, amap::kConstBase, amap::kGlobalBase};
  for (const KeyDef& d : config_schema()) {
    if (d.key == "cmem.size_kib") lay.const_capacity = static_cast<uint64_t>(d.max * 1024);
    if (d.key == "gmem.size_mib") lay.global_capacity = static_cast<uint64_t>(d.max * 1024 * 1024);
  }
  return lay;
}


}  // namespace

// SystemC prints its banner before sc_main unless told not to; our own main() tells it first.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

namespace {
int run_command(int argc, char* argv[]);
}  // namespace

// Output is part of the result: a report cut short by a full disk must not exit 0.
int sc_main(int argc, char* argv[]) {
  const int status = run_command(argc, argv);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    print_err("gpuvp: cannot write standard output: {}\n", std::strerror(errno ? errno : EIO));
    return status ? status : 2;
  }
  return status;
}

namespace {
int run_command(int argc, char* argv[]) {
  CLI::App app{"gpuvp: SystemC/TLM-2.0 virtual platform of an embedded multi-SM GPU"};
  app.require_subcommand(1);

  ConfigOpts run_co, cfg_co, tgt_co;
  std::string workload = "vectorAdd", launch;
  RunOutputs run_out;
  uint64_t seed = 1;
  auto* run = app.add_subcommand("run", "Run a workload, check it against its CPU reference, print statistics");
  run_co.add(run);
  run->add_option("--workload,-w", workload, "Workload (gpuvp workloads lists them)");
  run->add_option("--launch,-l", launch, "Launch configuration of the workload (default: its first)");
  add_uint_option(run, "--seed", seed, "Seed of the input generator", 0, ~uint64_t{0});
  add_output_options(run, run_out);

  ConfigOpts prof_co, memc_co;
  MemJobOptions prof_job, memc_job;
  ProfileOptions prof_opts;
  MemCampaignCliOptions memc_opts;
  auto* profile = app.add_subcommand("profile-memory", "Profile the memory accesses of a workload or launch per data "
                                                      "object and 128-byte block (docs/reliability.md)");
  prof_co.add(profile);
  prof_job.add(profile);
  prof_opts.add(profile);
  auto* memc = app.add_subcommand("mem-campaign", "Stuck-at faults in the application's data, with or without "
                                                 "protection of hot objects (docs/reliability.md)");
  memc_co.add(memc);
  memc_job.add(memc);
  memc_opts.add(memc);

  bool reference = false;
  auto* config = app.add_subcommand("config", "Print the effective configuration");
  cfg_co.add(config);
  config->add_flag("--reference", reference, "Print the configuration reference (docs/configuration.md)");
  bool register_map = false;
  config->add_flag("--register-map", register_map,
                   "Print the configuration block's register table (docs/config-block.md)");

  std::string glob = "*";
  auto* targets = app.add_subcommand("targets", "List the registry of injectable state");
  tgt_co.add(targets);
  targets->add_option("--match", glob, "Only names matching this glob");

  std::string ptx_file;
  auto* disasm = app.add_subcommand("disasm", "Assemble a PTX file and print the disassembled binary");
  disasm->add_option("file", ptx_file, "PTX file (or the name of a kernel of the library)")->required();
  std::string disasm_schedule = "nvcc";
  disasm->add_option("--schedule", disasm_schedule, "Instruction order: nvcc (the PTX's) or vp (docs/vulnerable-period.md)")
      ->check(CLI::IsMember({"nvcc", "vp"}));

  ConfigOpts vp_co;
  VpOptions vp_opts;
  auto* vp = app.add_subcommand("vp", "Estimate a kernel's register vulnerable periods for nvcc's order and the vp "
                                      "schedule (docs/vulnerable-period.md)");
  vp_co.add(vp);
  add_vp_options(vp, vp_opts);

  auto* workloads = app.add_subcommand("workloads", "List workloads and their launch configurations");

  CudaOptions cuda_opts;
  auto* cuda = add_cuda_command(app, cuda_opts);

  ConfigOpts rta_co;
  std::string rta_file;
  auto* rta = app.add_subcommand("rta", "Response-time analysis of a kernel set (docs/concurrent-kernels.md): completion times "
                                        "without simulating");
  rta_co.add(rta);
  rta->add_option("file", rta_file, "Kernel set (JSON: kernels with blocks, threads, time_ns, release_ns)")->required();

  ConfigOpts wear_co;
  std::string wear_file, wear_out = "wear-study";
  auto* wear = app.add_subcommand("wear-study", "Wear-balancing study (docs/power.md): applications on SM partitions, "
                                                "each policy's electromigration consumption rate per SM");
  wear_co.add(wear);
  wear->add_option("file", wear_file, "Study file (JSON: ptx, applications, partitions, policies, rotations, thresholds)")
      ->required();
  wear->add_option("--out", wear_out, "Folder for summary.json and summary.txt (default wear-study)");

  ConfigOpts aging_co;
  std::string aging_file, aging_out = "aging-study";
  auto* aging = app.add_subcommand("aging-study", "NBTI aging study (docs/power.md): variation maps of an SM's lane "
                                                  "clusters, each distribution policy's worst cluster delay degradation");
  aging_co.add(aging);
  aging->add_option("file", aging_file, "Study file (JSON: ptx, application, maps, seed, years, needed, round, policies)")
      ->required();
  aging->add_option("--out", aging_out, "Folder for summary.json and summary.txt (default aging-study)");

  ExecOptions exec_opts;
  ConfigOpts exec_co;
  auto* exec = app.add_subcommand("exec", "Run any PTX kernel with buffers and scalars given on the command line or in a JSON file");
  exec_co.add(exec);
  add_exec_options(exec, exec_opts);

  ConfigOpts exp_co, exp_run_co;
  std::string exp_file, exp_run_file, exp_out;
  auto* experiment = app.add_subcommand("experiment", "Run an experiment file (cuda_scheduling_examiner format: "
                                                      "concurrent benchmarks with release times and stream priorities) "
                                                      "and write its logs; `experiment check FILE` only checks it");
  experiment->require_subcommand(0, 1);
  exp_run_co.add(experiment);
  experiment->add_option("file", exp_run_file, "Experiment file (JSON)");
  experiment->add_option("--out", exp_out, "Directory for the logs (default: the file's base_result_directory)");
  RunOutputs exp_outputs;
  add_output_options(experiment, exp_outputs);
  auto* exp_check = experiment->add_subcommand("check", "Check an experiment file against the configured GPU and "
                                                        "print its benchmarks; nothing runs");
  exp_co.add(exp_check);
  exp_check->add_option("file", exp_file, "Experiment file (JSON)")->required();

  ConfigOpts dl_co;
  DeadlineArgs dl_args;
  dl_co.add(add_deadline_command(app, dl_args));

  std::string cmp_a, cmp_b;
  double cmp_threshold = 1;
  auto* compare = app.add_subcommand("compare", "Print two statistics files (--stats) side by side with their differences");
  compare->add_option("a", cmp_a, "Statistics file A")->required();
  compare->add_option("b", cmp_b, "Statistics file B")->required();
  compare->add_option("--threshold", cmp_threshold, "Mark values whose relative difference exceeds this many percent (default 1)")
      ->check(CLI::Range(0.0, 1e12));

  SweepOptions sweep_opts;
  std::string sweep_merge_out;
  std::vector<std::string> sweep_merge_dirs;
  bool sweep_allow_missing = false;
  auto* sweep = app.add_subcommand("sweep", "Run every point of a sweep file's grid (configuration keys, presets, workloads, "
                                            "exec launches), each in its own process, into a table of chosen statistics; "
                                            "`sweep merge OUT DIR...` joins shards");
  sweep->require_subcommand(0, 1);
  sweep->add_option("file", sweep_opts.file, "Sweep file (JSON, docs/user-guide.md \"Sweeps\")");
  sweep->add_option("--out,-o", sweep_opts.out, "Output folder (default: the file's stem + .sweep, or + .shardI-of-N); "
                                                "run again with the same folder to resume");
  add_uint_option(sweep, "--jobs,-j", sweep_opts.jobs, "Points at once (default: the CPU count)", 0, 1024);
  sweep->add_option("--shard", sweep_opts.shard, "I/N: run only the points whose index - 1 is I - 1 modulo N");
  sweep->add_option("--timeout", sweep_opts.timeout_s, "Wall-clock seconds a point may take before it is killed (default: "
                                                       "the file's timeout_s, else 300)")
      ->check(CLI::Range(0.0, 1e6));
  sweep->add_flag("--retry-failed", sweep_opts.retry_failed, "Run again the points that failed, crashed or timed out");
  sweep->add_flag("--quiet,-q", sweep_opts.quiet, "No progress on standard error");
  auto* sweep_merge = sweep->add_subcommand("merge", "Join the output folders of a sweep's shards into one with its table");
  sweep_merge->add_option("out", sweep_merge_out, "Output folder to write")->required();
  sweep_merge->add_option("dirs", sweep_merge_dirs, "Output folders of the shards (gpuvp sweep FILE --shard I/N)")->required();
  sweep_merge->add_flag("--allow-missing", sweep_allow_missing, "Write the table even when points have no result (named)");

  auto* campaign = app.add_subcommand("campaign", "Fault-injection campaigns (docs/campaigns.md)");
  campaign->require_subcommand(1);
  fi::CampaignOptions camp;
  std::string camp_file, camp_db, csv_file, json_file;
  auto* camp_run = campaign->add_subcommand("run", "Run a campaign file: golden run, fault list, one faulty run per fault");
  camp_run->add_option("file", camp_file, "Campaign file (JSON)")->required();
  camp_run->add_option("--db", camp.db, "Result store to create (default: the file's stem + .db, or + .shardI-of-N.db)");
  camp_run->add_option("--shard", camp.shard, "I/N: run the I-th of N parts of the fault list (ids with id % N = I - 1)");
  std::string check_file;
  auto* camp_check = campaign->add_subcommand("check", "Check a campaign file: golden run and fault list, nothing stored");
  camp_check->add_option("file", check_file, "Campaign file (JSON)")->required();
  auto* camp_resume = campaign->add_subcommand("resume", "Continue a campaign that was stopped (even by kill -9)");
  camp_resume->add_option("db", camp_db, "Result store")->required();
  for (auto* c : {camp_run, camp_resume}) {
    add_uint_option(c, "--workers", camp.workers, "Faulty runs at once (default: the file's, else the CPU count)", 0, 256);
    c->add_flag("--quiet,-q", camp.quiet, "No progress line and no summary");
  }
  auto* camp_export = campaign->add_subcommand("export", "Write every run (fault and outcome) as CSV or JSON");
  camp_export->add_option("db", camp_db, "Result store")->required();
  camp_export->add_option("--csv", csv_file, "CSV file ('-': standard output)");
  camp_export->add_option("--json", json_file, "JSON file ('-': standard output)");
  std::string merge_out;
  std::vector<std::string> merge_shards;
  bool allow_missing = false;
  auto* camp_merge = campaign->add_subcommand("merge", "Merge the shards of a campaign into one new store");
  camp_merge->add_option("out", merge_out, "Result store to create")->required();
  camp_merge->add_option("shards", merge_shards, "Shard stores (gpuvp campaign run --shard)")->required();
  camp_merge->add_flag("--allow-missing", allow_missing, "Merge even with missing or unfinished shards (named)");
  std::string replay_db;
  std::vector<uint64_t> replay_ids;
  fi::ReplayOptions replay_opt;
  auto* camp_replay = campaign->add_subcommand("replay", "Run recorded faults of a store again and check that they reproduce their outcomes");
  camp_replay->add_option("db", replay_db, "Result store")->required();
  camp_replay->add_option("id", replay_ids, "Fault ids (gpuvp campaign export shows them)")->required();
  camp_replay->add_option("--vcd", replay_opt.vcd, "Waveforms of the replayed run: FILE.vcd (one id)");
  camp_replay->add_option("--timeline", replay_opt.timeline, "Block timeline of the replayed run (Chrome trace JSON; one id)");
  camp_replay->add_option("--log", replay_opt.logs, "Log level of a module and those below it: --log gpu.sched=debug (repeatable)")
      ->allow_extra_args(false);
  std::vector<std::string> report_dbs;
  std::string html_file, report_json;
  double raw_fit = -1;
  auto* report = app.add_subcommand("report", "AVF per class, target and structure with 95 % intervals, MTBF, FIT");
  report->add_option("db", report_dbs, "Result stores")->required();
  report->add_option("--html", html_file, "Write one self-contained HTML page (stores side by side) instead");
  report->add_option("--json", report_json,
                     "Write each store's counts and ACE table (live / total bit-time, ACE and injected AVF) as JSON "
                     "instead ('-': standard output)");
  add_real_option(report, "--raw-fit", raw_fit, "Raw upset rate in FIT per bit: prints FIT and MTBF", 0, 1e12);

  std::vector<std::string> args(argv, argv + argc);
  split_program_args(*cuda, args);
  std::vector<char*> words;
  for (auto& a : args) words.push_back(a.data());
  try {
    app.parse(int(words.size()), words.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_err("{}\nRun with --help for more information.\n", clip_words(e.what()));
    return 2;
  }

  return run_guarded([&]() -> int {
    if (*run) return cmd_run(run_co.build(), workload, launch, seed, run_out);
    if (*profile) return cmd_profile_memory(prof_co.build(), prof_job, prof_opts);
    if (*memc) return cmd_mem_campaign(memc_co.build(), memc_job, memc_opts);
    if (*config) {
      if (reference)
        print_out("{}", config_reference_markdown());
      else if (register_map)
        print_out("{}", cfgreg::reference_markdown());
      else
        std::fputs((json_dump_ascii(cfg_co.build().to_json(), 2) + "\n").c_str(), stdout);
      return 0;
    }
    if (*targets) {
      Platform p(tgt_co.build());
      auto list = p.registry().matching(glob);
      for (auto* t : list)
        print_out("{:<40} {:<8} {:>2} bits{}\n", t->name, t->kind == TargetKind::Register ? "register" : "memory",
                   t->width, t->count > 1 ? fmt::format(" x {} words", t->count) : "");
      print_out("{} targets, {} state bits\n", list.size(), p.registry().total_bits());
      return 0;
    }
    if (*disasm) {
      std::string name;
      const std::string text = ptx_argument(ptx_file, name);
      ptx::Image img = ptx::assemble_text(text, name, disasm_layout(), ptx::parse_schedule(disasm_schedule));
      auto code = [&](uint64_t entry, uint64_t end) {
        return isa::disassemble(img.code.data() + (entry - img.layout.code_base), end - entry, entry);
      };
      for (auto& f : img.functions)
        print_out("// func {}{}\n{}\n", f.name,
                   f.recursive ? fmt::format(": recursive, {} bytes per call on the call stack", f.stack_frame) : "",
                   code(f.entry, f.end));
      for (auto& k : img.kernels) {
        print_out("// kernel {}: {} params ({} bytes), {} register slots, {} predicates, ~{} regs/thread, "
                   "{} bytes shared, {} bytes local{}\n",
                   k.name, k.params.size(), k.param_bytes, k.num_regs, k.num_preds, k.regs_per_thread,
                   k.static_shared_bytes, k.local_bytes, k.call_stack ? " + the call stack" : "");
        print_out("{}\n", code(k.entry, k.end));
      }
      return 0;
    }
    if (*workloads) {
      for (auto& w : wl::all()) {
        print_out("{:<18} {}\n", w->name(), w->description());
        for (auto& c : w->configs()) {
          std::string ps;
          for (auto& [k, v] : c.params) ps += fmt::format(" {}={}", k, v);
          print_out("    {:<10}{}{}\n", c.name, ps, c.blocks_per_core ? fmt::format(" blocks_per_core={}", c.blocks_per_core) : "");
        }
      }
      return 0;
    }
    if (*exec) return cmd_exec(exec_co.build(), exec_opts);
    if (*cuda) return cmd_cuda(cuda_opts);
    if (*rta) return cmd_rta(rta_co.build(), rta_file);
    if (*vp) return cmd_vp(vp_co.build(), vp_opts);
    if (*wear) return cmd_wear_study(wear_co.build(), wear_file, wear_out);
    if (*aging) return cmd_aging_study(aging_co.build(), aging_file, aging_out);
    if (*compare) return cmd_compare(cmp_a, cmp_b, cmp_threshold);
    if (app.got_subcommand("deadline")) return cmd_deadline(dl_co.build(), dl_args);
    if (*exp_check) return cmd_experiment_check(exp_co.build(), exp_file);
    if (*experiment) {
      if (exp_run_file.empty()) throw CLI::RequiredError("experiment: FILE (or experiment check FILE)");
      return cmd_experiment_run(exp_run_co.build(), exp_run_file, exp_out, exp_outputs);
    }
    if (*sweep_merge) return cmd_sweep_merge(sweep_merge_out, sweep_merge_dirs, sweep_allow_missing);
    if (*sweep) {
      if (sweep_opts.file.empty()) throw ConfigError("sweep: no sweep file given (gpuvp sweep FILE, or sweep merge OUT DIR...)");
      return cmd_sweep(sweep_opts);
    }
    if (*camp_run) return fi::campaign_run(camp_file, camp);
    if (*camp_check) return fi::campaign_check(check_file);
    if (*camp_resume) return fi::campaign_resume(camp_db, camp);
    if (*camp_export) return fi::campaign_export(camp_db, csv_file, json_file);
    if (*camp_merge) return fi::campaign_merge(merge_out, merge_shards, allow_missing);
    if (*camp_replay) return fi::campaign_replay(replay_db, replay_ids, replay_opt);
    if (*report)
      return fi::campaign_report(report_dbs, raw_fit >= 0 ? std::optional<double>(raw_fit) : std::nullopt, html_file, report_json);
    return 0;
  });
}
}  // namespace

