#include "faultinj/output_check.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "platform/text.h"

namespace gpuvp::fi {

std::vector<GoldenOutput> select_outputs(const OutputCheckSpec& spec, const std::vector<OutputBuffer>& all) {
  std::vector<GoldenOutput> out;
  auto take = [&](const OutputBuffer& b) { out.push_back({b.name, b.type, b.after}); };
  if (spec.outputs.empty()) {
    for (const OutputBuffer& b : all)
      if (!b.known_before || b.before != b.after) take(b);
    if (std::all_of(out.begin(), out.end(), [](const GoldenOutput& g) { return g.bytes.empty(); }))
      throw std::invalid_argument("the kernel wrote no buffer in the golden run (every buffer holds its initial "
                                  "contents); " + spec.unwritten_hint);
    return out;
  }
  std::string known;
  for (const OutputBuffer& b : all) known += (known.empty() ? "" : ", ") + b.name;
  for (const std::string& name : spec.outputs) {
    auto it = std::find_if(all.begin(), all.end(), [&](const OutputBuffer& b) { return b.name == name; });
    if (it == all.end())
      throw std::invalid_argument(fmt::format("check.outputs: '{}' is not a buffer of the job (buffers: {})", name, known));
    take(*it);
  }
  return out;
}

namespace {

// An element's value, exactly for every integer type (long double holds 64-bit integers).
long double element(const std::string& type, const uint8_t* p) {
  auto as = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return static_cast<long double>(v);
  };
  if (type == "f32") return as(float{});
  if (type == "f64") return as(double{});
  if (type == "i8") return as(int8_t{});
  if (type == "i16") return as(int16_t{});
  if (type == "i32") return as(int32_t{});
  if (type == "i64") return as(int64_t{});
  if (type == "u16") return as(uint16_t{});
  if (type == "u32") return as(uint32_t{});
  if (type == "u64") return as(uint64_t{});
  return as(uint8_t{});
}

size_t element_bytes(const std::string& type) {
  if (type == "u16" || type == "i16") return 2;
  if (type == "u32" || type == "i32" || type == "f32") return 4;
  if (type == "u64" || type == "i64" || type == "f64") return 8;
  return 1;  // u8, i8, text
}

// What differs between the golden and the faulty outputs.
struct Diff {
  uint64_t elements = 0, differing = 0, beyond = 0;
  std::string first;  // "args[2][17] (golden 17, faulty 17.5)"
  long double max_abs = 0, max_rel = 0;
  std::string size_change;  // a buffer read back with another size

  void element(const OutputCheckSpec& spec, const GoldenOutput& g, uint64_t k, long double gv, long double fv,
               bool textual) {
    ++differing;
    const long double err = std::isnan(gv) || std::isnan(fv) ? std::numeric_limits<long double>::infinity()
                                                              : std::fabs(fv - gv);
    const long double rel = gv == 0 ? (err == 0 ? 0 : std::numeric_limits<long double>::infinity()) : err / std::fabs(gv);
    max_abs = std::max(max_abs, err);
    max_rel = std::max(max_rel, rel);
    const long double bound = spec.abs.value_or(0) + spec.rel.value_or(0) * std::fabs(gv);
    if (textual || !(err <= bound)) ++beyond;  // NaN and infinite errors are beyond any bound
    if (first.empty())
      first = fmt::format("{}[{}] (golden {}, faulty {})", g.name, k, double(gv), double(fv));
  }

  void buffer(const OutputCheckSpec& spec, const GoldenOutput& g, const std::vector<uint8_t>& f) {
    if (f.size() != g.bytes.size()) {
      size_change = fmt::format("{}: {} bytes read back, golden {}", g.name, f.size(), g.bytes.size());
      return;
    }
    const bool textual = g.type == "text";  // printed text: any change is beyond tolerance
    const size_t es = element_bytes(g.type);
    elements += g.bytes.size() / es;
    for (size_t off = 0; off + es <= g.bytes.size(); off += es)
      if (std::memcmp(g.bytes.data() + off, f.data() + off, es) != 0)
        element(spec, g, off / es, fi::element(g.type, g.bytes.data() + off), fi::element(g.type, f.data() + off), textual);
  }

  std::string text() const {
    if (!size_change.empty()) return "output differs: " + size_change;
    return fmt::format("{} of {} output elements differ ({} beyond the tolerance), first {}, largest error {} "
                       "absolute, {} relative",
                       differing, elements, beyond, first, double(max_abs), double(max_rel));
  }
};

std::vector<uint8_t> concatenated(const std::vector<GoldenOutput>& golden, const std::vector<const std::vector<uint8_t>*>& f) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < golden.size(); ++i) out.insert(out.end(), f[i]->begin(), f[i]->end());
  return out;
}

}  // namespace

CheckVerdict check_outputs(const OutputCheckSpec& spec, const std::vector<GoldenOutput>& golden,
                           const std::vector<OutputBuffer>& faulty) {
  Diff d;
  std::vector<const std::vector<uint8_t>*> got;
  static const std::vector<uint8_t> kNone;
  for (const GoldenOutput& g : golden) {
    auto it = std::find_if(faulty.begin(), faulty.end(), [&](const OutputBuffer& b) { return b.name == g.name; });
    got.push_back(it == faulty.end() ? &kNone : &it->after);
    d.buffer(spec, g, *got.back());
  }
  if (d.differing == 0 && d.size_change.empty()) return {Outcome::Masked, ""};
  if (!spec.command.empty()) {
    std::vector<const std::vector<uint8_t>*> gold;
    for (const GoldenOutput& g : golden) gold.push_back(&g.bytes);
    CheckVerdict v = run_check_command(spec, concatenated(golden, gold), concatenated(golden, got));
    v.detail = v.outcome == Outcome::ToolError ? v.detail : d.text() + "; " + v.detail;
    return v;
  }
  if (!d.size_change.empty() || !spec.tolerant()) return {Outcome::SDC, d.text()};
  const bool within = d.beyond == 0 || (spec.max_share && double(d.beyond) <= *spec.max_share * double(d.elements));
  return {within ? Outcome::Tolerable : Outcome::SDC, d.text()};
}

namespace {

// A temporary file holding `bytes`; removed by the destructor.
struct TempFile {
  std::string path;
  explicit TempFile(const std::vector<uint8_t>& bytes, const char* what) {
    const char* dir = std::getenv("TMPDIR");
    std::string tmpl = fmt::format("{}/gpuvp-check-{}-XXXXXX", dir && *dir ? dir : "/tmp", what);
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file: {}", std::strerror(errno)));
    path = tmpl;
    size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
      if (n <= 0) {
        ::close(fd);
        throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
      }
      off += size_t(n);
    }
    ::close(fd);
  }
  ~TempFile() { ::unlink(path.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

std::string program_path(const OutputCheckSpec& spec) {
  const std::string& p = spec.command.front();
  if (p.find('/') == std::string::npos || spec.base_dir.empty() || std::filesystem::path(p).is_absolute()) return p;
  return (std::filesystem::path(spec.base_dir) / p).string();
}

// The command's output (stdout and stderr) until it exits or `deadline`; true when it exited in time.
bool collect(int fd, std::chrono::steady_clock::time_point deadline, std::string& message) {
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // closed: the command (and whatever it started) is done writing
    if (message.size() < 4000) message.append(buf, size_t(n));
  }
}

}  // namespace

CheckVerdict run_check_command(const OutputCheckSpec& spec, const std::vector<uint8_t>& golden,
                               const std::vector<uint8_t>& faulty) {
  try {
    TempFile g(golden, "golden"), f(faulty, "faulty");
    std::vector<std::string> argv = spec.command;
    argv[0] = program_path(spec);
    argv.push_back(g.path);
    argv.push_back(f.path);
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
    if (pid == 0) {
      ::setpgid(0, 0);  // its own group: a timeout kills the command and everything it started
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      const std::string why = fmt::format("cannot run '{}': {}", argv[0], std::strerror(errno));
      (void)!::write(STDERR_FILENO, why.data(), why.size());
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    ::close(fds[1]);
    std::string message;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(spec.timeout_s));
    bool in_time = collect(fds[0], deadline, message);
    ::close(fds[0]);
    int status = 0;
    // A command that closed its output may still run: it gets what is left of its time.
    while (in_time && ::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) in_time = false;
      else ::usleep(5000);
    }
    if (!in_time) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    message = cut_utf8(valid_utf8(message), 500);
    const std::string said = message.empty() ? "" : ": " + message;
    if (!in_time) return {Outcome::ToolError, fmt::format("check command timed out after {} s{}", spec.timeout_s, said)};
    if (WIFSIGNALED(status))
      return {Outcome::ToolError, fmt::format("check command killed by signal {} ({}){}", WTERMSIG(status),
                                              strsignal(WTERMSIG(status)), said)};
    const int code = WEXITSTATUS(status);
    if (code == 0) return {Outcome::Tolerable, "check command: exit 0 (acceptable)"};
    if (code == 1) return {Outcome::SDC, "check command: exit 1 (wrong output)" + said};
    return {Outcome::ToolError, fmt::format("check command failed: exit status {}{}", code, said)};
  } catch (const std::exception& e) {
    return {Outcome::ToolError, fmt::format("check command: {}", e.what())};
  }
}

}  // namespace gpuvp::fi
