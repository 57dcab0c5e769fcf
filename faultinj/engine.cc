#include "faultinj/engine.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>
#include <systemc>

#include "faultinj/hot_pages.h"
#include "faultinj/injector.h"
#include "faultinj/rate_mode.h"
#include "platform/config/json_text.h"
#include "platform/platform.h"
#include "platform/run_outputs.h"
#include "platform/text.h"

namespace gpuvp::fi {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

void write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::write(fd, p + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the reader is gone: nothing left to tell
    off += size_t(n);
  }
}
void write_all(int fd, const std::string& s) { write_all(fd, s.data(), s.size()); }

// Exactly `size` bytes, or false at the end of the pipe.
bool read_exact(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::read(fd, p + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

// Asks for transparent huge pages over [data, data + bytes) (where the kernel offers them on request):
// one page fault per 2 MiB instead of per 4 KiB. The golden run's access log runs to tens of MB, and
// faulting its pages in, in the child and again in the parent, was most of what recording cost.
void prefer_huge_pages(const void* data, size_t bytes) {
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t from = (uintptr_t(data) + page - 1) & ~(page - 1), to = (uintptr_t(data) + bytes) & ~(page - 1);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);  // advice: failure is harmless
}

// The golden child's access log gets its room up front: address space only, the pages are touched as
// entries arrive, so the log never reallocates and copies itself (perf showed the growth's copies and
// page faults as much of the recording's cost). As much as a sixteenth of the machine's memory, at
// most 1 GiB (some 150 million entries); a longer log grows as before.
void reserve_access_log(AccessLog& log) {
  const uint64_t ram = uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE));
  if (!log.reserve_bytes(size_t(std::min<uint64_t>(ram / 16, uint64_t(1) << 30))))
    return;  // no such room (strict overcommit): the log grows as it needs
  prefer_huge_pages(log.data(), log.capacity_bytes());
}

// The golden child's pages lent to the pipe (vmsplice) instead of copied into it: the reader's copy is
// the only one (the access log is tens of MB). The child writes them no more: it exits once all is
// sent, and the pipe keeps the pages until they are read. Where vmsplice is refused, a plain write.
void lend_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  size_t off = 0;
  while (off < size) {
    iovec v{const_cast<char*>(p + off), size - off};
    const ssize_t n = ::vmsplice(fd, &v, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return write_all(fd, p + off, size - off);
    off += size_t(n);
  }
}

// A length-prefixed block on a pipe from the golden child: a uint64 count, then the data.
void send_block(int fd, const void* data, uint64_t count, size_t item) {
  write_all(fd, &count, sizeof count);
  lend_all(fd, data, count * item);
}
// The access log: its entry count, encoder state and size, then its encoded bytes, read straight into
// the log's own buffer.
void send_log(int fd, const AccessLog& log) {
  const uint64_t head[4] = {log.size(), log.last_time(), log.last_target(), log.bytes()};
  write_all(fd, head, sizeof head);
  lend_all(fd, log.data(), log.bytes());
}
bool receive_log(int fd, AccessLog& log) {
  uint64_t head[4];
  if (!read_exact(fd, head, sizeof head) || head[3] > (uint64_t(1) << 40) || head[2] > UINT32_MAX) return false;
  return log.receive_encoded(size_t(head[3]), head[0], head[1], uint32_t(head[2]), [&](uint8_t* to, size_t n) {
    prefer_huge_pages(to, n);
    return read_exact(fd, to, n);
  });
}
template <class T>
bool receive_block(int fd, std::vector<T>& out) {
  uint64_t count = 0;
  if (!read_exact(fd, &count, sizeof count) || count > (uint64_t(1) << 40) / sizeof(T)) return false;
  out.reserve(count);
  prefer_huge_pages(out.data(), count * sizeof(T));
  // Read through a chunk the processor's cache holds and appended from it: resize() would first write
  // every byte of the log's fresh pages with zeros, then the pipe's copy would write them again.
  constexpr uint64_t kChunk = (256 << 10) / sizeof(T);
  std::vector<T> chunk(size_t(std::min(count, kChunk)));
  for (uint64_t left = count; left > 0;) {
    const size_t n = size_t(std::min(left, kChunk));
    if (!read_exact(fd, chunk.data(), n * sizeof(T))) return false;
    out.insert(out.end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(n));
    left -= n;
  }
  return true;
}

std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buf, size_t(n));
  }
}

// fork() with stdio flushed first, so buffered output is not written twice.
pid_t fork_clean() {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  return pid;
}

// Called first in a forked child: it is killed when `parent` dies (kill -9 of a campaign leaves
// nothing running), also when the parent died between fork() and here.
void die_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
}

// User + system CPU time of a child (/proc/PID/stat; readable until it is reaped), seconds; none
// where /proc cannot be read.
std::optional<double> cpu_seconds(pid_t pid) {
  std::FILE* f = std::fopen(fmt::format("/proc/{}/stat", pid).c_str(), "r");
  if (!f) return std::nullopt;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces and parentheses
  unsigned long long utime = 0, stime = 0;
  // After the name: fields 3 to 13, then utime and stime (proc(5)).
  if (!p || std::sscanf(p + 1, " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &utime, &stime) != 2)
    return std::nullopt;
  return double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
}

// The configuration of the leader and so of the faulty runs it forks: without the host-time limit of
// plain runs, as a host-side limit never decides an outcome (the simulated-time bound makes a Timeout;
// the leader's CPU-time watchdog catches a simulator that spins). The golden run keeps the limit: a
// campaign whose kernel never ends is an error found in a minute.
Config faulty_run_config(const Job& job) {
  Config c = job.config();
  c.set("sim.host_timeout_s", nlohmann::json(0), "fault-injection campaign");
  return c;
}

void silence_output() {
  int null = ::open("/dev/null", O_WRONLY);
  if (null < 0) return;
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  ::close(null);
}

// A run's detail (a device error naming a path of any length and encoding) is kept to this many bytes.
constexpr size_t kMaxDetailBytes = 1000;

json to_json(const RunResult& r) {
  return {{"id", r.fault_id},         {"outcome", to_string(r.outcome)},
          {"due", to_string(r.due)},  {"detail", cut_utf8(r.detail, kMaxDetailBytes)},
          {"end_ps", r.end_ps},       {"cycles", r.kernel_cycles},
          {"early", r.early_stop},    {"host_ms", r.host_ms},   {"not_run", r.not_run}};
}

RunResult from_json(const json& j) {
  RunResult r;
  r.fault_id = j.at("id");
  r.outcome = parse_outcome(j.at("outcome"));
  r.due = parse_due_kind(j.at("due"));
  r.detail = j.at("detail");
  r.end_ps = j.at("end_ps");
  r.kernel_cycles = j.at("cycles");
  r.early_stop = j.at("early");
  r.host_ms = j.at("host_ms");
  r.not_run = j.value("not_run", false);
  return r;
}

// One result line: well under PIPE_BUF, so lines from concurrent writers never interleave.
void send(int fd, const RunResult& r) { write_all(fd, json_dump(to_json(r)) + "\n"); }

json golden_to_json(const GoldenRun& g) {
  json t = json::array(), ph = json::array();
  for (auto& x : g.targets) t.push_back({x.name, x.width, x.count, x.serial, x.observed});
  for (auto& p : g.phases) ph.push_back({p.phase, p.start_ps});
  json launches = json::array();
  for (auto& l : g.launches) launches.push_back({l.kernel, l.start_ps, l.end_ps, l.entry, l.reg_names});
  json allocs = json::array();
  for (auto& a : g.reg_allocs) allocs.push_back({a.sm, a.warp, a.base, a.num_regs, a.entry, a.first_ps, a.last_ps});
  return {{"launches", launches}, {"reg_allocs", allocs},{"start_ps", g.start_ps},       {"end_ps", g.end_ps},         {"sim_end_ps", g.sim_end_ps},
          {"output_hash", g.output_hash}, {"output_bytes", g.output_bytes}, {"kernel_cycles", g.kernel_cycles},
          {"period_ps", g.period_ps},     {"host_seconds", g.host_seconds}, {"targets", t},
          {"phases", ph},                 {"links", g.links},               {"info", g.info},
          {"checkpoints", g.checkpoints}, {"issue_sm", g.issue_sm},  {"kernels", g.kernels}};
}

GoldenRun golden_from_json(const json& j) {
  GoldenRun g;
  g.start_ps = j.at("start_ps");
  g.end_ps = j.at("end_ps");
  g.sim_end_ps = j.at("sim_end_ps");
  g.output_hash = j.at("output_hash");
  g.output_bytes = j.at("output_bytes");
  g.kernel_cycles = j.at("kernel_cycles");
  g.period_ps = j.at("period_ps");
  g.host_seconds = j.at("host_seconds");
  for (auto& t : j.at("targets")) g.targets.push_back({t[0], t[1], t[2], t[3], t[4]});
  g.kernels = j.at("kernels").get<std::vector<std::pair<uint64_t, uint64_t>>>();
  for (auto& p : j.at("phases")) g.phases.push_back({p[0], p[1]});
  // An application's golden run (app_run.cc) reports launches without entries and no allocations.
  for (auto& l : j.at("launches"))
    g.launches.push_back(l.size() > 3 ? LaunchSpan{l[0], l[1], l[2], l[3], l[4]} : LaunchSpan{l[0], l[1], l[2], 0, {}});
  for (auto& a : j.value("reg_allocs", json::array()))
    g.reg_allocs.push_back({a[0], a[1], a[2], a[3], a[4], a[5], a[6]});
  g.links = j.at("links").get<std::vector<std::string>>();
  g.info = j.at("info");
  g.issue_sm = j.value("issue_sm", -1);
  g.checkpoints = j.at("checkpoints").get<std::vector<std::pair<uint64_t, uint64_t>>>();
  return g;
}

// The golden figures of a finished platform.
GoldenRun record_golden(Platform& p, const Job& job) {
  GoldenRun g;
  auto windows = p.kernel_windows();
  if (windows.empty()) throw std::runtime_error("the golden run launched no kernel");
  g.start_ps = windows.front().first;
  g.end_ps = windows.back().second;
  g.sim_end_ps = sc_core::sc_time_stamp().value();
  std::vector<uint8_t> out = job.output();
  g.output_hash = hash_bytes(out);
  g.output_bytes = out.size();
  PlatformStats st = p.stats();
  g.kernel_cycles = st.kernel_cycles;
  g.host_seconds = st.host_seconds;
  for (const rt::LaunchStats& l : st.launches)
    g.launches.push_back({l.kernel, l.start_ps, l.end_ps, l.entry, l.reg_names});
  g.period_ps = p.clock_period_ps();
  for (const Target* t : p.registry().all())
    g.targets.push_back({t->name, t->width, t->count, t->serial, t->reads_observed});
  g.kernels = windows;
  for (auto& [phase, ps] : p.scheduler_phases()) g.phases.push_back({phase, ps});
  g.links = p.link_names();
  g.info = job.golden_info();
  g.buffers = job.buffers();
  return g;
}

// The buffers' names and sizes go with the JSON; their bytes (before, after, buffer by buffer) as
// one binary block.
json buffers_to_json(const std::vector<OutputBuffer>& bufs, std::vector<uint8_t>& bytes) {
  json j = json::array();
  for (const OutputBuffer& b : bufs) {
    j.push_back({b.name, b.type, b.known_before, b.before.size(), b.after.size()});
    bytes.insert(bytes.end(), b.before.begin(), b.before.end());
    bytes.insert(bytes.end(), b.after.begin(), b.after.end());
  }
  return j;
}

std::vector<OutputBuffer> buffers_from_json(const json& j, const std::vector<uint8_t>& bytes) {
  std::vector<OutputBuffer> out;
  size_t off = 0;
  auto take = [&](size_t n) {
    if (off + n > bytes.size()) throw std::runtime_error("golden run: truncated buffer contents");
    std::vector<uint8_t> v(bytes.begin() + std::ptrdiff_t(off), bytes.begin() + std::ptrdiff_t(off + n));
    off += n;
    return v;
  };
  for (const json& b : j) {
    OutputBuffer ob{b[0], b[1], b[2], {}, {}};
    ob.before = take(b[3].get<size_t>());
    ob.after = take(b[4].get<size_t>());
    out.push_back(std::move(ob));
  }
  return out;
}

}  // namespace

const InstOccurrences* find_occurrences(const GoldenRun& g, const InstOutputTarget& t) {
  for (const InstOccurrences& o : g.inst)
    if (o.where.sm == t.sm && o.where.group == t.group) return &o;
  return nullptr;
}

namespace {
// The golden run's recorders of instruction occurrences, one per SM named (observers of the SMs).
struct InstRecording {
  std::vector<std::unique_ptr<std::vector<InstOccurrences>>> per_sm;
  std::vector<std::unique_ptr<InstRecorder>> recorders;

  // Every SM also records where its warps have their registers (reg_map.h), before the instruction
  // recorder of that SM.
  std::vector<std::unique_ptr<RegAllocRecorder>> allocs;

  InstRecording(Platform& p, const std::vector<InstOutputTarget>& targets) {
    std::map<unsigned, std::vector<InstOccurrences>*> by_sm;
    std::map<unsigned, RetireObserver*> next;
    for (const InstOutputTarget& t : targets) {
      auto& v = by_sm[t.sm];
      if (!v) {
        per_sm.push_back(std::make_unique<std::vector<InstOccurrences>>());
        v = per_sm.back().get();
        recorders.push_back(std::make_unique<InstRecorder>(*v, p.clock_period_ps()));
        next[t.sm] = recorders.back().get();
      }
      v->push_back({t, {}, {}, {}});
    }
    for (const Target* t : p.registry().all())
      if (std::optional<unsigned> sm = regs_target_sm(t->name)) {
        allocs.push_back(std::make_unique<RegAllocRecorder>(*sm, p.clock_period_ps(), next[*sm]));
        p.set_retire_observer(*sm, allocs.back().get());
      }
  }
  std::vector<InstOccurrences> take() {
    std::vector<InstOccurrences> out;
    for (auto& v : per_sm)
      for (auto& o : *v) out.push_back(std::move(o));
    return out;
  }
  std::vector<RegAlloc> take_allocs() {
    std::vector<RegAlloc> out;
    for (auto& a : allocs) out.insert(out.end(), a->allocs().begin(), a->allocs().end());
    return out;
  }
};
}  // namespace

// The golden child's answer: the figures as JSON, then the event instants as binary arrays.
GoldenRun run_golden(const JobFactory& make, int issues_of_sm, const OutputCheckSpec& check,
                     const std::vector<InstOutputTarget>& inst_targets) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  // The answer is mostly the access log (tens of MB): 1 MiB at a time instead of 64 KiB, fewer switches
  // between the child and this process (a refusal, over the user's pipe quota, only keeps 64 KiB).
  ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
  const pid_t self = ::getpid();
  pid_t pid = fork_clean();
  if (pid == 0) {
    die_with_parent(self);
    ::close(fds[0]);
    GoldenRun g;
    reserve_access_log(g.accesses);
    json answer;
    std::vector<uint8_t> buffer_bytes;
    try {
      auto job = make();
      Platform p(job->config(), job->hooks());
      job->attach(p);
      p.record_markers();  // phases and dispatch instants: triggers, windows and reports draw from them
      if (issues_of_sm >= 0) p.record_issues(unsigned(issues_of_sm));
      InstRecording rec(p, inst_targets);
      p.registry().record_accesses(&g.accesses);
      p.run([&](rt::Runtime& rt) { job->run(rt); });
      p.registry().record_accesses(nullptr);
      AccessLog accesses = std::move(g.accesses);
      g = record_golden(p, *job);
      g.inst = rec.take();
      g.reg_allocs = rec.take_allocs();
      g.accesses = std::move(accesses);
      g.dispatch_ps = p.dispatch_times();
      if (issues_of_sm >= 0) g.issue_ps = p.issue_times(unsigned(issues_of_sm));
      g.issue_sm = issues_of_sm;
      answer = golden_to_json(g);
      answer["buffers"] = buffers_to_json(g.buffers, buffer_bytes);
    } catch (const std::exception& e) {
      answer = {{"error", cut_utf8(e.what(), 64 * kMaxDetailBytes)}};
    }
    const std::string text = json_dump(answer);
    send_block(fds[1], text.data(), text.size(), 1);
    send_block(fds[1], g.dispatch_ps.data(), g.dispatch_ps.size(), sizeof(uint64_t));
    send_block(fds[1], g.issue_ps.data(), g.issue_ps.size(), sizeof(uint64_t));
    send_block(fds[1], buffer_bytes.data(), buffer_bytes.size(), 1);
    send_log(fds[1], g.accesses);
    for (const InstOutputTarget& t : inst_targets) {  // in the order asked: the reader expects it
      const InstOccurrences* found = find_occurrences(g, t);
      if (!found) break;  // the run failed: the text says why
      const InstOccurrences& o = *found;
      send_block(fds[1], o.seq.data(), o.seq.size(), sizeof(uint64_t));
      send_block(fds[1], o.ps.data(), o.ps.size(), sizeof(uint64_t));
      send_block(fds[1], o.cls.data(), o.cls.size(), 1);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::vector<char> text;
  std::vector<uint64_t> dispatch, issue;
  std::vector<uint8_t> buffer_bytes;
  AccessLog accesses;
  bool whole = receive_block(fds[0], text) && receive_block(fds[0], dispatch) && receive_block(fds[0], issue) &&
               receive_block(fds[0], buffer_bytes) && receive_log(fds[0], accesses);
  // A golden run that failed sends no occurrences (its error is in the text).
  std::vector<InstOccurrences> inst;
  const bool failed = whole && std::string(text.begin(), text.end()).rfind("{\"error\"", 0) == 0;
  for (const InstOutputTarget& t : inst_targets) {
    if (!whole || failed) break;
    InstOccurrences o{t, {}, {}, {}};
    whole = receive_block(fds[0], o.seq) && receive_block(fds[0], o.ps) && receive_block(fds[0], o.cls);
    inst.push_back(std::move(o));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!whole)
    throw std::runtime_error(fmt::format("the golden run died ({})", WIFSIGNALED(status)
                                                                          ? fmt::format("signal {}", WTERMSIG(status))
                                                                          : fmt::format("exit {}", WEXITSTATUS(status))));
  json j = json::parse(text.begin(), text.end());
  if (j.contains("error")) throw std::runtime_error("golden run: " + j["error"].get<std::string>());
  GoldenRun g = golden_from_json(j);
  g.dispatch_ps = std::move(dispatch);
  g.issue_ps = std::move(issue);
  g.inst = std::move(inst);
  g.accesses = std::move(accesses);
  g.buffers = buffers_from_json(j.at("buffers"), buffer_bytes);
  try {
    g.outputs = select_outputs(check, g.buffers);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
  return g;
}

void record_checkpoints(const JobFactory& make, GoldenRun& g, unsigned count) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  const pid_t self = ::getpid();
  pid_t pid = fork_clean();
  if (pid == 0) {
    die_with_parent(self);  // a campaign killed with -9 during this pass leaves nothing running
    ::close(fds[0]);
    json answer = json::array();
    try {
      auto job = make();
      Platform p(job->config(), job->hooks());
      job->attach(p);
      p.start([&](rt::Runtime& rt) { job->run(rt); });
      const uint64_t span = g.sim_end_ps > g.start_ps ? g.sim_end_ps - g.start_ps : 0;
      for (unsigned k = 1; k <= count && span; ++k) {
        const uint64_t t = g.start_ps + span * k / (count + 1);
        if (!p.advance_to(t)) break;
        answer.push_back({t, p.state_hash()});
      }
    } catch (const std::exception&) {
      answer = json::array();  // no checkpoints: no early stops, nothing else lost
    }
    write_all(fds[1], json_dump(answer));
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text = read_all(fds[0]);
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  g.checkpoints.clear();
  if (!text.empty()) g.checkpoints = json::parse(text).get<std::vector<std::pair<uint64_t, uint64_t>>>();
}

CheckVerdict classify_completed(const GoldenRun& g, const OutputCheckSpec& check, const std::vector<OutputBuffer>& buffers,
                                uint64_t end_ps) {
  CheckVerdict v = check_outputs(check, g.outputs, buffers);
  if (v.outcome == Outcome::Masked && end_ps != g.end_ps) v.outcome = Outcome::MaskedTiming;
  return v;
}

namespace {

// Early stop: runs to the next few golden checkpoints after the injection; true when the whole state,
// registered values and timing digest (Platform::state_hash), equals the golden run's at one of them. Only for faults that are over once
// applied (transient, and a saboteur's only after it struck).
// `armed`: an instruction-output fault not struck yet (its instruction comes after the fork).
bool reconverged(Platform& p, const Job& job, const Fault& f, const GoldenRun& g, const EngineOptions& opt,
                 const InstOutputInjector* armed) {
  if (!opt.early_stop || f.duration != Duration::Transient) return false;
  unsigned checks = 0;
  for (auto& [t, hash] : g.checkpoints) {
    if (t <= f.time_ps) continue;
    if (checks++ == opt.early_checks || !p.advance_to(t)) return false;
    if (!job.fault_pending() && (!armed || armed->fired()) && p.state_hash() == hash) return true;
  }
  return false;
}

// Arms an instruction-output fault on the platform standing before its instruction; "" when armed.
std::string arm(Platform& p, const GoldenRun& g, const Fault& f, std::optional<InstOutputInjector>& io) {
  const auto t = parse_inst_output_target(f.target);
  const InstOccurrences* o = t ? find_occurrences(g, *t) : nullptr;
  if (!o || f.count == 0 || f.count > o->seq.size())
    return fmt::format("the golden run has no instruction {} of {}", f.count, f.target);
  const uint64_t seq = o->seq[f.count - 1];
  io.emplace(f, seq);
  return arm_inst_output(p, *t, *io, seq);
}

// A rate-mode run's faults (rate_mode.h): the unit results armed at once on one observer of the SM,
// the register-file flips applied at their instants.
class RateInjection : public RetireObserver {
 public:
  RateInjection(Platform& p, const GoldenRun& g, const Fault& run)
      : p_(p), subs_(expand_rate_fault(run, g)), sm_(parse_rate_event(run.event)->sm) {
    for (const Fault& s : subs_) {
      if (!is_inst_output(s)) continue;
      const uint64_t seq = find_occurrences(g, *parse_inst_output_target(s.target))->seq[s.count - 1];
      if (p.warp_insts(sm_) >= seq)
        throw std::invalid_argument(fmt::format("instruction {} of SM {} executed before the fork", seq, sm_));
      units_.push_back(std::make_unique<InstOutputInjector>(s, seq));
    }
    if (!units_.empty()) p.set_retire_observer(sm_, this);
  }
  ~RateInjection() override {
    if (!units_.empty()) p_.set_retire_observer(sm_, nullptr);
  }
  void retired(RetiredInst& r) override {
    for (auto& u : units_) u->retired(r);
  }
  // Applies the register-file faults at their instants (those after the end of the run never land).
  void apply_state(uint64_t period_ps) {
    for (const Fault& s : subs_) {
      if (is_inst_output(s)) continue;
      if (!p_.advance_to(s.time_ps)) return;
      inject(p_.registry(), s, period_ps);
      ++state_applied_;
    }
  }
  // "" when every unit fault struck a destination, else why one did not.
  std::string not_applied() const {
    for (const auto& u : units_)
      if (!u->applied()) return u->fired() ? u->note() : "an instruction of the run never executed";
    return "";
  }
  std::string summary() const {
    return fmt::format("{} fault{}: {} in the register file ({} landed before the end), {} in unit results",
                       subs_.size(), subs_.size() == 1 ? "" : "s", subs_.size() - units_.size(), state_applied_,
                       units_.size());
  }

 private:
  Platform& p_;
  std::vector<Fault> subs_;
  unsigned sm_;
  std::vector<std::unique_ptr<InstOutputInjector>> units_;
  size_t state_applied_ = 0;
};

// What an armed instruction-output fault did: "" when it changed a destination, else why not.
std::string not_applied(const std::optional<InstOutputInjector>& io, const Fault& f) {
  if (!io) return "";
  if (!io->fired()) return fmt::format("instruction {} of {} never executed", f.count, f.target);
  return io->applied() ? "" : io->note();
}

// A faulty run on a platform standing at the fault's instant: inject, run to the end (or to a
// reconverged checkpoint), classify.
RunResult faulty_run(Platform& p, Job& job, const Fault& f, const GoldenRun& g, const EngineOptions& opt) {
  const auto t0 = Clock::now();
  RunResult r;
  r.fault_id = f.id;
  auto done = [&] {
    r.host_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return r;
  };
  std::optional<InstOutputInjector> io;
  std::unique_ptr<RateInjection> rate;
  try {
    if (is_rate(f)) {
      rate = std::make_unique<RateInjection>(p, g, f);
    } else if (is_inst_output(f)) {
      if (std::string why = arm(p, g, f, io); !why.empty()) throw std::invalid_argument(why);
    } else if (!job.inject(p, f)) {
      inject(p.registry(), f, g.period_ps);
    }
  } catch (const std::exception& e) {
    r.outcome = Outcome::ToolError;
    r.detail = fmt::format("fault not applied: {}", e.what());
    return r;
  }
  try {
    if (rate) rate->apply_state(g.period_ps);  // several faults: no early stop
    if (!rate && reconverged(p, job, f, g, opt, io ? &*io : nullptr)) {
      r.outcome = Outcome::Masked;
      r.early_stop = true;
      r.end_ps = g.end_ps;
      r.kernel_cycles = g.kernel_cycles;
      r.detail = "state and timing equal to the golden run's at a checkpoint";
      return done();
    }
    p.finish(double(g.sim_end_ps) * opt.timeout_factor / 1e9);
    auto windows = p.kernel_windows();
    r.end_ps = windows.empty() ? 0 : windows.back().second;
    r.kernel_cycles = p.stats().kernel_cycles;
    const CheckVerdict v = classify_completed(g, opt.check, job.buffers(), r.end_ps);
    r.outcome = v.outcome;
    r.detail = v.detail;
    if (std::string why = rate ? rate->not_applied() : not_applied(io, f); !why.empty()) {
      r.outcome = Outcome::ToolError;  // never masked: the fault did not strike
      r.detail = "fault not applied: " + why;
    } else if (io || rate) {
      const std::string note = rate ? rate->summary() : io->note();
      r.detail = r.detail.empty() ? note : note + "; " + r.detail;
    }
  } catch (const DeviceError& e) {
    r.outcome = Outcome::DUE;
    r.due = due_kind_of(e.info().kind);
    r.detail = e.what();
  } catch (const TimeoutError& e) {
    r.outcome = Outcome::Timeout;
    r.detail = e.what();
  } catch (const std::exception& e) {
    // A stalled simulation never reaches kernel_done: a hang. Anything else the platform or the
    // runtime detected (a host bus error response, a runtime check) stops the program: a DUE.
    const std::string what = e.what();
    r.outcome = what.rfind("simulation stalled", 0) == 0 ? Outcome::Timeout : Outcome::DUE;
    if (r.outcome == Outcome::DUE) r.due = DueKind::Other;
    r.detail = what;
  }
  return done();
}

// A faulty run, in its own process: reports its result (and, in `slot`, the pages it wrote) and never
// returns.
[[noreturn]] void faulty_child(Platform& p, Job& job, const Fault& f, const GoldenRun& g, const EngineOptions& opt,
                               int out_fd, const HotPages& hot, int slot) {
  silence_output();
  hot.populate();
  send(out_fd, faulty_run(p, job, f, g, opt));
  hot.report(slot);
  ::_exit(0);
}

// The result of a child that did not report: killed by the watchdog (a hang), or died. A signal
// a simulator never raises itself (SIGKILL: the OOM killer, a job's memory limit; SIGTERM, SIGINT,
// SIGHUP: someone stopping it) decides nothing: the run is not run, and is run again.
RunResult lost_run(uint64_t fault_id, bool killed, int status, double wall_s) {
  RunResult r;
  r.fault_id = fault_id;
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (!killed && (sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP)) {
    r.not_run = true;
    r.detail = fmt::format("killed from outside the campaign: signal {} ({})", sig, strsignal(sig));
    return r;
  }
  if (killed) {
    r.outcome = Outcome::Timeout;
    r.detail = fmt::format("host watchdog: more than {:.1f} s of CPU time", wall_s);
  } else {
    r.outcome = Outcome::DUE;
    r.due = DueKind::Died;
    r.detail = WIFSIGNALED(status) ? fmt::format("simulator died: signal {} ({})", WTERMSIG(status),
                                                 strsignal(WTERMSIG(status)))
                                   : fmt::format("simulator died: exit status {}", WEXITSTATUS(status));
  }
  return r;
}

// The host watchdog's CPU-time limit of one faulty run.
double watchdog_seconds(const GoldenRun& g, const EngineOptions& opt) {
  return std::max(opt.wall_min_seconds, opt.wall_factor * g.host_seconds);
}

struct Child {
  Fault fault;
  Clock::time_point deadline;
  bool killed = false;
  int slot = -1;  // HotPages report slot
};

class Leader {
 public:
  Leader(const GoldenRun& g, const EngineOptions& opt, int out_fd) : g_(g), opt_(opt), out_(out_fd) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGCHLD);
    sigprocmask(SIG_BLOCK, &s, nullptr);  // children's ends are awaited with sigtimedwait
    wall_ = std::chrono::duration<double>(watchdog_seconds(g, opt));
  }

  void run(Job& job, const std::vector<Fault>& faults) {
    Platform p(faulty_run_config(job), job.hooks());
    job.attach(p);
    p.start([&](rt::Runtime& rt) { job.run(rt); });
    bool hashed = false;
    for (const Fault& f : faults) {
      if (!p.advance_to(f.time_ps)) {
        RunResult r;
        r.fault_id = f.id;
        r.detail = fmt::format("the run ended before the injection instant {} ps", f.time_ps);
        send(out_, r);
        continue;
      }
      // Digests kept up to date as state changes (caches) start following at their first request:
      // asked once here, before the first fork, every run inherits them followed instead of reading
      // every word again at its first early-stop check.
      if (opt_.early_stop && !hashed) {
        (void)p.state_hash();
        hashed = true;
      }
      while (children_.size() >= std::max(1u, opt_.workers)) wait_some();
      const pid_t self = ::getpid();
      const int slot = hot_.slot_for_next_run();
      pid_t pid = fork_clean();
      if (pid == 0) {
        die_with_parent(self);  // a campaign killed with -9 leaves nothing running
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGCHLD);
        sigprocmask(SIG_UNBLOCK, &s, nullptr);
        faulty_child(p, job, f, g_, opt_, out_, hot_, slot);
      }
      children_[pid] = Child{f, Clock::now() + std::chrono::duration_cast<Clock::duration>(wall_), false, slot};
      // A learning run reports the pages only it maps: the leader's own writes would count while it lives.
      while (slot >= 0 && children_.count(pid)) wait_some();
    }
    while (!children_.empty()) wait_some();
  }

 private:
  // Reaps what has ended; otherwise waits for SIGCHLD (or the nearest watchdog deadline).
  void wait_some() {
    if (reap()) return;
    Clock::time_point first = Clock::time_point::max();
    for (auto& [pid, c] : children_) {
      if (!c.killed && Clock::now() >= c.deadline) check_cpu(pid, c);
      if (!c.killed) first = std::min(first, c.deadline);
    }
    auto wait = std::min<Clock::duration>(first - Clock::now(), std::chrono::milliseconds(200));
    if (wait < Clock::duration::zero()) wait = Clock::duration::zero();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
    timespec ts{time_t(ns / 1000000000), long(ns % 1000000000)};
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGCHLD);
    sigtimedwait(&s, nullptr, &ts);
    reap();
  }

  // The wall deadline only says when to look: a child is a hang when its own CPU time passed the
  // limit. A stopped (SIGSTOP, paused VM) or CPU-starved campaign must not turn runs into timeouts.
  // (A simulation is one OS thread: it can only hang by computing, so its CPU time grows.)
  // Without /proc, wall time is all there is.
  void check_cpu(pid_t pid, Child& c) {
    const double cpu = cpu_seconds(pid).value_or(wall_.count());
    if (cpu >= wall_.count()) {
      ::kill(pid, SIGKILL);
      c.killed = true;
      return;
    }
    const std::chrono::duration<double> left(std::max(wall_.count() - cpu, 0.05));
    c.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(left);
  }

  bool reap() {
    bool any = false;
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = children_.find(pid);
      if (it == children_.end()) continue;
      any = true;
      const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!clean) send(out_, lost(it->second, status));
      if (it->second.slot >= 0) hot_.run_ended();
      children_.erase(it);
    }
    return any;
  }

  RunResult lost(const Child& c, int status) const { return lost_run(c.fault.id, c.killed, status, wall_.count()); }

  const GoldenRun& g_;
  const EngineOptions& opt_;
  int out_;
  std::chrono::duration<double> wall_;
  std::map<pid_t, Child> children_;
  HotPages hot_;
};

}  // namespace

std::optional<uint64_t> event_instant(const GoldenRun& g, const std::vector<uint64_t>& transactions, const Fault& f) {
  auto nth = [&](const std::vector<uint64_t>& v) -> std::optional<uint64_t> {
    if (f.count == 0 || f.count > v.size()) return std::nullopt;
    return v[f.count - 1];
  };
  std::optional<uint64_t> t;
  if (f.event == "block_dispatch") {
    t = nth(g.dispatch_ps);
    if (t) ++*t;
  } else if (f.event == fmt::format("warp_instruction:sm{}", g.issue_sm)) {
    t = nth(g.issue_ps);
    if (t) ++*t;
  } else if (f.event == kInstOutputEvent) {
    // One cycle before the instruction issues: the fork meets the SM before it (its horizon), and
    // the observer the run arms strikes at the instruction itself.
    const auto t_io = parse_inst_output_target(f.target);
    const InstOccurrences* o = t_io ? find_occurrences(g, *t_io) : nullptr;
    if (o) t = nth(o->ps);
    if (t) *t = *t >= g.period_ps ? *t - g.period_ps : 0;
  } else if (!transactions.empty() && f.target.rfind("bus:" + f.event + ".", 0) == 0) {
    t = nth(transactions);
    if (t && *t > 0) --*t;
  }
  return t;
}

namespace {
// Gives each event-triggered fault its instant; reports those whose event never occurs (never
// applied: an error of the tool, never masked) and drops them. In place: a fault list may be large.
void resolve_instants(const GoldenRun& golden, std::vector<Fault>& faults,
                      const std::function<void(const RunResult&)>& on_result) {
  const auto transactions = golden.info.value("transaction_ps", std::vector<uint64_t>{});
  auto unresolved = [&](Fault& f) {
    if (is_rate(f) && f.count == 0) {  // no fault in this run: the golden run itself, masked by construction
      RunResult r;
      r.fault_id = f.id;
      r.outcome = Outcome::Masked;
      r.end_ps = golden.end_ps;
      r.kernel_cycles = golden.kernel_cycles;
      r.detail = "0 faults (the Poisson draw of this run): masked by construction, not simulated";
      on_result(r);
      return true;
    }
    if (f.trigger == TriggerKind::Time) return false;
    if (auto t = event_instant(golden, transactions, f)) {
      f.time_ps = *t;
      return false;
    }
    RunResult r;
    r.fault_id = f.id;
    r.detail = fmt::format("fault not applied: the golden run has no occurrence {} of event '{}'", f.count, f.event);
    on_result(r);
    return true;
  };
  faults.erase(std::remove_if(faults.begin(), faults.end(), unresolved), faults.end());
}

// The ids still waiting for a result: sorted, with a done flag each (no node per fault).
class Pending {
 public:
  explicit Pending(const std::vector<Fault>& faults) {
    ids_.reserve(faults.size());
    for (const Fault& f : faults) ids_.push_back(f.id);
    std::sort(ids_.begin(), ids_.end());
    done_.assign(ids_.size(), false);
  }
  // True the first time `id` (one of the faults) is done.
  bool finish(uint64_t id) {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (it == ids_.end() || *it != id || done_[size_t(it - ids_.begin())]) return false;
    done_[size_t(it - ids_.begin())] = true;
    return true;
  }
  bool done(uint64_t id) const { return done_[size_t(std::lower_bound(ids_.begin(), ids_.end(), id) - ids_.begin())]; }

 private:
  std::vector<uint64_t> ids_;
  std::vector<bool> done_;
};
}  // namespace

namespace {
// Faults whose run was killed from outside twice leave the list, still pending in the store: a host
// that keeps killing them must not turn them into outcomes, nor stop the campaign. Returns how many.
size_t drop_killed_twice(std::vector<Fault>& to_run, const std::map<uint64_t, int>& killed_outside) {
  const size_t before = to_run.size();
  to_run.erase(std::remove_if(to_run.begin(), to_run.end(),
                              [&](const Fault& f) {
                                auto it = killed_outside.find(f.id);
                                return it != killed_outside.end() && it->second >= 2;
                              }),
               to_run.end());
  return before - to_run.size();
}
}  // namespace

void run_faults(const JobFactory& make, const GoldenRun& golden, std::vector<Fault> to_run,
                const EngineOptions& opt, const std::function<void(const RunResult&)>& on_result,
                const std::function<void()>& before_fork, const std::function<void()>& after_batch) {
  resolve_instants(golden, to_run, on_result);
  // By instant, then id: in place (std::stable_sort would want a second list as large).
  std::sort(to_run.begin(), to_run.end(),
            [](const Fault& a, const Fault& b) { return std::tie(a.time_ps, a.id) < std::tie(b.time_ps, b.id); });
  int leaders_lost = 0;
  std::map<uint64_t, int> killed_outside;  // fault id -> runs killed by a signal from outside
  size_t left_pending = 0;
  while (!to_run.empty()) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
    if (before_fork) before_fork();
    const pid_t self = ::getpid();
    pid_t leader = fork_clean();
    if (leader == 0) {
      die_with_parent(self);
      ::close(fds[0]);
      try {
        auto job = make();
        Leader(golden, opt, fds[1]).run(*job, to_run);
      } catch (const std::exception& e) {
        print_err("gpuvp: campaign leader: {}\n", e.what());
        std::fflush(stderr);
        ::_exit(3);
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    Pending pending(to_run);
    std::string buf;
    char chunk[65536];
    for (;;) {
      ssize_t n = ::read(fds[0], chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      buf.append(chunk, size_t(n));
      size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        RunResult r = from_json(json::parse(buf.substr(0, nl)));
        buf.erase(0, nl + 1);
        if (r.not_run) {  // still pending: the next leader runs it again
          ++killed_outside[r.fault_id];
          continue;
        }
        if (pending.finish(r.fault_id)) on_result(r);
      }
      if (after_batch) after_batch();
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(leader, &status, 0);
    const size_t before = to_run.size();
    to_run.erase(std::remove_if(to_run.begin(), to_run.end(), [&](const Fault& f) { return pending.done(f.id); }),
                 to_run.end());
    left_pending += drop_killed_twice(to_run, killed_outside);
    if (to_run.empty()) break;
    // The leader died with faults left: start another for them; give up if it makes no progress.
    leaders_lost = to_run.size() < before ? 0 : leaders_lost + 1;
    if (leaders_lost >= 3)
      throw std::runtime_error(fmt::format("the campaign leader died {} times without progress ({} faults left)",
                                           leaders_lost, to_run.size()));
  }
  if (left_pending)
    print_err("gpuvp: {} faulty run{} killed from outside the campaign twice (a signal such as SIGKILL from the OOM "
              "killer or a job's memory limit) {} not recorded: `gpuvp campaign resume` runs {} again\n",
              left_pending, left_pending == 1 ? "" : "s", left_pending == 1 ? "is" : "are",
              left_pending == 1 ? "it" : "them");
}

namespace {
// The replay child: the whole run in one process (no leader: waveforms and timeline cover it from the
// start), its result on `fd`; the platform is destroyed before exit so that the waveforms are complete.
[[noreturn]] void replay_child(const JobFactory& make, const GoldenRun& g, const Fault& f, const EngineOptions& opt,
                               const RunOutputs& outs, int fd) {
  RunResult r;
  r.fault_id = f.id;
  try {
    auto job = make();
    PlatformHooks hooks = job->hooks();
    outs.apply(hooks);
    auto p = std::make_unique<Platform>(faulty_run_config(*job), hooks);
    job->attach(*p);
    outs.attach(*p);
    p->start([&](rt::Runtime& rt) { job->run(rt); });
    if (!p->advance_to(f.time_ps)) {
      r.detail = fmt::format("the run ended before the injection instant {} ps", f.time_ps);
    } else {
      r = faulty_run(*p, *job, f, g, opt);
      outs.write(*p, {{"command", "campaign replay"}, {"fault", f.id}});
    }
    p.reset();
  } catch (const std::exception& e) {
    r.outcome = Outcome::ToolError;
    r.detail = fmt::format("replay: {}", e.what());
  }
  send(fd, r);
  std::fflush(nullptr);
  ::_exit(0);
}
}  // namespace

RunResult replay_fault(const JobFactory& make, const GoldenRun& golden, Fault f, const EngineOptions& opt,
                       const std::string& vcd, const std::string& timeline) {
  EngineOptions o = opt;
  o.early_stop = false;  // the whole run, for its waveforms and its output
  std::optional<RunResult> unresolved;
  std::vector<Fault> one{f};
  resolve_instants(golden, one, [&](const RunResult& r) { unresolved = r; });
  if (unresolved) return *unresolved;
  RunOutputs outs;
  outs.vcd = vcd;
  outs.timeline = timeline;
  outs.check();
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  const pid_t self = ::getpid();
  const pid_t pid = fork_clean();
  if (pid == 0) {
    die_with_parent(self);
    ::close(fds[0]);
    replay_child(make, golden, one.front(), o, outs, fds[1]);
  }
  ::close(fds[1]);
  // The same CPU-time watchdog as a campaign's runs: a replayed hang ends as the recorded one did.
  const double wall = watchdog_seconds(golden, o);
  bool killed = false;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (!killed && cpu_seconds(pid).value_or(0) >= wall) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    ::usleep(10000);
  }
  const std::string text = read_all(fds[0]);
  ::close(fds[0]);
  const size_t nl = text.find('\n');
  if (nl == std::string::npos) return lost_run(f.id, killed, status, wall);
  return from_json(json::parse(text.substr(0, nl)));
}

}  // namespace gpuvp::fi
