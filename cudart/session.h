#pragma once
// The platform inside the replacement CUDA runtime (docs/cuda.md, "How the simulation runs").
//
// SystemC runs on one thread of its own, created at the first runtime call. The platform's host
// program there is a server: it takes one request at a time from the application's threads, runs it
// (a call of the C++ runtime API, which may let simulated time pass) and hands the result back. While
// no request is in progress the simulation does not advance: host code between CUDA calls takes no
// simulated time, so a run is deterministic whatever the host machine does.
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "platform/armed_flip.h"
#include "platform/platform.h"
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
  double poll_ns = 1000;                  // GPUVP_POLL_NS: simulated time a polling call lets pass
  // A campaign on an application (docs/campaigns.md) runs the program once per fault:
  std::optional<ArmedFlip> fault;         // GPUVP_FAULT: the fault to arm (platform/armed_flip.h)
  std::string fault_report;               // GPUVP_FAULT_REPORT: the run's figures, written at exit (JSON)
  static Settings from_environment();
};

// Splits GPUVP_SET: on ';' or newlines when it has any (values may then hold commas, as log.modules
// lists do), else on ','.
std::vector<std::string> split_sets(const std::string& text);

class Session {
 public:
  // The session, started on first use; throws SessionError if the platform cannot be built.
  static Session& get();
  // Runs fn(runtime) on the simulation's host thread; returns when it has returned, rethrowing
  // what it threw. Calls from several application threads take turns.
  void call(const std::function<void(rt::Runtime&)>& fn);
  const rt::DeviceProps& props() const { return props_; }
  const Settings& settings() const { return settings_; }
  bool concurrent() const { return concurrent_; }  // the platform's concurrent-kernel mode
  // At exit: the host program ends, the simulation finishes and the outputs are written.
  void shutdown();

 private:
  Session();
  void simulate();                // the simulation thread
  void serve(rt::Runtime& rt);    // the platform's host program
  void write_fault_report() const;  // GPUVP_FAULT_REPORT, once the simulation has stopped
  [[noreturn]] void fail_dead() const;

  Settings settings_;
  rt::DeviceProps props_;
  std::unique_ptr<Platform> platform_;
  std::optional<ArmedFlipState> fault_;          // what became of GPUVP_FAULT's fault
  std::string device_error_;                     // the first device error a call returned
  std::string device_error_kind_;                // its kind (DeviceErrorInfo::kind: "detected", "address", ...)
  std::thread thread_;
  std::mutex turn_;  // one application thread's request at a time
  std::mutex m_;
  std::condition_variable cv_;
  const std::function<void(rt::Runtime&)>* job_ = nullptr;
  std::exception_ptr job_error_;
  bool concurrent_ = false;
  bool device_error_seen_ = false;  // a call returned a device error to the application
  bool started_ = false, job_done_ = false, quit_ = false, dead_ = false;
  std::exception_ptr dead_error_;  // why the simulation stopped, rethrown by every later call
};

}  // namespace gpuvp::cudart
