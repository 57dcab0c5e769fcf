#include "cli/wear_study.h"

#include "cli/study_output.h"
#include "platform/wear_study.h"

namespace gpuvp {

int cmd_wear_study(const Config& cfg, const std::string& file, const std::string& out_dir) {
  const wear::Study s = wear::load(file, cfg);
  return write_study(out_dir, "plot_wear.py", [&] {
    const std::vector<wear::PolicyRun> runs = wear::run(cfg, s);
    return StudyResult{wear::table(s, runs), wear::to_json(s, runs)};
  });
}

}  // namespace gpuvp
