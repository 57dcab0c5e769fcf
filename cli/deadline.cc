#include "cli/deadline.h"

#include <filesystem>

#include "platform/config/json_text.h"
#include "platform/deadline_run.h"
#include "platform/output_file.h"
#include "platform/text.h"

namespace gpuvp {

CLI::App* add_deadline_command(CLI::App& app, DeadlineArgs& args) {
  auto* cmd = app.add_subcommand("deadline", "Run an application set (deadlines, priorities, releases) under the "
                                             "FIFO, priority-stream and split policies (docs/deadline.md)");
  cmd->add_option("file", args.file, "Application file (JSON)")->required();
  cmd->add_option("--out", args.out, "Directory for deadline.json (per application and policy, with the blocks)");
  return cmd;
}

int cmd_deadline(const Config& cfg, const DeadlineArgs& args) {
  deadline::AppSet set = deadline::load_apps(args.file, cfg);
  std::string out_file;
  if (!args.out.empty()) {
    make_output_dir(args.out, "--out");
    out_file = (std::filesystem::path(args.out) / "deadline.json").string();
    check_output(out_file, "--out");
  }
  const auto results = deadline::run_set(cfg, set);
  print_out("{}", deadline::summary_table(results));
  if (!out_file.empty()) write_output(out_file, json_dump(deadline::to_json(set, results), 1) + "\n");
  return 0;
}

}  // namespace gpuvp
