#pragma once
// The order in which the application's threads get their CUDA calls served (docs/cuda.md, "Several
// application threads"). Served in the order the OS lets them arrive, two threads' calls interleave
// differently run to run, and so do simulated timings and results. Instead a call waits until the
// process is quiescent: every other thread of the application waits in a CUDA call (it is "parked")
// or sleeps on a futex (a mutex, a condition variable, a join), so nothing the program does can
// change which calls are parked. The simulation's thread is checked as well: idle, it sleeps on a
// futex; running (it frees what a call left), it may hold a lock a program thread sleeps on. Then the parked call with the lowest key (the thread's count of
// served calls, then its rank: threads created in program order have increasing ids) is served.
// A thread that neither parks nor sleeps on a futex (it computes, spins or waits in another system
// call) is waited for up to a wall-time grace (GPUVP_THREAD_GRACE_MS); past it the lowest key is
// served anyway and the serving is counted as unordered (the statistics, the `gpuvp cuda` summary).
//
// A turn lasts a whole API call (Turn, in cudart/api.h's call()), so the runtime library's own lock
// and the simulation's requests are taken by one thread at a time in that order. Nested API calls
// (cudaMallocHost calls cudaHostAlloc) stay in their thread's turn. The single-thread mode has no
// turns: a second thread's call ends the process there (cudart/session.h).
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuvp::cudart {

class Turns {
 public:
  static Turns& get();
  void acquire();  // returns when this thread's call is to be served
  void release();
  // The simulation's thread between calls: takes the turn, without waiting, when no call is served
  // or waiting and the application is quiescent or has made no call for the grace (then true: the
  // caller runs what is due and calls release()).
  bool try_idle_turn();
  // What the statistics say: served calls, those served unordered, the grace, the first reason.
  nlohmann::json summary() const;

  struct Parked {
    pid_t tid;
    uint64_t calls;  // calls of this thread served before this one
    uint64_t rank;   // the thread's creation order: its id's distance after the process id (rank_of)
  };

 private:
  Turns();
  // Thread ids grow as threads are created and wrap at pid_max: counted from the process id (the
  // first thread's) modulo pid_max they keep their creation order across the wrap.
  uint64_t rank_of(pid_t tid) const;
  bool my_turn(const Parked& me) const;  // no call served now and `me` has the lowest key
  // Empty when the process is quiescent, else which thread is not (and what it does); the calling
  // thread and the parked ones are not looked at.
  std::string unsettled(pid_t* sleeper = nullptr) const;  // sleeper: the thread named, if asleep outside a futex

  bool enabled_ = true;
  std::chrono::microseconds grace_{100000};
  uint64_t pid_max_ = uint64_t{1} << 22;  // /proc/sys/kernel/pid_max
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<Parked> parked_;
  std::atomic<int> entering_{0};  // threads inside acquire() that have not parked yet
  bool busy_ = false;
  std::set<pid_t> callers_;      // threads that have made a call
  std::set<pid_t> not_calling_;  // threads that never called, no longer waited for (acquire)
  std::chrono::steady_clock::time_point last_release_ = std::chrono::steady_clock::now();
  uint64_t served_ = 0, unordered_ = 0;
  std::string first_unordered_;
};

// One API call's turn (RAII); nested calls on the same thread stay in the outer call's turn.
class Turn {
 public:
  Turn();
  ~Turn();
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  static bool held();  // this thread is inside an API call (waiting for its turn or served)
};

}  // namespace gpuvp::cudart
