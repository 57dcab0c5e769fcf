#pragma once
// Faulty runs forked from the golden run at their instants (docs/cuda.md, "Fault-injection campaigns on
// applications"). A campaign on an application hands the library a plan (GPUVP_FORK_PLAN, a JSON file):
// the faults, each a transient XOR at an instant, a folder for the runs and a pipe. The golden run
// simulates up to each instant in turn inside the application's CUDA calls, forks there, and waits for
// the child: the child applies the fault and carries the application on to its exit, in a folder of its
// own; the golden run then reports on the pipe how the child ended and goes on to the next instant.
//
// fork() copies only the calling thread: the plan needs the library's single-thread mode, where the
// simulation runs on the application's thread (cudart/session.h), and an application with one thread.
#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "platform/armed_flip.h"

namespace gpuvp::cudart {

struct ForkPlan {
  struct Run {
    uint64_t id = 0;  // the campaign's name for the run: its folder is runs_dir/ID
    ArmedFlip flip;
  };
  std::vector<Run> runs;  // sorted by instant
  std::string runs_dir;
  std::string golden_dir;  // the folder the golden run started in (the application may chdir away from it)
  int fd = -1;            // the pipe to the campaign: one line per run (fork_report)
  double limit_s = 0;     // a run's wall-time limit: a child still running then is killed
};

// Reads the plan; throws std::invalid_argument naming the file and what is wrong.
ForkPlan load_fork_plan(const std::string& path);

// The lines the golden run writes on the plan's pipe, as the campaign reads them:
//   "ID ended STATUS KILLED WALL_S"  the run's child ended (wait status; KILLED 1: at its limit)
//   "ID unreached"                    the application ended before the run's instant
//   "fallback REASON"                 the application cannot be forked (the campaign runs its faults
//                                     as fresh processes)
// A golden run whose campaign has gone (the pipe's reader closed) exits with kCampaignGone.
void fork_report(const ForkPlan& plan, const std::string& line);
constexpr int kCampaignGone = 124;

// Why forking here would lose part of the application (another thread: fork() copies only the
// caller; a process that is not the command `gpuvp cuda` started, GPUVP_CUDA_PID: its parent's work
// after it would be left out), or "".
std::string fork_hazard();

// In the child, first thing: a process group of its own, the golden run's folder (plan.golden_dir)
// copied into the run's folder; the working directory becomes its counterpart there (the application
// may have changed into a subfolder, as a fresh run in the run's folder would); every regular file the
// application holds open (its standard output and error among them, which the campaign points into
// that folder) opened anew, the copy for a file of that folder, so that the child's reads and writes
// move no offset of the golden run's and change none of its files. Returns the fault report's path.
std::string become_run(const ForkPlan& plan, const ForkPlan::Run& run);

// The golden run's SIGCHLD while it forks a run and waits for it. The application's disposition is
// set aside if it ignores SIGCHLD (the kernel would reap the run: its wait status lost, read as exit 0)
// and the signal is blocked (a handler reaping every child would steal the status; it runs once the
// signal is unblocked, for the application's own children). Restored when it goes out of scope, in the
// child as well, which returns from the fork into the application.
class OwnSigchld {
 public:
  OwnSigchld();
  ~OwnSigchld();
  OwnSigchld(const OwnSigchld&) = delete;
  OwnSigchld& operator=(const OwnSigchld&) = delete;

 private:
  struct sigaction app_ {};
  sigset_t mask_{};
  bool replaced_ = false;
};

// In the golden run: waits for the child (killed with its group at the plan's limit) and reports it.
void await_run(const ForkPlan& plan, const ForkPlan::Run& run, pid_t child);

}  // namespace gpuvp::cudart
