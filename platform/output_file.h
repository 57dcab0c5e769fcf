#pragma once
// Output files of the CLI (--stats, --timeline, --vcd, exec dumps) are checked before a run starts,
// so an unwritable path is a clear error at once, not a lost run.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "platform/config/config.h"

namespace gpuvp {

// Writable, and left as it was: a file the check creates is removed again, so a run that fails later
// leaves no empty output behind (and an existing one keeps its contents until the run succeeds).
inline void check_output(const std::string& path, const std::string& what) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(path.c_str());
    return;
  }
  if (errno == EEXIST) fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // no truncation
  if (fd < 0) throw ConfigError(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
  ::close(fd);
}

// An output folder (`what`: the option naming it), created with its parents if missing; one that
// cannot be is a clear error naming the option before a run starts.
inline void make_output_dir(const std::string& dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ConfigError(fmt::format("{} {}: cannot create the folder: {}", what, dir, ec.message()));
  if (!std::filesystem::is_directory(dir, ec)) throw ConfigError(fmt::format("{} {}: not a folder", what, dir));
}

inline void write_output(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw ConfigError(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
}

}  // namespace gpuvp
