#include "cudart/turns.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "cudart/session.h"

namespace gpuvp::cudart {

namespace {

using Clock = std::chrono::steady_clock;

thread_local uint64_t calls_served = 0;  // this thread's calls served so far: its key
thread_local int turn_depth = 0;         // nested API calls in this thread's turn

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// What thread `tid` does: nothing (why empty) when it sleeps on a futex (only another thread can wake
// it); `sleeping` when it waits in another system call (a sleep, a poll, a read), which time may end.
struct Activity {
  std::string why;
  bool sleeping = false;
};

Activity activity(pid_t tid) {
  const std::string dir = fmt::format("/proc/self/task/{}/", tid);
  const std::string stat = read_line(dir + "stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return {};  // gone
  const char state = stat[close + 2];
  if (state == 'Z' || state == 'X') return {};
  if (state != 'S') return {fmt::format("thread {} is in state {}", tid, state)};
  const long nr = std::atol(read_line(dir + "syscall").c_str());
  if (nr == SYS_futex) return {};
#ifdef SYS_futex_waitv
  if (nr == SYS_futex_waitv) return {};
#endif
  return {fmt::format("thread {} waits in system call {}", tid, nr), true};
}

bool has(const std::vector<pid_t>& v, pid_t t) { return std::find(v.begin(), v.end(), t) != v.end(); }

}  // namespace

Turns& Turns::get() {
  static Turns* t = new Turns();  // never destroyed: threads may call while the program exits
  return *t;
}

Turns::Turns() {
  try {
    const Settings s = Settings::from_environment();
    enabled_ = !s.single_thread;
    grace_ = std::chrono::microseconds(static_cast<int64_t>(s.thread_grace_ms * 1000));
  } catch (const SessionError&) {
    enabled_ = false;  // the session names the bad setting at its start, and every call fails
  }
  if (const long m = std::atol(read_line("/proc/sys/kernel/pid_max").c_str()); m > 0) pid_max_ = static_cast<uint64_t>(m);
}

uint64_t Turns::rank_of(pid_t tid) const {
  const int64_t m = static_cast<int64_t>(pid_max_);
  return static_cast<uint64_t>(((static_cast<int64_t>(tid) - ::getpid()) % m + m) % m);
}

bool Turns::my_turn(const Parked& me) const {
  if (busy_) return false;
  for (const Parked& p : parked_)
    if (p.calls < me.calls || (p.calls == me.calls && p.rank < me.rank)) return false;
  return true;
}

std::string Turns::unsettled(pid_t* sleeper) const {
  if (entering_.load() > 0) return "a thread is entering a CUDA call";
  std::vector<pid_t> ignore{static_cast<pid_t>(::gettid())};
  for (const Parked& p : parked_) ignore.push_back(p.tid);
  ignore.insert(ignore.end(), not_calling_.begin(), not_calling_.end());
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return "/proc/self/task cannot be read";
  std::string why;
  while (const dirent* e = ::readdir(d)) {
    const pid_t tid = static_cast<pid_t>(std::atol(e->d_name));
    if (tid <= 0 || has(ignore, tid)) continue;
    const Activity a = activity(tid);
    why = a.why;
    if (sleeper) *sleeper = a.sleeping ? tid : 0;
    if (!why.empty()) break;
  }
  ::closedir(d);
  // Again after the scan: a thread may have entered acquire() after the first check and now sleep on
  // m_ (a futex), which the scan took for a thread asleep in the program.
  if (why.empty() && entering_.load() > 0) return "a thread is entering a CUDA call";
  return why;
}

void Turns::acquire() {
  if (!enabled_) return;
  entering_.fetch_add(1);  // before the lock: a thread waiting for it is not one asleep in the program
  std::unique_lock lk(m_);
  const pid_t tid = static_cast<pid_t>(::gettid());
  const Parked me{tid, calls_served, rank_of(tid)};
  parked_.push_back(me);
  entering_.fetch_sub(1);
  callers_.insert(tid);
  if (not_calling_.erase(tid) && unordered_++ == 0)  // its call came while no one waited for it
    first_unordered_ = fmt::format("thread {} made its first CUDA call after it had been taken for a thread that makes none", tid);
  cv_.notify_all();
  std::optional<Clock::time_point> since;  // when this call became next but the process was not quiescent
  pid_t asleep = 0;                         // a thread found asleep outside a futex since then
  auto poll = std::chrono::microseconds(50);
  for (;;) {
    if (!my_turn(me)) {
      since.reset();
      asleep = 0;
      cv_.wait(lk);
      continue;
    }
    pid_t sleeper = 0;
    const std::string why = unsettled(&sleeper);
    if (why.empty()) break;
    if (sleeper) asleep = sleeper;
    const auto now = Clock::now();
    if (!since) since = now;
    if (now - *since >= grace_) {
      if (unordered_++ == 0) first_unordered_ = why;
      // A thread that never called, found asleep outside a futex while this call waited a whole grace
      // (a progress monitor, a main thread polling a flag), is not waited for again until it calls:
      // each call would cost a grace. Also when it is awake at the grace's end (between two sleeps, or
      // waiting for a processor on a loaded machine).
      if (asleep && !callers_.count(asleep)) not_calling_.insert(asleep);
      break;
    }
    cv_.wait_for(lk, poll);
    poll = std::min(poll * 2, std::chrono::microseconds(2000));
  }
  parked_.erase(std::find_if(parked_.begin(), parked_.end(), [&](const Parked& p) { return p.tid == me.tid; }));
  busy_ = true;
  ++served_;
  ++calls_served;
}

void Turns::release() {
  if (!enabled_) return;
  std::lock_guard lk(m_);
  busy_ = false;
  last_release_ = Clock::now();
  cv_.notify_all();
}

bool Turns::try_idle_turn() {
  if (!enabled_) return false;
  std::lock_guard lk(m_);
  if (busy_ || !parked_.empty() || entering_.load() > 0) return false;
  if (Clock::now() - last_release_ < grace_ && !unsettled().empty()) return false;
  busy_ = true;
  return true;
}

nlohmann::json Turns::summary() const {
  if (!enabled_) return nullptr;
  std::lock_guard lk(m_);
  nlohmann::json j = {{"calls", served_}, {"unordered", unordered_},
                      {"grace_ms", std::chrono::duration<double, std::milli>(grace_).count()}};
  if (unordered_) j["first_unordered"] = first_unordered_;
  return j;
}

Turn::Turn() {
  if (turn_depth++ == 0) Turns::get().acquire();
}

bool Turn::held() { return turn_depth > 0; }

Turn::~Turn() {
  if (--turn_depth == 0) Turns::get().release();
}

}  // namespace gpuvp::cudart
