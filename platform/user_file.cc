#include "platform/user_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "platform/config/config.h"
#include "platform/config/json_text.h"

namespace gpuvp {

namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// An open descriptor of a regular file of at most max_bytes; O_NONBLOCK so that opening a FIFO
// without a writer returns at once instead of waiting for one.
int open_checked(const std::string& path, const std::string& what, uint64_t max_bytes, uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ConfigError(fmt::format("{} {}: cannot open: {}", what, path, std::strerror(errno)));
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    const std::string kind = stat_ok ? kind_of(st.st_mode) : std::strerror(errno);
    ::close(fd);
    throw ConfigError(fmt::format("{} {}: {}; expected a regular file", what, path, kind));
  }
  size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    throw ConfigError(fmt::format("{} {}: {} bytes; at most {} are read", what, path, size, max_bytes));
  }
  return fd;
}

}  // namespace

void check_user_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  uint64_t size = 0;
  ::close(open_checked(path, what, max_bytes, size));
}

std::string read_user_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  uint64_t size = 0;
  const int fd = open_checked(path, what, max_bytes, size);
  std::string out;
  out.reserve(size);
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw ConfigError(fmt::format("{} {}: cannot read: {}", what, path, std::strerror(err)));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) {  // it grew while being read
      ::close(fd);
      throw ConfigError(fmt::format("{} {}: more than {} bytes; at most {} are read", what, path, max_bytes, max_bytes));
    }
  }
  ::close(fd);
  return out;
}

nlohmann::json read_user_json(const std::string& path, const std::string& what) {
  return parse_user_json(read_user_file(path, what), path);
}

}  // namespace gpuvp
