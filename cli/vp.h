#pragma once
// `gpuvp vp FILE.ptx --kernel K`: the estimated register vulnerable periods of a kernel for nvcc's
// order and for the vulnerable-period schedule, side by side (docs/vulnerable-period.md).
#include <string>

#include "platform/config/config.h"

namespace CLI {
class App;
}

namespace gpuvp {

struct VpOptions {
  std::string ptx, kernel, grid = "1", block = "32", json;
  double trips = 8;
};

void add_vp_options(CLI::App* app, VpOptions& o);
int cmd_vp(const Config& cfg, const VpOptions& o);

// The PTX text of a file, or of a kernel of the library by name (`source_name` becomes NAME.ptx);
// ConfigError when it is neither. disasm and vp take their PTX this way.
std::string ptx_argument(const std::string& arg, std::string& source_name);

}  // namespace gpuvp
