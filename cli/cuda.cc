#include "cli/cuda.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/options.h"
#include "platform/config/config.h"
#include "platform/cuda_env.h"
#include "platform/run_outputs.h"
#include "platform/text.h"

namespace gpuvp {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibrary = "libcudart.so.13";

// The library's folder: the option, else next to the executable as the build tree and an install lay
// them out (<build>/cudart, <prefix>/lib/gpuvp).
fs::path library_dir(const CudaOptions& o) {
  if (!o.library_dir.empty()) {
    if (!fs::exists(fs::path(o.library_dir) / kLibrary))
      throw ConfigError(fmt::format("--cudart {}: no {} there", o.library_dir, kLibrary));
    return fs::absolute(o.library_dir);
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe").parent_path();
  for (auto d : {exe / "cudart", exe / ".." / "cudart", exe / ".." / "lib" / "gpuvp"})
    if (fs::exists(d / kLibrary)) return d.lexically_normal();
  throw ConfigError(fmt::format("{} not found next to {} (build the gpuvp_cudart target, or give --cudart DIR)",
                                kLibrary, exe.string()));
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

void prepend(const char* var, const std::string& value, const char* sep) {
  const char* old = std::getenv(var);
  setenv(var, (old && *old ? value + sep + old : value).c_str(), 1);
}

// The environment the library reads (cudart/session.h): what the options say, paths made absolute
// because the program may change its directory.
void set_environment(const CudaOptions& o, const fs::path& lib, const std::string& stats) {
  std::vector<std::string> files;
  for (auto& f : o.files) files.push_back(fs::absolute(f).string());
  setenv("GPUVP_PRESET", o.preset.c_str(), 1);
  setenv("GPUVP_CONFIG", join(files, ":").c_str(), 1);
  setenv("GPUVP_SET", join(o.sets, "\n").c_str(), 1);  // newlines: a value may hold commas
  setenv("GPUVP_STATS", stats.c_str(), 1);
  // Which process is the program itself (a fork plan forks only it, not a script's or a program's child).
  setenv("GPUVP_CUDA_PID", std::to_string(getpid()).c_str(), 1);
  setenv("GPUVP_TIMELINE", o.timeline.empty() ? "" : fs::absolute(o.timeline).c_str(), 1);
  setenv("GPUVP_VCD", o.vcd.empty() ? "" : fs::absolute(o.vcd).c_str(), 1);
  if (o.poll_ns > 0) setenv("GPUVP_POLL_NS", fmt::format("{}", o.poll_ns).c_str(), 1);
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  // LD_LIBRARY_PATH serves a program that finds libcudart.so.13 by name; LD_PRELOAD one whose RPATH
  // points at the toolkit's (RPATH is searched before LD_LIBRARY_PATH).
  prepend("LD_LIBRARY_PATH", lib.string(), ":");
  // After what is preloaded already: a sanitizer's runtime must stay first.
  const char* pre = std::getenv("LD_PRELOAD");
  const std::string ours = (lib / kLibrary).string();
  setenv("LD_PRELOAD", (pre && *pre ? std::string(pre) + " " + ours : ours).c_str(), 1);
}

// The file execvp would run for `name` (searching PATH for a bare name); empty when there is none.
fs::path resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t a = 0, b; a <= dirs.size(); a = b + 1) {
    b = std::min(dirs.find(':', a), dirs.size());
    const fs::path p = fs::path(a == b ? "." : dirs.substr(a, b - a)) / name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// nvcc links the CUDA runtime statically unless told otherwise; such a program never calls this
// library (its calls bind inside the executable) and fails with the real runtime's errors. The static
// runtime leaves its name in the executable.
bool static_runtime(const fs::path& program) {
  std::ifstream in(program, std::ios::binary);
  static const std::string mark = "libcudart_static";
  std::string buf(1 << 20, '\0'), carry;
  while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
    const std::string chunk = carry + buf.substr(0, size_t(in.gcount()));
    if (chunk.find(mark) != std::string::npos) return true;
    carry = chunk.substr(chunk.size() - std::min(chunk.size(), mark.size() - 1));
  }
  return false;
}

volatile sig_atomic_t program_pid = 0;

// gpuvp stands between the user and the program: a signal sent to gpuvp (kill, timeout, a supervisor,
// a closed terminal) goes on to the program, which handles it as it would alone (ends, writes its
// statistics) and is waited for. A terminal's Ctrl-C or Ctrl-\\ (sent by the kernel) reaches the whole
// foreground group, the program included, by itself: not sent twice.
void forward_signal(int sig, siginfo_t* info, void*) {
  const bool from_terminal = info && info->si_code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT);
  if (program_pid > 0 && !from_terminal) ::kill(program_pid, sig);
}

void forward_signals() {
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGHUP, SIGQUIT, SIGINT, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT})
    sigaction(sig, &sa, nullptr);
  // The summary goes to a pipe that may have closed (`... 2>&1 | head`): the program's status still counts.
  signal(SIGPIPE, SIG_IGN);
}

// The program's exit status; a signal that ended it is said at once (its statistics are written at exit).
int run_program(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // gpuvp killed outright (SIGKILL) takes the program with it rather than leave it running unwatched.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL);
    execvp(argv[0], argv.data());
    print_err("gpuvp cuda: cannot run '{}': {}\n", command[0], std::strerror(errno));
    _exit(127);
  }
  program_pid = pid;
  forward_signals();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  program_pid = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  print_err("gpuvp cuda: {} was killed by signal {} ({}) before it exited\n", command[0], WTERMSIG(status),
            strsignal(WTERMSIG(status)));
  return 128 + WTERMSIG(status);
}

// The platform's summary from the statistics the library wrote at the program's exit.
void print_summary(const std::string& stats, int status) {
  std::ifstream in(stats);
  if (!in && (status > 128 || status == 127)) return;  // run_program said why
  if (!in) {
    print_err("gpuvp cuda: no statistics were written: the program made no CUDA call that started the platform (a "
              "program that runs another one built with nvcc's default static CUDA runtime never calls it), or it "
              "ended without exit()'s handlers (_exit, quick_exit, a signal)\n");
    return;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    print_err("gpuvp cuda: the statistics {} cannot be read back: {}\n", stats, e.what());
    return;
  }
  print_err("gpuvp cuda: {} at {} MHz: simulated time {:.3f} us, {} kernel launch{} completed, {} GPU cycles in kernels, "
            "{} thread instructions, host {:.3f} s\n",
            j.value("preset", std::string("?")), j.value("clock_mhz", 0.0), j.value("sim_seconds", 0.0) * 1e6,
            j["launches"].size(), j["launches"].size() == 1 ? "" : "es", j.value("kernel_cycles", uint64_t{0}),
            j.value("thread_insts", uint64_t{0}), j.value("host_seconds", 0.0));
  const nlohmann::json turns = j.value("thread_turns", nlohmann::json::object());
  if (const uint64_t n = turns.value("unordered", uint64_t{0}); n > 0)
    print_err("gpuvp cuda: {} of {} CUDA calls were served unordered: another thread of the program had neither "
              "made a CUDA call nor waited on a lock within {} ms (GPUVP_THREAD_GRACE_MS; first: {}); the order of "
              "the threads' calls, and the simulated results, may differ run to run (docs/cuda.md)\n",
              n, turns.value("calls", uint64_t{0}), turns.value("grace_ms", 0.0),
              turns.value("first_unordered", std::string()));
}

}  // namespace

CLI::App* add_cuda_command(CLI::App& app, CudaOptions& o) {
  auto* c = app.add_subcommand("cuda", "Run an unmodified CUDA program (built with nvcc -cudart shared) on the "
                                       "platform: gpuvp cuda [options] -- PROGRAM [ARGS] (docs/cuda.md)");
  c->add_option("--preset,-p", o.preset, "Platform preset (flexgrip, tk1, tx2, gtx480; default GPUVP_PRESET, else tx2)");
  c->add_option("--config,-c", o.files, "JSON configuration file(s) applied after the preset (and GPUVP_CONFIG's)");
  c->add_option("--set,-s", o.sets, "Override one key: --set sm.count=4 (repeatable; after GPUVP_SET's)")
      ->allow_extra_args(false);  // one value per --set: `--set K=V FILE` leaves FILE alone
  add_path_option(c, "--stats", o.stats, "Write statistics as JSON at the program's exit (docs/statistics.md)");
  add_path_option(c, "--timeline", o.timeline, "Write the block timeline (Chrome trace-event JSON)");
  add_path_option(c, "--vcd", o.vcd, "Write waveforms (PREFIX.vcd) of the scheduler, arbiters and SM handshakes");
  add_real_option(c, "--poll-ns", o.poll_ns,
                  "Simulated time each polling call (cudaEventQuery, cudaStreamQuery) lets pass (default 1000)", 0.001,
                  1e9);
  add_path_option(c, "--cudart", o.library_dir, "Folder holding the project's libcudart.so.13 (default: found from gpuvp)");
  c->add_option("command", o.command, "The program and its arguments (after --, or from the first word that is not an option)")
      ->required();
  return c;
}

void split_program_args(const CLI::App& cuda, std::vector<std::string>& args) {
  auto it = std::find_if(args.begin() + std::min<size_t>(1, args.size()), args.end(),
                         [](const std::string& a) { return a.empty() || a[0] != '-'; });
  if (it == args.end() || *it != "cuda") return;
  for (++it; it != args.end(); ++it) {
    const std::string& a = *it;
    if (a == "--") return;
    if (a.size() < 2 || a[0] != '-') {  // the program: what follows is its own
      args.insert(it, "--");
      return;
    }
    // An option of gpuvp cuda taking a value in the next word (not --set=K=V, not -pX) skips it.
    const bool attached = a.find('=') != std::string::npos || (a[1] != '-' && a.size() > 2);
    const CLI::Option* opt = attached ? nullptr : cuda.get_option_no_throw(a);
    if (opt && opt->get_type_size_max() > 0 && it + 1 != args.end()) ++it;
  }
}

namespace {
// The statistics are read back for the summary: a regular file. No output may be the program itself.
void check_output_paths(const CudaOptions& o) {
  std::error_code ec;
  if (const fs::file_status st = fs::status(o.stats, ec); !o.stats.empty() && fs::exists(st) && !fs::is_regular_file(st))
    throw ConfigError(fmt::format("--stats {}: not a regular file (gpuvp cuda reads the statistics back)", o.stats));
  const fs::path exe = resolve_program(o.command[0]);
  for (auto [path, what] : {std::pair{o.stats, "--stats"}, {o.timeline, "--timeline"},
                            {o.vcd.empty() ? o.vcd : o.vcd + ".vcd", "--vcd"}})
    if (!exe.empty() && !path.empty() && fs::exists(path, ec) && fs::equivalent(exe, path, ec))
      throw ConfigError(fmt::format("{} {}: that is the program", what, path));
}

// Where gpuvp cuda keeps the statistics for its summary when --stats names no file.
fs::path own_stats_path() {
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec);
  if (ec)
    throw ConfigError(fmt::format("TMPDIR={}: {} (gpuvp cuda keeps the statistics for its summary there unless "
                                  "--stats names a file)", env_text("TMPDIR"), ec.message()));
  return dir / fmt::format("gpuvp-cuda-{}.json", getpid());
}

// An error in what came from the environment names the variable: the user gave no such option.
template <class F>
void from_environment(const std::vector<const char*>& vars, F&& check) {
  try {
    check();
  } catch (const ConfigError& e) {
    if (vars.empty()) throw;
    std::string names;
    for (const char* v : vars) names += (names.empty() ? "" : ", ") + std::string(v);
    throw ConfigError(fmt::format("{} (from the environment: {})", e.what(), names));
  }
}

// The outputs the environment may name, and the options that win over it.
constexpr std::pair<std::string CudaOptions::*, const char*> kEnvOutputs[] = {
    {&CudaOptions::stats, "GPUVP_STATS"}, {&CudaOptions::timeline, "GPUVP_TIMELINE"}, {&CudaOptions::vcd, "GPUVP_VCD"}};

// GPUVP_PRESET, _CONFIG, _SET, _STATS, _TIMELINE and _VCD, which the library reads, count under `gpuvp cuda`
// too: before the options, which win.
CudaOptions with_environment(CudaOptions o) {
  if (o.preset.empty()) o.preset = env_text("GPUVP_PRESET").empty() ? "tx2" : env_text("GPUVP_PRESET");
  std::vector<std::string> files = split_list(env_text("GPUVP_CONFIG"), ':'), sets = split_sets(env_text("GPUVP_SET"));
  files.insert(files.end(), o.files.begin(), o.files.end());
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  o.files = files, o.sets = sets;
  for (auto [member, var] : kEnvOutputs)
    if ((o.*member).empty()) o.*member = env_text(var);
  return o;
}
}  // namespace

int cmd_cuda(const CudaOptions& options) {
  const CudaOptions o = with_environment(options);
  std::vector<const char*> env_paths, env_settings;
  for (auto [member, var] : kEnvOutputs)
    if ((options.*member).empty() && !env_text(var).empty()) env_paths.push_back(var);
  for (const char* var : {"GPUVP_PRESET", "GPUVP_CONFIG", "GPUVP_SET"})
    if (!env_text(var).empty()) env_settings.push_back(var);
  // The library checks the output paths again, but only at the program's first CUDA call.
  RunOutputs outputs;
  outputs.stats = o.stats, outputs.timeline = o.timeline, outputs.vcd = o.vcd;
  from_environment(env_paths, [&] {
    outputs.check();
    check_output_paths(o);
  });
  const fs::path lib = library_dir(o);
  // The presets the library will read (an installed gpuvp has no source tree to fall back on).
  const std::string presets = Config::preset_dir_near(lib.string());
  if (!presets.empty()) setenv("GPUVP_PRESETS", presets.c_str(), 0);
  if (const fs::path program = resolve_program(o.command[0]); !program.empty() && static_runtime(program))
    throw ConfigError(fmt::format("{} is linked with the static CUDA runtime (nvcc's default), which this platform "
                                  "cannot replace: build it with -cudart shared (CMake: CUDA_RUNTIME_LIBRARY Shared)",
                                  o.command[0]));
  // Bad options are found here, before the program runs (exit 2), not at its first CUDA call.
  from_environment(env_settings, [&] {
    Config c = Config::preset(o.preset);
    for (auto& f : o.files) c.merge_file(f);
    for (auto& s : o.sets) c.set(s);
    c.validate();
  });
  const bool own_stats = o.stats.empty();
  const std::string stats = own_stats ? own_stats_path().string() : fs::absolute(o.stats).string();
  set_environment(o, lib, stats);
  CudaEnvNumbers::read();  // the library's other variables (GPUVP_POLL_NS, ...), as it will read them
  std::error_code ec;
  fs::remove(stats, ec);  // a run that writes none must not be summarised from an earlier run's
  const int status = run_program(o.command);
  print_summary(stats, status);
  if (own_stats) fs::remove(stats, ec);
  return status;
}

}  // namespace gpuvp
