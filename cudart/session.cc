#include "cudart/session.h"

#include <dlfcn.h>
#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <systemc>

#include "cudart/say.h"
#include "cudart/state.h"
#include "cudart/turns.h"
#include "platform/config/config.h"
#include "platform/cuda_env.h"
#include "platform/run_outputs.h"

// AddressSanitizer's fiber annotations (GCC says __SANITIZE_ADDRESS__, Clang __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define GPUVP_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUVP_ASAN_FIBERS 1
#endif
#endif
#ifdef GPUVP_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace gpuvp::cudart {

namespace {

// The presets travel with the library (Config::preset_dir_near); GPUVP_PRESETS wins.
void find_presets() {
  if (std::getenv("GPUVP_PRESETS")) return;
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&find_presets), &info) || !info.dli_fname) return;
  const std::string dir = Config::preset_dir_near(std::filesystem::path(info.dli_fname).parent_path().string());
  if (!dir.empty()) setenv("GPUVP_PRESETS", dir.c_str(), 1);
}

// `exit_host_s`: the host-time bound of the work the program leaves at its exit (Session::bound_exit).
Config build_config(const Settings& s, double& exit_host_s) {
  Config c = Config::preset(s.preset);
  const double preset_limit = c.f("sim.host_timeout_s");
  // The application's own CPU time counts in the process's CPU clock: no host-time limit unless asked.
  c.set("sim.host_timeout_s=0");
  for (auto& f : s.config_files) c.merge_file(f);
  for (auto& kv : s.sets) c.set(kv);
  c.validate();
  const double limit = c.f("sim.host_timeout_s");
  exit_host_s = limit > 0 ? limit : preset_limit;
  return c;
}

// How the application's threads' calls were ordered (cudart/turns.h), for the statistics and the report.
void add_thread_turns(nlohmann::json& j) {
  if (nlohmann::json turns = Turns::get().summary(); !turns.is_null()) j["thread_turns"] = turns;
}

// What ran, for the statistics: the program's own command line (the library is loaded into it, whether
// `gpuvp cuda` started it or the user preloaded the library).
nlohmann::json program_about() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  for (std::string a; std::getline(in, a, '\0');) argv.push_back(a);
  nlohmann::json args = nlohmann::json::array();
  for (size_t i = 1; i < argv.size(); ++i) args.push_back(argv[i]);
  nlohmann::json j = {{"command", "cuda"}, {"program", argv.empty() ? std::string() : argv[0]}, {"args", args}};
  add_thread_turns(j);
  return j;
}


}  // namespace


Settings Settings::from_environment() {
  Settings s;
  if (!env_text("GPUVP_PRESET").empty()) s.preset = env_text("GPUVP_PRESET");
  s.config_files = split_list(env_text("GPUVP_CONFIG"), ':');
  s.sets = split_sets(env_text("GPUVP_SET"));
  s.stats = env_text("GPUVP_STATS");
  s.timeline = env_text("GPUVP_TIMELINE");
  s.vcd = env_text("GPUVP_VCD");
  s.fault_report = env_text("GPUVP_FAULT_REPORT");
  s.call_threads = env_text("GPUVP_CALL_THREADS");
  if (!env_text("GPUVP_FAULT").empty()) {
    try {
      s.fault = parse_armed_flip(env_text("GPUVP_FAULT"));
    } catch (const std::invalid_argument& e) {
      throw SessionError(fmt::format("GPUVP_FAULT={}", e.what()));
    }
  }
  if (!env_text("GPUVP_FORK_PLAN").empty()) {
    if (s.fault) throw SessionError("GPUVP_FORK_PLAN and GPUVP_FAULT: give one of them");
    try {
      s.fork = load_fork_plan(env_text("GPUVP_FORK_PLAN"));
    } catch (const std::invalid_argument& e) {
      throw SessionError(fmt::format("GPUVP_FORK_PLAN={}", e.what()));
    }
  }
  const CudaEnvNumbers n = CudaEnvNumbers::read();
  s.single_thread = n.single_thread || s.fork;
  s.poll_ns = n.poll_ns;
  s.thread_grace_ms = n.thread_grace_ms;
  return s;
}

Session& Session::get() {
  static Session* s = [] {
    static Session* p = new Session();  // never destroyed: shutdown() runs at exit, the platform's objects stay
    ::on_exit([](int status, void*) { p->shutdown(status); }, nullptr);  // glibc's atexit with exit's status
    return p;
  }();
  if (s->dead_ && !s->started_) s->fail_dead();
  return *s;
}

Session::Session() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  find_presets();
  try {
    settings_ = Settings::from_environment();
  } catch (const std::exception&) {
    dead_ = true;
    dead_error_ = std::current_exception();
    return;
  }
  open_call_log();
  if (dead_) return;
  if (settings_.single_thread) {
    start_single();
    return;
  }
  thread_ = std::thread([this] { simulate(); });
  std::unique_lock lk(m_);
  cv_.wait(lk, [this] { return started_ || dead_; });
}

namespace {
bool is_device_error(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const DeviceError&) {
    return true;
  } catch (...) {
    return false;
  }
}
}  // namespace

// Under `gpuvp cuda`, which removes the statistics file before the program starts, a file already there
// holds another process's statistics: the program ran others on the platform (a script, say), and the
// summary can be only one process's. (A campaign's golden run and its forked runs share the file
// knowingly and say nothing: their standard error is compared.)
void Session::write_outputs() {
  std::error_code ec;
  const char* runner = std::getenv("GPUVP_CUDA_PID");
  const bool campaign = settings_.fault || settings_.fork;
  if (runner && *runner && !campaign && !outputs_.stats.empty() && std::filesystem::exists(outputs_.stats, ec))
    say("gpuvp: {} holds another process's statistics (several processes of the program used the platform): "
        "replaced by those of process {}\n", outputs_.stats, ::getpid());
  outputs_.write(*platform_, program_about());
}

void Session::simulate() {
  try {
    RunOutputs& out = outputs_;
    out.stats = settings_.stats;
    out.timeline = settings_.timeline;
    out.vcd = settings_.vcd;
    out.check();
    PlatformHooks hooks;
    out.apply(hooks);
    platform_ = std::make_unique<Platform>(build_config(settings_, exit_host_s_), hooks);
    platform_->watch_host_time();
    concurrent_ = platform_->config().s("scheduler.kind") == "concurrent";
    out.attach(*platform_);
    check_faults();
    try {
      platform_->start([this](rt::Runtime& rt) { serve(rt); });
      if (settings_.fork) fork_at_instants();
      // The application's calls let simulated time pass up to the instant (between calls the server
      // blocks this thread, or hands the application's back its context, inside the simulation); the
      // fault strikes there, the SMs stopped at it. A fork plan does the same at each of its instants.
      if (settings_.fault) fault_ = strike_at_instant(*platform_, *settings_.fault);
      platform_->finish();
    } catch (...) {
      // The runtime reports a device error again when the host program ends (it is sticky, as CUDA's
      // are): one the application got from its call already is no stop. Anything else stopped the run (a
      // timeout, an error of the platform, a device error in work never waited for): what ran until
      // then is still the user's to see.
      if (!device_error_seen_ || !is_device_error(std::current_exception())) {
        try {
          write_outputs();
        } catch (...) {
        }
        throw;
      }
    }
    write_outputs();
  } catch (...) {
    std::lock_guard lk(m_);
    dead_error_ = std::current_exception();
  }
  write_fault_report();
  std::lock_guard lk(m_);
  dead_ = true;
  cv_.notify_all();
}

// GPUVP_FAULT's fault, or every fault of the fork plan, against the platform's registry.
void Session::check_faults() const {
  std::vector<ArmedFlip> flips;
  if (settings_.fault) flips.push_back(*settings_.fault);
  if (settings_.fork)
    for (const ForkPlan::Run& r : settings_.fork->runs) flips.push_back(r.flip);
  for (const ArmedFlip& f : flips) {
    try {
      check_armed_flip(*platform_, f);
    } catch (const std::invalid_argument& e) {
      throw SessionError(fmt::format("{}: {}", settings_.fork ? "GPUVP_FORK_PLAN" : "GPUVP_FAULT", e.what()));
    }
  }
}

void Session::serve(rt::Runtime& rt) {
  rt.set_device_output(&std::cout);
  std::unique_lock lk(m_);
  props_ = rt.device();
  started_ = true;
  cv_.notify_all();
  for (;;) {
    // The simulation stands still here, at this instant, until the application asks for something.
    wait_for_job(lk, rt);
    if (!job_) return bound_exit(rt);
    const auto* job = job_;
    job_ = nullptr;
    lk.unlock();
    // An error of host functions run between requests is this call's (it would have been, run here).
    const std::exception_ptr err = idle_error_ ? std::exchange(idle_error_, nullptr) : run_job(rt, job);
    lk.lock();
    job_error_ = err;
    job_done_ = true;
    cv_.notify_all();
  }
}

std::exception_ptr Session::run_job(rt::Runtime& rt, const std::function<void(rt::Runtime&)>* job) {
  try {
    // Host functions of streams (cudaLaunchHostFunc) run on host threads of the runtime once the work
    // before them has completed; every later call waits until they have run, so that later work in
    // their streams starts after them (the platform's queues have no entry the host releases).
    rt.join();
    if (job) (*job)(rt);
  } catch (const DeviceError& e) {
    if (!device_error_seen_) device_error_ = e.what(), device_error_kind_ = e.info().kind;
    device_error_seen_ = true;
    return std::current_exception();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

// What a campaign on an application learns from a run: the golden run's window and registry (where
// and when faults may go), and whether the armed fault struck. Written whatever ended the run.
void Session::write_fault_report() const {
  if (settings_.fault_report.empty()) return;
  nlohmann::json j = {{"sim_end_ps", sc_core::sc_time_stamp().value()}, {"device_error", device_error_},
                      {"device_error_kind", device_error_kind_}};
  if (dead_error_) {
    try {
      std::rethrow_exception(dead_error_);
    } catch (const std::exception& e) {
      j["error"] = e.what();
    }
  }
  if (platform_) {
    const auto windows = platform_->kernel_windows();
    j["start_ps"] = windows.empty() ? 0 : windows.front().first;
    j["end_ps"] = windows.empty() ? 0 : windows.back().second;
    j["period_ps"] = platform_->clock_period_ps();
    const PlatformStats st = platform_->stats();
    j["kernel_cycles"] = st.kernel_cycles;
    nlohmann::json launches = nlohmann::json::array();  // a run's kernel, as the campaign's records name it
    for (const rt::LaunchStats& l : st.launches) launches.push_back({l.kernel, l.start_ps, l.end_ps});
    j["launches"] = launches;
    nlohmann::json targets = nlohmann::json::array();
    for (const Target* t : platform_->registry().all()) targets.push_back({t->name, t->width, t->count});
    j["targets"] = targets;
  }
  add_thread_turns(j);
  if (!fallback_.empty()) j["fallback"] = fallback_;
  if (fault_) j["fault"] = {{"struck", fault_->struck}, {"before", fault_->before}, {"after", fault_->after}};
  std::ofstream out(settings_.fault_report);
  out << j.dump() << "\n";
  if (!out) say("gpuvp: cannot write GPUVP_FAULT_REPORT={}\n", settings_.fault_report);
}

void Session::fail_dead() const {
  if (dead_error_) std::rethrow_exception(dead_error_);
  throw SessionError("the simulation has stopped");
}

void Session::check_callable() const {
  if (quit_) throw UnloadingError("the program is exiting: the simulation has finished");
  if (dead_) fail_dead();
}

void Session::finish_call() {
  if (!job_done_) fail_dead();
  if (job_error_) std::rethrow_exception(std::exchange(job_error_, nullptr));
}

void Session::open_call_log() {
  if (settings_.call_threads.empty()) return;
  call_log_ = std::fopen(settings_.call_threads.c_str(), "w");
  if (call_log_) return;
  dead_ = true;
  dead_error_ = std::make_exception_ptr(
      SessionError(fmt::format("GPUVP_CALL_THREADS={}: cannot write it: {}", settings_.call_threads, std::strerror(errno))));
}

void Session::log_call() {
  if (!call_log_) return;
  const std::thread::id me = std::this_thread::get_id();
  auto it = std::find(callers_.begin(), callers_.end(), me);
  if (it == callers_.end()) it = callers_.insert(it, me);
  fmt::print(call_log_, "{}\n", it - callers_.begin());
  std::fflush(call_log_);  // complete whatever ends the program
}

void Session::call(const std::function<void(rt::Runtime&)>& fn) {
  if (settings_.single_thread) return call_single(fn);
  std::unique_lock turn(turn_);
  std::unique_lock lk(m_);
  check_callable();
  log_call();
  turn_owner_ = std::this_thread::get_id();  // from here to the reset nothing throws
  job_ = &fn;
  job_done_ = false;
  cv_.notify_all();
  cv_.wait(lk, [this] { return job_done_ || dead_; });
  turn_owner_ = std::thread::id();
  if (exiting_ && std::this_thread::get_id() != exit_thread_) {
    // Another thread called exit() meanwhile: as under CUDA, this thread's program goes no further (it
    // would return from main and end the process with its own status); the exit ends it.
    lk.unlock();
    turn.unlock();
    for (;;) ::pause();
  }
  finish_call();
}

void Session::wait_for_job(std::unique_lock<std::mutex>& lk, rt::Runtime& rt) {
  const auto due = [this] { return job_ || quit_; };
  while (!settings_.single_thread && !due()) {
    if (host_functions_ == 0 || idle_error_) return cv_.wait(lk, due);
    if (!cv_.wait_for(lk, std::chrono::milliseconds(1), due)) run_idle(lk, rt);
  }
  if (!settings_.single_thread) return;
  lk.unlock();
  while (!job_ && !quit_) to_application();
  lk.lock();
}

// A program may wait for what its host functions do (a barrier, a condition variable) without a CUDA
// call: CUDA runs them on its own threads. Here they run as the next call would run them first (serve:
// rt.join), once the application waits or has not called for the grace, so the simulation is the same.
void Session::run_idle(std::unique_lock<std::mutex>& lk, rt::Runtime& rt) {
  if (!Turns::get().try_idle_turn()) return;
  lk.unlock();
  idle_error_ = run_job(rt, nullptr);
  Turns::get().release();
  lk.lock();
}

// CUDA abandons work a program never waited for when it exits; the platform finishes it so that the
// statistics count it, within the host-time bound a run has (the program's own run before had none).
void Session::bound_exit(rt::Runtime& rt) {
  // After a device error the program was told of, what it queued is dead (CUDA's errors are sticky):
  // bounded all the same, but nothing to say.
  if (device_error_seen_) platform_->limit_host_time(exit_host_s_);
  else if (rt.work_left()) bound_work();
}

bool Session::abandoned() {
  if (!exiting_) return false;
  if (!said_abandoned_.exchange(true))
    say("gpuvp: host functions left queued at the program's exit are not run (CUDA abandons them); the device "
        "work around them is finished for the statistics\n");
  return true;
}

void Session::bound_work() {
  say("gpuvp: the program exited without waiting for work it queued: the platform finishes it for the "
      "statistics (CUDA would abandon it) within sim.timeout_ms of simulated time and {} s of CPU time "
      "(sim.host_timeout_s)\n", exit_host_s_);
  platform_->limit_host_time(exit_host_s_);
}

bool Session::on_simulation_side() const {
  return settings_.single_thread ? sim_side_ : std::this_thread::get_id() == thread_.get_id();
}

// The simulation cannot finish from inside itself (its thread, or its context, is the caller's): what
// ran until this instant is written, and the process ends with the program's status.
void Session::exit_inside(int status) {
  say("gpuvp: the program exited inside the simulation (a host function of a stream, or a signal "
                     "handler during a CUDA call) at {:.3f} us of simulated time: the simulation stops there (work "
                     "queued after it is not simulated)\n",
             sc_core::sc_time_stamp().to_seconds() * 1e6);
  try {
    write_outputs();
  } catch (const std::exception& e) {
    say("gpuvp: {}\n", e.what());
  }
  write_fault_report();
  std::fflush(nullptr);
  ::_exit(status);
}

void Session::shutdown(int status) {
  if (::getpid() != State::get().pid) return;  // a child the program forked: the simulation is the parent's
  if (started_ && on_simulation_side()) exit_inside(status);
  if (turn_owner_ == std::this_thread::get_id() || (!settings_.single_thread && Turn::held())) {
    // exit() from a signal handler that interrupted this thread's CUDA call (served, or waiting for its
    // turn and perhaps holding the turns' lock): the simulation is busy with it or would wait for this
    // thread, and cannot be finished from here.
    say("gpuvp: the program exited during a CUDA call (from a signal handler): the simulation "
                       "stops; no statistics are written\n");
    std::fflush(nullptr);
    ::_exit(status);
  }
  exit_thread_ = std::this_thread::get_id();
  exiting_ = true;
  // Another thread's call being served (a synchronisation, say) holds the turn until its work ends: the
  // exit bounds that work as it bounds work left unwaited.
  if (started_ && turn_owner_ != std::thread::id()) bound_work();
  {
    std::lock_guard turn(turn_);
    std::lock_guard lk(m_);
    quit_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  if (settings_.single_thread && started_ && !sim_ended_) to_simulation();
  try {
    if (dead_error_ && started_) std::rethrow_exception(dead_error_);
  } catch (const std::exception& e) {
    say("gpuvp: the simulation stopped: {}\n", e.what());
  }
}

// The single-thread mode. The simulation's context gets a stack as large as a thread's.
namespace {
constexpr size_t kSimStack = 16u << 20;
Session* single_session = nullptr;  // makecontext passes int arguments only; the session is one

// AddressSanitizer keeps the bounds of the stack it believes the thread runs on: told of each switch
// between the application's stack and the simulation's context (its fiber annotations), it checks
// each stack as its own; untold, it takes frames of the other stack for a stack overflow, and an
// exception or longjmp unpoisons the wrong range. Without ASan the annotations are nothing.
struct Stack {
  const void* bottom = nullptr;
  size_t size = 0;
};
Stack app_stack, sim_stack;  // the bounds ASan gave for each side when it last left it

// Before swapcontext to `to`; `save` keeps the leaving side's fake stack (nullptr: that side ends).
void start_switch([[maybe_unused]] void** save, [[maybe_unused]] const Stack& to) {
#ifdef GPUVP_ASAN_FIBERS
  __sanitizer_start_switch_fiber(save, to.bottom, to.size);
#endif
}
// After swapcontext, on the arriving side: `saved` from its start_switch; `left` gets the bounds of
// the stack switched from.
void finish_switch([[maybe_unused]] void* saved, [[maybe_unused]] Stack* left) {
#ifdef GPUVP_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(saved, left ? &left->bottom : nullptr, left ? &left->size : nullptr);
#endif
}
}  // namespace

void Session::start_single() {
  app_thread_ = std::this_thread::get_id();
  sim_stack_.reset(new char[kSimStack]);  // not zeroed: the pages are touched as the stack grows
  single_session = this;
  ::getcontext(&sim_ctx_);
  sim_ctx_.uc_stack.ss_sp = sim_stack_.get();
  sim_ctx_.uc_stack.ss_size = kSimStack;
  sim_ctx_.uc_link = nullptr;
  sim_stack = {sim_stack_.get(), kSimStack};
  ::makecontext(&sim_ctx_, &Session::simulation_context, 0);
  to_simulation();  // back once the server waits for the first request, or the simulation stopped
}

void Session::simulation_context() {
  finish_switch(nullptr, &app_stack);
  Session& s = *single_session;
  s.simulate();
  s.sim_ended_ = true;
  start_switch(nullptr, app_stack);  // this context ends: its fake stack goes with it
  ::setcontext(&s.app_ctx_);
}

void Session::to_simulation() {
  void* fake = nullptr;
  start_switch(&fake, sim_stack);
  sim_side_ = true;
  ::swapcontext(&app_ctx_, &sim_ctx_);
  sim_side_ = false;
  finish_switch(fake, &sim_stack);
}

void Session::to_application() {
  void* fake = nullptr;
  start_switch(&fake, app_stack);
  sim_side_ = false;
  ::swapcontext(&sim_ctx_, &app_ctx_);
  sim_side_ = true;
  finish_switch(fake, &app_stack);
}

void Session::call_single(const std::function<void(rt::Runtime&)>& fn) {
  if (std::this_thread::get_id() != app_thread_) give_up("a second thread of the application made a CUDA call");
  check_callable();
  log_call();
  job_ = &fn;
  job_done_ = false;
  to_simulation();
  finish_call();
}

void Session::fork_at_instants() {
  const ForkPlan& plan = *settings_.fork;
  size_t i = 0;
  for (; i < plan.runs.size() && platform_->advance_to(plan.runs[i].flip.time_ps); ++i) {
    if (const std::string why = fork_hazard(); !why.empty()) give_up(why);
    std::fflush(nullptr);
    const OwnSigchld own;
    const pid_t child = ::fork();
    if (child < 0) give_up(fmt::format("fork: {}", std::strerror(errno)));
    if (child == 0) {
      State::get().pid = ::getpid();
      settings_.fault_report = become_run(plan, plan.runs[i]);
      settings_.fault = plan.runs[i].flip;
      settings_.fork.reset();
      return;
    }
    ::setpgid(child, child);  // here too: the group exists before this process may kill it
    await_run(plan, plan.runs[i], child);
  }
  for (; i < plan.runs.size(); ++i) fork_report(plan, fmt::format("{} unreached", plan.runs[i].id));
}

void Session::give_up(const std::string& why) {
  say("gpuvp: single-thread mode: {}\n", why);
  if (settings_.fork) fork_report(*settings_.fork, "fallback " + why);
  fallback_ = why;
  write_fault_report();
  std::fflush(nullptr);
  ::_exit(kGiveUpStatus);
}

}  // namespace gpuvp::cudart

// Debian's libsystemc.so refers to sc_main, which its sc_elab_and_sim calls. This library drives the
// kernel with sc_start from its own thread and never calls sc_elab_and_sim: this one never runs.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 0; }
