#include "sw/workloads/common.h"

#include <stdexcept>

namespace gpuvp::wl {

int64_t positive_param(const LaunchConfig& cfg, const std::string& key, int64_t def) {
  int64_t v = cfg.get(key, def);
  if (v <= 0) throw std::invalid_argument(fmt::format("configuration '{}': parameter '{}' must be positive, got {}",
                                                      cfg.name, key, v));
  return v;
}

}  // namespace gpuvp::wl
