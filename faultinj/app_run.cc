#include "faultinj/app_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "faultinj/job.h"
#include "platform/armed_flip.h"

extern char** environ;

namespace gpuvp::fi {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Files of the run's own folder that are the campaign's, not the program's.
constexpr const char* kStdout = ".gpuvp-stdout";
constexpr const char* kStderr = ".gpuvp-stderr";
constexpr const char* kReport = ".gpuvp-report.json";
// The golden run's wall-time limit when the campaign gives none: a program that has not ended by then
// is taken to hang without any fault.
constexpr double kGoldenLimitS = 600;

// A path of the campaign file: relative to its folder, or absolute.
fs::path resolved(const std::string& given, const std::string& base_dir) {
  return fs::path(given).is_absolute() ? fs::path(given) : fs::path(base_dir) / given;
}

// The error for application.KEY = "given" (resolved: p) naming the file and the key.
CampaignError bad_path(const CampaignSpec& spec, const char* key, const std::string& given, const fs::path& p,
                       const std::string& why) {
  return CampaignError(fmt::format("{}: application.{} = \"{}\": {} ({})", spec.origin, key, given, why, p.string()));
}

// command[0]: relative to the campaign file's folder; it must be an executable file.
std::string program_path(const CampaignSpec& spec, const std::string& base_dir) {
  const std::string& given = spec.application->command[0];
  const fs::path p = resolved(given, base_dir);
  auto bad = [&](const std::string& why) { return bad_path(spec, "command[0]", given, p, why); };
  std::error_code ec;
  if (!fs::exists(p, ec)) throw bad("no such file");
  if (fs::is_directory(p, ec)) throw bad("a folder, not a program");
  if (::access(p.c_str(), X_OK) != 0) throw bad("not executable");
  return fs::absolute(p).lexically_normal().string();
}

// `gpuvp cuda` (this executable) runs the program against the library with the campaign's platform,
// and `bound_ms` (> 0) of simulated time at most.
std::vector<std::string> command_line(const CampaignSpec& spec, const std::string& base_dir, double bound_ms = 0) {
  std::vector<std::string> argv = {fs::read_symlink("/proc/self/exe").string(), "cuda", "--preset", spec.preset};
  for (auto& [key, value] : spec.set.items())
    argv.insert(argv.end(), {"--set", key + "=" + (value.is_string() ? value.get<std::string>() : value.dump())});
  if (bound_ms > 0) argv.insert(argv.end(), {"--set", fmt::format("sim.timeout_ms={}", bound_ms)});
  argv.push_back("--");
  argv.push_back(program_path(spec, base_dir));
  argv.insert(argv.end(), spec.application->command.begin() + 1, spec.application->command.end());
  return argv;
}

// One process of the program in a fresh folder of its own (concurrent runs must not share files).
struct AppProcess {
  pid_t pid = -1;
  fs::path dir;
  Clock::time_point start;
  double limit_s = 0;
  bool killed = false;  // passed its limit
  bool ended = false;   // reaped
  int status = 0;
  double wall_s = 0;
};

// The folders of campaign processes that are gone (killed with kill -9 while a run was going on).
void remove_stale_dirs() {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = e.path().filename().string();
    unsigned long pid = 0;
    if (std::sscanf(name.c_str(), "gpuvp-app-%lu-", &pid) != 1 || pid == 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
}

fs::path fresh_dir() {
  static unsigned serial = 0;
  const fs::path d = fs::temp_directory_path() / fmt::format("gpuvp-app-{}-{}", ::getpid(), serial++);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// application.workdir resolved (relative to the campaign file's folder), or "" when the file gives none;
// it must be a folder.
fs::path work_dir(const CampaignSpec& spec, const std::string& base_dir) {
  const std::string& given = spec.application->workdir;
  if (given.empty()) return {};
  const fs::path p = resolved(given, base_dir);
  std::error_code ec;
  if (!fs::exists(p, ec)) throw bad_path(spec, "workdir", given, p, "no such folder");
  if (!fs::is_directory(p, ec)) throw bad_path(spec, "workdir", given, p, "not a folder");
  return fs::absolute(p).lexically_normal();
}

// `dir` (made if need be) holding a copy of the working directory's contents, so that a run reads its
// inputs where it looks for them and what it changes there is its own (the original and the other
// runs keep theirs). Symbolic links are followed: a link's target is copied, not shared.
fs::path populated(const fs::path& dir, const fs::path& workdir) {
  fs::create_directories(dir);
  if (workdir.empty()) return dir;
  std::error_code ec;
  fs::copy(workdir, dir, fs::copy_options::recursive, ec);
  if (ec) throw std::runtime_error(fmt::format("application.workdir: cannot copy {} into {}: {}", workdir.string(), dir.string(), ec.message()));
  return dir;
}

// The environment of the run: ours, without a fault, report or plan of an enclosing run, plus the
// run's (`extra`: "NAME=value").
std::vector<std::string> environment(const fs::path& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "GPUVP_FAULT", 11) != 0 && std::strncmp(*e, "GPUVP_FORK_PLAN", 15) != 0 &&
        std::strncmp(*e, "GPUVP_SINGLE_THREAD", 19) != 0)
      env.emplace_back(*e);
  env.push_back("GPUVP_FAULT_REPORT=" + (dir / kReport).string());
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// Starts the run in folder `dir`, in a process group of its own (a hang is killed whole: gpuvp cuda and
// the program); `keep_fd` (>= 0) stays open in it.
AppProcess spawn(std::vector<std::string> argv, const std::vector<std::string>& extra_env, double limit_s,
                 const fs::path& dir, int keep_fd = -1) {
  AppProcess r;
  r.dir = dir;
  r.limit_s = limit_s;
  std::vector<std::string> env = environment(r.dir, extra_env);
  const std::vector<char*> av = pointers(argv), ev = pointers(env);
  const std::string out = (r.dir / kStdout).string(), err = (r.dir / kStderr).string();
  std::fflush(nullptr);
  r.start = Clock::now();
  r.pid = ::fork();
  if (r.pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (r.pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open("/dev/null", O_RDONLY), o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
              e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0 || ::chdir(r.dir.c_str()) != 0) _exit(126);
    if (keep_fd >= 0) ::fcntl(keep_fd, F_SETFD, 0);
    ::dup2(in, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execve(av[0], av.data(), ev.data());
    _exit(127);
  }
  ::setpgid(r.pid, r.pid);  // here too: the group exists before the parent may kill it
  return r;
}

// True once the process has ended (what is left of its group is killed); kills it at its limit.
bool poll(AppProcess& r) {
  if (r.ended) return true;
  int st = 0;
  const pid_t w = ::waitpid(r.pid, &st, WNOHANG);
  const double s = std::chrono::duration<double>(Clock::now() - r.start).count();
  if (w == r.pid) {
    r.status = st;
    r.wall_s = s;
    r.ended = true;
    ::kill(-r.pid, SIGKILL);  // a child the program left running
    return true;
  }
  if (w < 0 && errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  if (!r.killed && s > r.limit_s) {
    r.killed = true;
    ::kill(-r.pid, SIGKILL);
  }
  return false;
}

void wait_for(AppProcess& r) {
  while (!poll(r)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

std::vector<uint8_t> file_bytes(const fs::path& p, bool& found) {
  std::ifstream in(p, std::ios::binary);
  found = static_cast<bool>(in);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// What a run left: `gpuvp cuda` exits with the program's status, or 128 + the signal that killed it
// (then the library, which reports at the program's exit, wrote no report).
struct AppResult {
  bool killed = false, crashed = false;
  int exit_status = 0;
  nlohmann::json report;  // null: none written
  std::vector<OutputBuffer> buffers;
  std::vector<std::string> missing;  // output files the run did not write
  std::string last_error;            // the last line the program wrote to stderr
  double wall_s = 0;
};

std::string last_error_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.rfind("gpuvp cuda: ", 0) != 0) last = line;
  return last.size() > 200 ? last.substr(0, 200) + "..." : last;
}

AppResult collect(const CampaignSpec& spec, const AppProcess& r) {
  AppResult a;
  a.killed = r.killed;
  a.wall_s = r.wall_s;
  a.exit_status = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status);
  bool found = false;
  std::vector<uint8_t> report = file_bytes(r.dir / kReport, found);
  if (found) a.report = nlohmann::json::parse(report.begin(), report.end(), nullptr, false);
  if (a.report.is_discarded()) a.report = nullptr;
  a.crashed = !WIFEXITED(r.status) || (a.exit_status > 128 && a.report.is_null());
  a.buffers.push_back({"stdout", "u8", false, {}, file_bytes(r.dir / kStdout, found)});
  for (const AppOutputFile& o : spec.application->outputs) {
    std::vector<uint8_t> bytes = file_bytes(fs::path(o.path).is_absolute() ? fs::path(o.path) : r.dir / o.path, found);
    if (found)
      a.buffers.push_back({o.path, o.type, false, {}, std::move(bytes)});
    else
      a.missing.push_back(o.path);
  }
  a.last_error = last_error_line(r.dir / kStderr);
  std::error_code ec;
  fs::remove_all(r.dir, ec);
  return a;
}

AppResult run_once(const CampaignSpec& spec, const std::vector<std::string>& argv, double limit_s, const fs::path& workdir) {
  AppProcess p = spawn(argv, {}, limit_s, populated(fresh_dir(), workdir));
  wait_for(p);
  return collect(spec, p);
}

uint64_t u64(const nlohmann::json& j, const char* key) { return j.value(key, uint64_t{0}); }

// The golden run's figures from the library's report.
void read_report(const CampaignSpec& spec, const AppResult& a, GoldenRun& g) {
  auto fail = [&](const std::string& why) { return CampaignError(fmt::format("{}: application: the golden run {}", spec.origin, why)); };
  if (a.killed) throw fail(fmt::format("did not end within {} s", spec.application->timeout_s > 0 ? spec.application->timeout_s : kGoldenLimitS));
  if (a.crashed) throw fail(fmt::format("was killed by signal {}{}", a.exit_status - 128, a.last_error.empty() ? "" : ": " + a.last_error));
  if (a.report.is_null()) throw fail(fmt::format("made no CUDA call that started the platform (exit status {}{})", a.exit_status, a.last_error.empty() ? "" : ": " + a.last_error));
  if (a.report.contains("error")) throw fail("stopped the simulation: " + a.report.at("error").get<std::string>());
  if (!a.missing.empty()) throw fail(fmt::format("did not write {} (application.outputs)", a.missing.front()));
  const nlohmann::json& j = a.report;
  if (u64(j, "end_ps") == 0) throw fail("launched no kernel");
  g.start_ps = u64(j, "start_ps");
  g.end_ps = u64(j, "end_ps");
  g.sim_end_ps = u64(j, "sim_end_ps");
  g.period_ps = u64(j, "period_ps");
  g.kernel_cycles = u64(j, "kernel_cycles");
  for (auto& t : j.at("targets")) g.targets.push_back({t[0], t[1], t[2]});
  for (auto& l : j.value("launches", nlohmann::json::array())) g.launches.push_back({l[0], l[1], l[2], 0, {}});
}

// The mask the library XORs into the word (a campaign on an application flips bits only), or 0.
uint64_t flip_mask(const GoldenRun& g, const Fault& f) {
  for (const TargetDesc& t : g.targets)
    if (t.name == f.target && f.index < t.count) return apply(f, 0, t.width);
  return 0;
}

RunResult classify(const GoldenRun& g, const OutputCheckSpec& check, const Fault& f, const AppResult& a) {
  RunResult r;
  r.fault_id = f.id;
  r.host_ms = a.wall_s * 1000;
  const std::string said = a.last_error.empty() ? "" : ": " + a.last_error;
  const nlohmann::json& rep = a.report;
  if (a.killed) {
    r.outcome = Outcome::Timeout;
    r.detail = fmt::format("hang: still running after {:.1f} s; its process group was killed", a.wall_s);
  } else if (rep.is_object() && rep.value("error", std::string()).rfind("timeout:", 0) == 0) {
    r.outcome = Outcome::Timeout;  // past the simulated-time bound: a hang, as the engine classifies it
    r.detail = rep.at("error").get<std::string>();
  } else if (a.crashed) {
    r.outcome = Outcome::DUE;
    r.due = DueKind::Died;
    r.detail = fmt::format("crash: the program was killed by signal {} ({}){}", a.exit_status - 128,
                           strsignal(a.exit_status - 128), said);
  } else if (rep.is_null() || rep.value("error", std::string()).rfind("GPUVP_FAULT", 0) == 0) {
    r.detail = rep.is_null() ? "the run wrote no report (no CUDA call)" : rep.at("error").get<std::string>();
  } else if (!rep.contains("fault") || !rep.at("fault").value("struck", false)) {
    r.detail = fmt::format("the run ended before the injection instant {} ps", f.time_ps);
  } else {
    r.end_ps = u64(rep, "end_ps");
    r.kernel_cycles = u64(rep, "kernel_cycles");
    const std::string dev = rep.value("device_error", std::string());
    const int golden_status = g.info.value("exit_status", 0);
    if (a.exit_status != golden_status || (!dev.empty() && g.info.value("device_error", std::string()).empty())) {
      r.outcome = Outcome::DUE;
      // A device error's own kind (a duplication mismatch is `detected`); an exit status alone: other.
      r.due = dev.empty() ? DueKind::Other : due_kind_of(rep.value("device_error_kind", std::string()));
      r.detail = a.exit_status != golden_status ? fmt::format("exit status {} (golden {}){}", a.exit_status, golden_status, said)
                                                : "device error: " + dev;
    } else {
      const CheckVerdict v = classify_completed(g, check, a.buffers, r.end_ps);
      r.outcome = v.outcome;
      r.detail = v.detail;
    }
  }
  return r;
}

double fault_limit_s(const CampaignSpec& spec, const GoldenRun& g) {
  if (spec.application->timeout_s > 0) return spec.application->timeout_s;
  return std::max(10.0, 10 * g.host_seconds);
}


// What the faulty runs of a campaign share.
struct AppRuns {
  const CampaignSpec& spec;
  const GoldenRun& golden;
  const std::function<void(const RunResult&)>& on_result;
  std::vector<std::string> argv;  // gpuvp cuda with the simulated-time bound, and the program
  fs::path workdir;               // copied into each run's folder ("": none)
  double limit_s = 0;             // a faulty run's wall-time limit
  unsigned workers = 1;
};

struct ArmedRun {
  const Fault* fault;
  ArmedFlip flip;
};

// Each run a fresh process with its fault in the environment, at most `workers` at a time.
void run_fresh(const AppRuns& runs, const std::vector<ArmedRun>& armed) {
  std::vector<std::pair<AppProcess, const Fault*>> running;
  size_t next = 0;
  while (next < armed.size() || !running.empty()) {
    while (running.size() < runs.workers && next < armed.size()) {
      const ArmedRun& a = armed[next++];
      running.emplace_back(spawn(runs.argv, {"GPUVP_FAULT=" + to_text(a.flip)}, runs.limit_s, populated(fresh_dir(), runs.workdir)), a.fault);
    }
    bool ended = false;
    for (auto it = running.begin(); it != running.end();) {
      if (!poll(it->first)) {
        ++it;
        continue;
      }
      runs.on_result(classify(runs.golden, runs.spec.check, *it->second, collect(runs.spec, it->first)));
      it = running.erase(it);
      ended = true;
    }
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A golden process of the application that forks its share of the runs at their instants
// (GPUVP_FORK_PLAN, cudart/fork_plan.h). Its folder: root/golden; the runs' folders: root/runs/N, N
// the run's index in the campaign's list.
struct ForkWorker {
  AppProcess golden;
  fs::path root;
  int pipe = -1;                // the read end of the plan's pipe
  std::string partial;          // a line not read whole yet
  std::map<size_t, const ArmedRun*> waiting;  // the runs not reported yet
};

ForkWorker start_worker(const AppRuns& runs, const std::vector<ArmedRun>& armed, const std::vector<size_t>& share) {
  ForkWorker w;
  w.root = fresh_dir();
  // The runs forked from it copy this folder as it is at their instants (cudart/fork_plan.h).
  populated(w.root / "golden", runs.workdir);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  w.pipe = fds[0];
  nlohmann::json plan = {{"runs_dir", (w.root / "runs").string()}, {"golden_dir", (w.root / "golden").string()}, {"fd", fds[1]}, {"limit_s", runs.limit_s},
                         {"runs", nlohmann::json::array()}};
  for (size_t i : share) {
    plan["runs"].push_back({i, to_text(armed[i].flip)});
    w.waiting[i] = &armed[i];
  }
  std::ofstream(w.root / "plan.json") << plan.dump() << "\n";
  // The golden process's own limit: its run, and each child's up to the child's limit.
  const double limit = runs.limit_s * double(share.size() + 1) + 10;
  w.golden = spawn(runs.argv, {"GPUVP_FORK_PLAN=" + (w.root / "plan.json").string()}, limit, w.root / "golden", fds[1]);
  ::close(fds[1]);
  return w;
}

// How the campaign's side of the forked route is going: the reason it must give up, if any.
struct ForkState {
  std::string fallback;
};

// One line of a golden process (cudart/fork_plan.h, fork_report).
void handle_line(const AppRuns& runs, ForkWorker& w, const std::string& line, ForkState& st) {
  std::istringstream in(line);
  std::string first, what;
  in >> first >> what;
  if (first == "fallback") {
    st.fallback = line.substr(std::min(line.size(), size_t(9)));
    return;
  }
  const size_t i = std::stoul(first);
  auto it = w.waiting.find(i);
  if (it == w.waiting.end()) return;
  AppResult a;
  if (what == "unreached") {
    a.exit_status = runs.golden.info.value("exit_status", 0);
    a.report = {{"fault", {{"struck", false}}}};
  } else {
    AppProcess p;
    p.dir = w.root / "runs" / first;
    int killed = 0;
    in >> p.status >> killed >> p.wall_s;
    p.killed = killed != 0;
    a = collect(runs.spec, p);
    if (a.report.is_object() && a.report.contains("fallback")) {  // the child gave up: the run goes fresh
      st.fallback = a.report.at("fallback").get<std::string>();
      return;
    }
  }
  runs.on_result(classify(runs.golden, runs.spec.check, *it->second->fault, a));
  w.waiting.erase(it);
}

// Reads what the golden process has written; true if it wrote anything.
bool drain(const AppRuns& runs, ForkWorker& w, ForkState& st) {
  char buf[4096];
  bool any = false;
  for (ssize_t n; (n = ::read(w.pipe, buf, sizeof buf)) > 0;) {
    w.partial.append(buf, size_t(n));
    any = true;
  }
  for (size_t nl; (nl = w.partial.find('\n')) != std::string::npos;) {
    const std::string line = w.partial.substr(0, nl);
    w.partial.erase(0, nl + 1);
    handle_line(runs, w, line, st);
  }
  return any;
}

// Ends a worker; its runs not reported go back to `left`.
void end_worker(ForkWorker& w, std::vector<ArmedRun>& left) {
  if (!poll(w.golden)) {
    ::kill(-w.golden.pid, SIGKILL);
    wait_for(w.golden);
  }
  for (auto& [i, a] : w.waiting) left.push_back(*a);
  ::close(w.pipe);
  std::error_code ec;
  fs::remove_all(w.root, ec);
}

// The forked route: `workers` golden processes, the runs dealt out in turn by instant so that each
// spans the window. Returns the runs it could not do (they go to fresh processes), and sets `why`.
std::vector<ArmedRun> run_forked(const AppRuns& runs, const std::vector<ArmedRun>& armed, std::string& why) {
  if (armed.empty()) return {};
  std::vector<size_t> order(armed.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return armed[a].flip.time_ps < armed[b].flip.time_ps; });
  std::vector<std::vector<size_t>> shares(std::min<size_t>(runs.workers, armed.size()));
  for (size_t k = 0; k < order.size(); ++k) shares[k % shares.size()].push_back(order[k]);
  std::vector<ForkWorker> active;
  for (const auto& share : shares) active.push_back(start_worker(runs, armed, share));
  ForkState st;
  std::vector<ArmedRun> left;
  while (!active.empty()) {
    bool any = false;
    for (auto it = active.begin(); it != active.end();) {
      any = drain(runs, *it, st) || any;
      // A golden process ends on its own once its last run is reported (killed only on a fallback).
      const bool done = !st.fallback.empty() || (poll(it->golden) && !drain(runs, *it, st));
      if (!done) {
        ++it;
        continue;
      }
      end_worker(*it, left);
      it = active.erase(it);
    }
    if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  why = st.fallback.empty() ? "a golden process ended before reporting them" : st.fallback;
  return left;
}

// What differs between the golden run and a second fault-free run `b` that the faulty runs' outcomes
// would be judged on: exit status, device error, the checked outputs, the last kernel's end; "" if none.
std::string golden_difference(const CampaignSpec& spec, const GoldenRun& g, const AppResult& b) {
  const int status = g.info.value("exit_status", 0);
  const std::string dev = g.info.value("device_error", std::string());
  const std::string dev_b = b.report.is_object() ? b.report.value("device_error", std::string()) : "";
  if (b.killed) return "the second run did not end within the golden run's limit";
  if (b.exit_status != status) return fmt::format("exit status {}, then {}", status, b.exit_status);
  if (dev_b != dev) return fmt::format("device error '{}', then '{}'", dev, dev_b);
  if (!b.missing.empty()) return fmt::format("{} was not written by the second run", b.missing.front());
  const uint64_t end_b = b.report.is_object() ? u64(b.report, "end_ps") : 0;
  const CheckVerdict v = classify_completed(g, spec.check, b.buffers, end_b);
  if (v.outcome == Outcome::MaskedTiming)
    return fmt::format("the last kernel ended at {} ps, then at {} ps", g.end_ps, end_b);
  if (v.outcome != Outcome::Masked) return v.detail;
  return "";
}

// Calls served before the program's other threads had settled (cudart/turns.h), in a run's report.
uint64_t unordered_calls(const AppResult& a) {
  if (!a.report.is_object() || !a.report.contains("thread_turns")) return 0;
  return a.report.at("thread_turns").value("unordered", uint64_t{0});
}

// A program whose fault-free runs differ would have its own variation classified as the faults' effect.
void check_reproducible(const CampaignSpec& spec, const GoldenRun& g, const AppResult& a, const AppResult& b) {
  const std::string why = golden_difference(spec, g, b);
  if (why.empty()) return;
  const uint64_t unordered = unordered_calls(a) + unordered_calls(b);
  throw CampaignError(fmt::format(
      "{}: application: output differs between two fault-free runs: {}; outcomes would be meaningless{} "
      "(make the program's output reproducible, or set application.check_reproducible to false)",
      spec.origin, why,
      unordered ? fmt::format(" ({} CUDA calls were served before the program's other threads waited: "
                              "GPUVP_THREAD_GRACE_MS, docs/cuda.md)", unordered)
                : ""));
}

}  // namespace

GoldenRun run_app_golden(const CampaignSpec& spec, const std::string& base_dir) {
  remove_stale_dirs();
  const std::vector<std::string> argv = command_line(spec, base_dir);
  const double limit = spec.application->timeout_s > 0 ? spec.application->timeout_s : kGoldenLimitS;
  AppResult a = run_once(spec, argv, limit, work_dir(spec, base_dir));
  GoldenRun g;
  read_report(spec, a, g);
  g.host_seconds = a.wall_s;
  g.info = {{"exit_status", a.exit_status}, {"device_error", a.report.value("device_error", std::string())}};
  g.buffers = std::move(a.buffers);
  try {
    g.outputs = select_outputs(spec.check, g.buffers);
  } catch (const std::invalid_argument& e) {
    throw CampaignError(fmt::format("{}: check.outputs: {}", spec.origin, e.what()));
  }
  if (spec.application->check_reproducible) check_reproducible(spec, g, a, run_once(spec, argv, limit, work_dir(spec, base_dir)));
  // The exit status is part of what a resumed campaign must find again.
  std::vector<uint8_t> all(reinterpret_cast<const uint8_t*>(&a.exit_status),
                           reinterpret_cast<const uint8_t*>(&a.exit_status) + sizeof a.exit_status);
  for (const GoldenOutput& o : g.outputs) all.insert(all.end(), o.bytes.begin(), o.bytes.end());
  g.output_hash = hash_bytes(all);
  g.output_bytes = all.size() - sizeof a.exit_status;
  return g;
}

std::string run_app_faults(const CampaignSpec& spec, const std::string& base_dir, const GoldenRun& golden,
                           const std::vector<Fault>& faults, unsigned workers,
                           const std::function<void(const RunResult&)>& on_result) {
  AppRuns runs{spec, golden, on_result, {}, work_dir(spec, base_dir), fault_limit_s(spec, golden), std::max(1u, workers)};
  // The engine's simulated-time bound: timeout_factor x the golden run's simulated end.
  runs.argv = command_line(spec, base_dir, spec.timeout_factor * double(golden.sim_end_ps) / 1e9);
  std::vector<ArmedRun> armed;
  for (const Fault& f : faults) {
    const uint64_t mask = flip_mask(golden, f);
    if (mask == 0 || f.trigger != TriggerKind::Time) {  // a listed fault the registry or the library cannot take
      RunResult r;
      r.fault_id = f.id;
      r.detail = fmt::format("{}[{}] bit {}: not a bit flip at an instant of this platform's registry", f.target, f.index, f.bit);
      on_result(r);
      continue;
    }
    armed.push_back({&f, ArmedFlip{f.target, f.index, mask, f.time_ps}});
  }
  if (!spec.application->fork) {
    run_fresh(runs, armed);
    return "fresh processes (application.fork is false)";
  }
  const size_t all = armed.size();
  std::string why;
  armed = run_forked(runs, armed, why);
  if (armed.empty()) return "forked from golden runs at their instants";
  const std::string route = fmt::format("fresh processes for {} of {}: not forked, {}", armed.size(), all, why);
  fmt::print(stderr, "gpuvp campaign: {}: faulty runs: {}\n", spec.origin, route);
  run_fresh(runs, armed);
  return route;
}

}  // namespace gpuvp::fi
