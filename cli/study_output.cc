#include "cli/study_output.h"

#include <filesystem>

#include "platform/config/config.h"
#include "platform/config/json_text.h"
#include "platform/output_file.h"
#include "platform/text.h"

namespace gpuvp {

int write_study(const std::string& out_dir, const std::string& plot_script, const std::function<StudyResult()>& run) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw ConfigError(fmt::format("--out {}: {}", out_dir, ec.message()));
  const std::string json_path = out_dir + "/summary.json", text_path = out_dir + "/summary.txt";
  check_output(json_path, "--out");
  check_output(text_path, "--out");
  const StudyResult r = run();
  print_out("{}", r.table);
  write_output(json_path, json_dump(r.summary, 1) + "\n");
  write_output(text_path, r.table);
  print_out("wrote {} and {}; plots: /usr/bin/python3 scripts/{} {}\n", json_path, text_path, plot_script, out_dir);
  return 0;
}

}  // namespace gpuvp
