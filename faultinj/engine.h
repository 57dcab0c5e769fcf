#pragma once
// The campaign engine: a golden run, then one fault per faulty run, each forked from a leader
// process that simulates the golden run once and forks at every injection instant (faults sorted
// by time), so the prefix is never simulated twice.
//
// Processes: the caller (which owns the result store) forks the golden run and then the leader; it
// never elaborates SystemC itself, and holds no database handle across a fork. The leader forks one
// child per fault, at most `workers` at a time. A child injects, runs to the end within a simulated
// time bound, classifies its run against the golden one and writes one line to the results pipe;
// the leader kills a child whose CPU time passes the host watchdog (Timeout; wall time never decides,
// so a stopped or starved campaign loses nothing) and reports one that dies
// (DUE, simulator died). If the leader itself dies, the caller starts another for what is left.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faultinj/fault.h"
#include "faultinj/instruction_output.h"
#include "faultinj/job.h"
#include "faultinj/reg_map.h"

#include <nlohmann/json.hpp>

namespace gpuvp::fi {

// Builds the job to simulate; called in each process that elaborates a platform.
using JobFactory = std::function<std::unique_ptr<Job>()>;

struct TargetDesc {
  std::string name;
  unsigned width = 0;
  uint64_t count = 1;
  uint32_t serial = 0;    // Target::serial: its number in GoldenRun::accesses
  bool observed = false;  // Target::reads_observed: every read and write recorded
};

struct PhaseSpan {
  std::string phase;     // configuration, dispatch, wait, exchange, idle
  uint64_t start_ps = 0;
};

// One kernel launch of the golden run: its kernel and execution window (scheduler out of IDLE to
// kernel_done), in launch order.
struct LaunchSpan {
  std::string kernel;
  uint64_t start_ps = 0, end_ps = 0;
  uint64_t entry = 0;                  // the kernel's code address
  std::vector<std::string> reg_names;  // register slot -> PTX register (reg_map.h)
};

struct GoldenRun {
  uint64_t start_ps = 0, end_ps = 0;  // execution window: first kernel start to last kernel_done
  uint64_t sim_end_ps = 0;            // simulated time when the host program returned
  uint64_t output_hash = 0, output_bytes = 0;
  uint64_t kernel_cycles = 0;
  uint64_t period_ps = 0;
  double host_seconds = 0;
  std::vector<TargetDesc> targets;    // the registry
  std::vector<PhaseSpan> phases;      // scheduler phases (model scheduler; the RTL's are the same)
  std::vector<LaunchSpan> launches;   // per-kernel AVF (run_context.h)
  std::vector<RegAlloc> reg_allocs;   // where each SM's warps had their registers (reg_map.h)
  std::vector<std::string> links;     // where a bus saboteur may go
  nlohmann::json info = nlohmann::json::object();  // Job::golden_info()
  // Event instants (ps), kept compactly (8 bytes each: a long golden run issues many millions of
  // warp instructions): every block dispatch, and with run_golden's `issues_of_sm` >= 0 every warp
  // instruction issue of SM `issue_sm`.
  std::vector<uint64_t> dispatch_ps, issue_ps;
  int issue_sm = -1;
  // Instruction-output faults: the golden run's instructions of each (SM, group) run_golden was asked for.
  std::vector<InstOccurrences> inst;
  // Every kernel's execution window (first: start, second: kernel_done), in launch order.
  std::vector<std::pair<uint64_t, uint64_t>> kernels;
  // The accesses of the registered state whose owners report them (TargetDesc::observed), in the order
  // they were reported (faultinj/lifetimes.h indexes them), in the compact log's encoding.
  AccessLog accesses;
  // (instant, Platform::state_hash) pairs for early stops: a faulty run whose state hash equals the
  // golden run's at one of these instants has reconverged (record_checkpoints fills them).
  std::vector<std::pair<uint64_t, uint64_t>> checkpoints;
  // The buffers the host program read back (Job::buffers()), and those the output check compares.
  std::vector<OutputBuffer> buffers;
  std::vector<GoldenOutput> outputs;
};

// Runs the job once, fault-free, in a child process. Throws std::runtime_error with the child's
// message if the golden run itself fails (a wrong result is not an error: the output is the
// reference).
// dispatch_ps gets the block dispatch instants and, with `issues_of_sm` >= 0, issue_ps the instant
// each warp instruction of that SM issued (sent back from the child as binary arrays).
// `check` selects the outputs (GoldenRun::outputs); a selection that names an unknown buffer, or finds
// none, throws std::runtime_error.
// `inst_targets`: the (SM, instruction group) pairs whose instructions GoldenRun::inst records.
GoldenRun run_golden(const JobFactory& make, int issues_of_sm = -1, const OutputCheckSpec& check = {},
                     const std::vector<InstOutputTarget>& inst_targets = {});
// The occurrences of `t` the golden run recorded, or nullptr.
const InstOccurrences* find_occurrences(const GoldenRun& g, const InstOutputTarget& t);

// The instant an event-triggered fault strikes, from the golden run's occurrences of its event: just
// after the n-th block dispatch or warp instruction of SM k, one cycle before the n-th instruction of an
// instruction-output target, just before the n-th transaction on a saboteur's link. None when the golden
// run has no such occurrence. `transactions`: the golden run's info "transaction_ps" (a bus saboteur's).
std::optional<uint64_t> event_instant(const GoldenRun& g, const std::vector<uint64_t>& transactions, const Fault& f);

// Replays the golden run stopping at `count` instants spread over [start_ps, sim_end_ps) and records
// the platform's state hash at each (in a child process).
void record_checkpoints(const JobFactory& make, GoldenRun& g, unsigned count);

struct EngineOptions {
  unsigned workers = 1;
  double timeout_factor = 3;       // simulated-time bound: factor x the golden run's simulated end
  double wall_factor = 20;         // host watchdog (a child's CPU time): factor x the golden run's host time ...
  double wall_min_seconds = 5;     // ... but never less than this
  bool early_stop = true;          // compare state with the golden checkpoints after a transient fault
  unsigned early_checks = 8;       // at most this many checkpoints after the injection
  OutputCheckSpec check;           // how a completed run's outputs are compared (default: exactly)
};

struct RunResult {
  uint64_t fault_id = 0;
  Outcome outcome = Outcome::ToolError;
  DueKind due = DueKind::None;
  std::string detail;
  uint64_t end_ps = 0;
  uint64_t kernel_cycles = 0;
  bool early_stop = false;
  double host_ms = 0;
  bool not_run = false;  // killed from outside (a signal the simulator never raises itself): run again
};

// Runs `faults` (any order; they are sorted in place by injection time: the list is taken, not copied)
// and calls `on_result` in the calling process as each run completes. Returns when every fault has a
// result. `before_fork` runs before each leader is forked (close database handles there);
// `after_batch` after the results that arrived together were given to on_result, before waiting for
// more (commit them there, in one transaction).
void run_faults(const JobFactory& make, const GoldenRun& golden, std::vector<Fault> faults,
                const EngineOptions& opt, const std::function<void(const RunResult&)>& on_result,
                const std::function<void()>& before_fork = {}, const std::function<void()>& after_batch = {});

// The same classification the children make, for a run that completed with `buffers` ending its last
// kernel at `end_ps`: Masked or MaskedTiming when the outputs are identical, else the check's verdict.
CheckVerdict classify_completed(const GoldenRun& g, const OutputCheckSpec& check, const std::vector<OutputBuffer>& buffers,
                                uint64_t end_ps);

// Runs one fault of `golden` again from the start in a child process, without early stop, with
// `outputs` (waveforms, timeline) written by that run; the same classification and host watchdog as a
// campaign's runs. An event-triggered fault gets its instant from the golden run.
RunResult replay_fault(const JobFactory& make, const GoldenRun& golden, Fault f, const EngineOptions& opt,
                       const std::string& vcd, const std::string& timeline);

}  // namespace gpuvp::fi
