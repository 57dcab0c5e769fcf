#pragma once
// The platform inside the replacement CUDA runtime (docs/cuda.md, "How the simulation runs").
//
// SystemC runs on one thread of its own, created at the first runtime call. The platform's host
// program there is a server: it takes one request at a time from the application's threads, runs it
// (a call of the C++ runtime API, which may let simulated time pass) and hands the result back. While
// no request is in progress the simulation does not advance: host code between CUDA calls takes no
// simulated time, so a run is deterministic whatever the host machine does.
//
// In the single-thread mode (GPUVP_SINGLE_THREAD, which a fork plan implies) the simulation's side is
// a context of its own (its own stack) on the application's thread instead: a call switches to it
// (swapcontext) where the thread would have been woken, and the server switches back where it would
// have waited. The simulation executes exactly as with the thread, and the process has one thread,
// which fork() copies whole (cudart/fork_plan.h).
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <ucontext.h>

#include "cudart/fork_plan.h"
#include "platform/armed_flip.h"
#include "platform/platform.h"
#include "platform/run_outputs.h"
#include "sw/runtime/runtime.h"

namespace gpuvp::cudart {

// The platform could not be built or stopped (bad configuration, timeout): every later call fails.
class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A call after the program began to exit (a global object's destructor freeing device memory).
class UnloadingError : public SessionError {
 public:
  using SessionError::SessionError;
};

// What the environment asks for (docs/cuda.md, "Configuration").
struct Settings {
  std::string preset = "tx2";
  std::vector<std::string> config_files;  // GPUVP_CONFIG, ':'-separated
  std::vector<std::string> sets;          // GPUVP_SET, "key=value,key=value" (split_sets)
  std::string stats, timeline;            // GPUVP_STATS, GPUVP_TIMELINE: files written at exit
  std::string vcd;                        // GPUVP_VCD: waveforms' path without ".vcd"
  double poll_ns = 1000;                  // GPUVP_POLL_NS: simulated time a polling call lets pass (cuda_env.h)
  std::string call_threads;               // GPUVP_CALL_THREADS: which thread made each call served (a file)
  // A campaign on an application (docs/campaigns.md) runs the program once per fault:
  std::optional<ArmedFlip> fault;         // GPUVP_FAULT: the fault to arm (platform/armed_flip.h)
  std::string fault_report;               // GPUVP_FAULT_REPORT: the run's figures, written at exit (JSON)
  std::optional<ForkPlan> fork;           // GPUVP_FORK_PLAN: faulty runs forked at their instants
  bool single_thread = false;             // GPUVP_SINGLE_THREAD=1 (or a fork plan): no simulation thread
  double thread_grace_ms = 100;           // GPUVP_THREAD_GRACE_MS: how long a call waits for other threads (turns.h)
  static Settings from_environment();
};


class Session {
 public:
  // The exit status of an application the single-thread mode gave up on (give_up).
  static constexpr int kGiveUpStatus = 125;
  // The session, started on first use; throws SessionError if the platform cannot be built.
  static Session& get();
  // Runs fn(runtime) on the simulation's host thread; returns when it has returned, rethrowing
  // what it threw. Calls from several application threads take turns.
  void call(const std::function<void(rt::Runtime&)>& fn);
  const rt::DeviceProps& props() const { return props_; }
  const Config& config() const { return platform_->config(); }  // the platform's, as built
  const Settings& settings() const { return settings_; }
  bool concurrent() const { return concurrent_; }  // the platform's concurrent-kernel mode
  // At exit (`status`, exit's): the host program ends, the simulation finishes the work left and the
  // outputs are written. An exit inside the simulation (a host function of a stream) stops it there.
  void shutdown(int status);
  // Host functions of streams queued and not yet run (on the simulation's thread): while there are,
  // the server runs them when the application waits without calling (run_idle).
  void host_functions_pending(int delta) { host_functions_ += delta; }
  // The program is exiting: a host function due now is not run, as CUDA abandons it (said once).
  bool abandoned();

 private:
  Session();
  void simulate();                // the simulation thread
  void serve(rt::Runtime& rt);    // the platform's host program
  // Runs the host functions due, then `job` (if any); returns what they threw.
  std::exception_ptr run_job(rt::Runtime& rt, const std::function<void(rt::Runtime&)>* job);
  void check_faults() const;        // the armed faults against the registry (SessionError)
  bool on_simulation_side() const;  // the calling code runs inside the simulation (a host function)
  [[noreturn]] void exit_inside(int status);  // exit() called there: outputs of what ran, then _exit
  void bound_exit(rt::Runtime& rt);  // the program exits: says what work it left, bounds its host time
  void bound_work();                 // the same, for work known to be left
  void write_outputs();              // statistics, timeline and waveforms of what ran
  void write_fault_report() const;  // GPUVP_FAULT_REPORT, once the simulation has stopped
  [[noreturn]] void fail_dead() const;
  void check_callable() const;      // before a call: throws if the simulation has stopped
  void finish_call();               // after a call: throws what it threw
  void wait_for_job(std::unique_lock<std::mutex>& lk, rt::Runtime& rt);  // the server, between requests
  // Between requests, with host functions pending: runs them if the application waits (Turns::try_idle_turn).
  void run_idle(std::unique_lock<std::mutex>& lk, rt::Runtime& rt);
  // GPUVP_CALL_THREADS: one line per call served, the calling thread's number (threads numbered in the
  // order of their first call). Several threads' calls are served in the order they arrive, which the
  // host machine decides: given that order a run is deterministic, and this is how to reproduce it.
  void open_call_log();
  void log_call();
  // The single-thread mode: the simulation's context, and the switches between the two sides.
  void start_single();
  void call_single(const std::function<void(rt::Runtime&)>& fn);
  void to_simulation();
  void to_application();
  static void simulation_context();
  // The fork plan: at each instant the golden run forks; returns in a child (with its fault armed), or
  // in the golden run once the last instant is past or the application has ended.
  void fork_at_instants();
  // The application cannot go on in single-thread mode: says why (to the campaign) and exits.
  [[noreturn]] void give_up(const std::string& why);

  Settings settings_;
  rt::DeviceProps props_;
  std::unique_ptr<Platform> platform_;
  RunOutputs outputs_;                           // GPUVP_STATS, _TIMELINE, _VCD
  double exit_host_s_ = 0;                       // the host-time bound of the work left at exit (bound_exit)
  std::optional<ArmedFlipState> fault_;          // what became of GPUVP_FAULT's fault
  std::string device_error_;                     // the first device error a call returned
  std::string device_error_kind_;                // its kind (DeviceErrorInfo::kind: "detected", "address", ...)
  std::thread thread_;
  std::mutex turn_;  // one application thread's request at a time
  std::atomic<std::thread::id> turn_owner_{};  // the thread in a call, holding turn_
  std::atomic<bool> exiting_{false};           // a thread called exit(): the others' calls go no further
  std::thread::id exit_thread_;
  std::atomic<bool> said_abandoned_{false};
  std::mutex m_;
  std::condition_variable cv_;
  const std::function<void(rt::Runtime&)>* job_ = nullptr;
  std::exception_ptr job_error_;
  std::exception_ptr idle_error_;  // what running host functions between requests threw: the next call's
  int host_functions_ = 0;
  bool concurrent_ = false;
  bool device_error_seen_ = false;  // a call returned a device error to the application
  bool started_ = false, job_done_ = false, quit_ = false, dead_ = false;
  std::exception_ptr dead_error_;  // why the simulation stopped, rethrown by every later call
  std::string fallback_;           // why the single-thread mode gave up (in the report)
  ucontext_t app_ctx_{}, sim_ctx_{};
  std::unique_ptr<char[]> sim_stack_;
  std::thread::id app_thread_;     // the one thread that may call in single-thread mode
  std::FILE* call_log_ = nullptr;  // GPUVP_CALL_THREADS, open
  std::vector<std::thread::id> callers_;  // the application's threads, in the order of their first call
  bool sim_ended_ = false;         // the simulation's context has returned
  bool sim_side_ = false;          // single-thread mode: the simulation's context is running
};

}  // namespace gpuvp::cudart
