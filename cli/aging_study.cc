#include "cli/aging_study.h"

#include "cli/study_output.h"
#include "platform/aging_study.h"

namespace gpuvp {

int cmd_aging_study(const Config& cfg, const std::string& file, const std::string& out_dir) {
  const aging::Study s = aging::load(file, cfg);
  return write_study(out_dir, "plot_aging.py", [&] {
    const std::vector<aging::MapRun> runs = aging::run(cfg, s);
    return StudyResult{aging::table(s, runs), aging::to_json(s, runs)};
  });
}

}  // namespace gpuvp
