#include "cudart/fork_plan.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cudart/say.h"

namespace gpuvp::cudart {

namespace fs = std::filesystem;

namespace {

ForkPlan::Run parse_run(const nlohmann::json& r) {
  ForkPlan::Run run;
  run.id = r.at(0).get<uint64_t>();
  run.flip = parse_armed_flip(r.at(1).get<std::string>());
  return run;
}

std::vector<int> open_fds() {
  std::vector<int> fds;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return fds;
  for (dirent* e; (e = ::readdir(d));)
    if (e->d_name[0] != '.' && std::atoi(e->d_name) != ::dirfd(d)) fds.push_back(std::atoi(e->d_name));
  ::closedir(d);
  return fds;
}

// Where the child's own copy of open file `fd` is: the copy in the run's folder for a file of the
// golden run's folder, else the file itself (a new open file description of it).
std::string reopen_path(int fd, const fs::path& golden_dir, const fs::path& run_dir) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(fmt::format("/proc/self/fd/{}", fd), ec);
  const fs::path rel = ec ? fs::path() : target.lexically_relative(golden_dir);
  if (!rel.empty() && *rel.begin() != ".." && fs::exists(run_dir / rel, ec)) return (run_dir / rel).string();
  return fmt::format("/proc/self/fd/{}", fd);
}

// Gives `fd` (a regular file) an open file description of the child's own, at the same offset.
void reopen(int fd, const fs::path& golden_dir, const fs::path& run_dir) {
  const int flags = ::fcntl(fd, F_GETFL), fd_flags = ::fcntl(fd, F_GETFD);
  const off_t offset = ::lseek(fd, 0, SEEK_CUR);
  const int mine = ::open(reopen_path(fd, golden_dir, run_dir).c_str(), flags & ~(O_CREAT | O_TRUNC | O_EXCL));
  if (mine < 0) return;  // left shared: nothing better is possible
  if (offset >= 0) ::lseek(mine, offset, SEEK_SET);
  ::dup2(mine, fd);
  ::close(mine);
  ::fcntl(fd, F_SETFD, fd_flags);
}

// False if the write failed (errno says why).
bool write_all(int fd, const std::string& s) {
  for (size_t done = 0; done < s.size();) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Waits up to `seconds` for `child` to end: true with its wait status, false at the limit.
bool wait_child(pid_t child, double seconds, int& status) {
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  const int pidfd = int(::syscall(SYS_pidfd_open, child, 0));
  bool ended = false;
  for (;;) {
    const pid_t w = ::waitpid(child, &status, WNOHANG);
    if (w == child || (w < 0 && errno != EINTR)) {
      ended = true;
      break;
    }
    const double left = std::chrono::duration<double>(end - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{pidfd, POLLIN, 0};
    // Without pidfd_open (Linux before 5.3) the wait polls every millisecond.
    if (pidfd < 0) ::usleep(1000);
    else ::poll(&p, 1, int(std::min(left * 1000 + 1, 1e9)));
  }
  if (pidfd >= 0) ::close(pidfd);
  return ended;
}

}  // namespace

ForkPlan load_fork_plan(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot read the fork plan", path));
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ForkPlan plan;
  try {
    if (j.is_discarded()) throw std::invalid_argument("not JSON");
    plan.runs_dir = j.at("runs_dir").get<std::string>();
    plan.golden_dir = j.at("golden_dir").get<std::string>();
    plan.fd = j.at("fd").get<int>();
    plan.limit_s = j.at("limit_s").get<double>();
    for (const auto& r : j.at("runs")) plan.runs.push_back(parse_run(r));
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{}: a fork plan is {{\"runs_dir\", \"golden_dir\", \"fd\", \"limit_s\", \"runs\": "
                                            "[[ID, \"TARGET[INDEX]^0xMASK@TIME_PS\"], ...]}}: {}", path, e.what()));
  }
  if (plan.fd < 0 || ::fcntl(plan.fd, F_GETFD) < 0)
    throw std::invalid_argument(fmt::format("{}: fd {} is not an open file descriptor", path, plan.fd));
  if (!(plan.limit_s > 0)) throw std::invalid_argument(fmt::format("{}: limit_s must be above 0", path));
  std::stable_sort(plan.runs.begin(), plan.runs.end(),
                   [](const auto& a, const auto& b) { return a.flip.time_ps < b.flip.time_ps; });
  return plan;
}

void fork_report(const ForkPlan& plan, const std::string& line) {
  if (write_all(plan.fd, line + "\n") || errno != EPIPE) return;
  // The campaign is gone (killed): nobody reads the runs. An application ignoring SIGPIPE would
  // otherwise go on forking its runs in a folder a resumed campaign removes.
  say("gpuvp: fork plan: the campaign has gone (its pipe is closed): the golden run stops\n");
  ::_exit(kCampaignGone);
}

std::string fork_hazard() {
  // A child of `gpuvp cuda`'s program (a script running the CUDA program, a program running another):
  // a child forked here would end where this process ends, without what its parent does after.
  const char* runner = std::getenv("GPUVP_CUDA_PID");
  if (runner && *runner && std::to_string(::getppid()) != runner)
    return "the CUDA calls come from a child process of the application's command (a script or a program "
           "running it): forking it would leave out what its parent does after";
  std::error_code ec;
  size_t threads = 0;
  for (auto it = fs::directory_iterator("/proc/self/task", ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    ++threads;
  return threads > 1 ? fmt::format("the application has {} threads at a fault's instant (fork() copies one)", threads)
                     : "";
}

std::string become_run(const ForkPlan& plan, const ForkPlan::Run& run) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a golden run killed takes its run along (a hang has no other limit)
  ::close(plan.fd);
  const fs::path golden_dir = plan.golden_dir, run_dir = fs::path(plan.runs_dir) / std::to_string(run.id);
  std::error_code ec;
  // The working directory's counterpart in the run's folder; outside the golden folder it stays.
  const fs::path cwd = fs::current_path(ec), rel = cwd.lexically_relative(golden_dir);
  const fs::path run_cwd = rel.empty() || *rel.begin() == ".." ? cwd : (run_dir / rel).lexically_normal();
  fs::remove_all(run_dir, ec);
  fs::create_directories(run_dir.parent_path(), ec);
  fs::copy(golden_dir, run_dir, fs::copy_options::recursive, ec);
  fs::create_directories(run_dir, ec);
  for (int fd : open_fds()) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) reopen(fd, golden_dir, run_dir);
  }
  fs::current_path(run_cwd, ec);
  if (ec) {
    say("gpuvp: fork plan: cannot enter {}: {}\n", run_cwd.string(), ec.message());
    ::_exit(126);
  }
  return (run_dir / ".gpuvp-report.json").string();
}

OwnSigchld::OwnSigchld() {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, &mask_);
  ::sigaction(SIGCHLD, nullptr, &app_);
  replaced_ = app_.sa_handler == SIG_IGN || (app_.sa_flags & SA_NOCLDWAIT);
  if (!replaced_) return;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGCHLD, &dfl, nullptr);
}

OwnSigchld::~OwnSigchld() {
  if (replaced_) ::sigaction(SIGCHLD, &app_, nullptr);
  ::sigprocmask(SIG_SETMASK, &mask_, nullptr);
}

void await_run(const ForkPlan& plan, const ForkPlan::Run& run, pid_t child) {
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  const bool ended = wait_child(child, plan.limit_s, status);
  if (!ended) {
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL);
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::kill(-child, SIGKILL);  // what the child left running
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fork_report(plan, fmt::format("{} ended {} {} {:.6f}", run.id, status, ended ? 0 : 1, wall));
}

}  // namespace gpuvp::cudart
