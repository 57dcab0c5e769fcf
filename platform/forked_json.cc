#include "platform/forked_json.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpuvp {

namespace {
[[noreturn]] void child(int fd, const std::function<nlohmann::json()>& f) {
  nlohmann::json out;
  int status = 0;
  try {
    out = f();
  } catch (const std::exception& e) {
    out = {{"error", e.what()}};
    status = 3;
  }
  const std::string text = out.dump();
  for (size_t done = 0; done < text.size();) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w <= 0) ::_exit(4);
    done += size_t(w);
  }
  ::_exit(status);
}
}  // namespace

nlohmann::json json_in_child(const std::function<nlohmann::json()>& f, const std::string& what) {
  int fd[2];
  if (::pipe(fd) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // the child must not write the parent's buffered output again
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fd[0]);
    child(fd[1], f);
  }
  ::close(fd[1]);
  std::string text;
  char buf[65536];
  for (ssize_t got; (got = ::read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(got));
  ::close(fd[0]);
  int ws = 0;
  ::waitpid(pid, &ws, 0);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || j.contains("error") || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
    throw std::runtime_error(fmt::format("{} failed: {}", what,
                                         j.is_object() && j.contains("error") ? j["error"].get<std::string>()
                                                                              : "the run ended abnormally"));
  return j;
}

}  // namespace gpuvp
