#pragma once
// What the study commands (wear-study, aging-study) share: the output folder, its summary.json and
// summary.txt, the table on stdout and the plot command.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuvp {

struct StudyResult {
  std::string table;
  nlohmann::json summary;
};

// Checks DIR/summary.json and DIR/summary.txt can be written (before the study runs), runs it, prints
// and writes them, and says how to plot with `plot_script`; 0.
int write_study(const std::string& out_dir, const std::string& plot_script, const std::function<StudyResult()>& run);

}  // namespace gpuvp
