#include "cli/wear_study.h"

#include <filesystem>

#include "platform/config/json_text.h"
#include "platform/output_file.h"
#include "platform/text.h"
#include "platform/wear_study.h"

namespace gpuvp {

int cmd_wear_study(const Config& cfg, const std::string& file, const std::string& out_dir) {
  const wear::Study s = wear::load(file);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw ConfigError(fmt::format("--out {}: {}", out_dir, ec.message()));
  const std::string json_path = out_dir + "/summary.json", text_path = out_dir + "/summary.txt";
  check_output(json_path, "--out");
  check_output(text_path, "--out");
  const std::vector<wear::PolicyRun> runs = wear::run(cfg, s);
  const std::string t = wear::table(s, runs);
  print_out("{}", t);
  write_output(json_path, json_dump(wear::to_json(s, runs), 1) + "\n");
  write_output(text_path, t);
  print_out("wrote {} and {}; plots: /usr/bin/python3 scripts/plot_wear.py {}\n", json_path, text_path, out_dir);
  return 0;
}

}  // namespace gpuvp
