// The configuration block's parameters (cfgblock.*).
#include "models/common/params.h"
#include "models/config_block/config_block.h"

namespace gpuvp {

namespace {
const bool declared = declare_params({
    "cfgblock", "gpu.cfg", "",
    {ParamDef::Int("cfgblock.latency", 1, 0, 1000, "Configuration block access latency (cycles)")},
});
}  // namespace

ConfigBlockConfig ConfigBlockConfig::from(const Params& p, const Clock& clk) {
  (void)declared;
  ConfigBlockConfig c;
  c.clock = clk;
  c.latency_cycles = static_cast<unsigned>(p.i("latency"));
  c.path = p.instance();
  return c;
}

}  // namespace gpuvp
