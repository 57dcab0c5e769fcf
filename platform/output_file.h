#pragma once
// Output files of the CLI (--stats, --timeline, --vcd, exec dumps) are checked before a run starts,
// so an unwritable path is a clear error at once, not a lost run.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "platform/config/config.h"

namespace gpuvp {

inline void check_output(const std::string& path, const std::string& what) {
  std::ofstream f(path, std::ios::app);
  if (!f) throw ConfigError(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
}

inline void write_output(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw ConfigError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
}

}  // namespace gpuvp
