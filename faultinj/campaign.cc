#include "faultinj/campaign.h"

#include <fcntl.h>
#include <sys/file.h>
#include <malloc.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>

#include "faultinj/app_run.h"
#include "faultinj/campaign_file.h"
#include "faultinj/engine.h"
#include "faultinj/fault_list.h"
#include "faultinj/html_report.h"
#include "faultinj/instruction_output.h"
#include "faultinj/rate_mode.h"
#include "faultinj/lifetimes.h"
#include "faultinj/report.h"
#include "faultinj/run_context.h"
#include "faultinj/saboteur.h"

#include <SQLiteCpp/Exception.h>
#include "faultinj/sizing.h"
#include "faultinj/store.h"
#include "platform/output_file.h"
#include "platform/text.h"
#include "platform/user_file.h"

namespace gpuvp::fi {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_text(const std::string& path) {
  return read_user_file(path, "campaign file");
}

std::string hex(uint64_t v) { return fmt::format("{:016x}", v); }

std::string build_id() { return fmt::format("gpuvp {} {} (gcc {})", __DATE__, __TIME__, __VERSION__); }

// Every message names the campaign file (Config::set's through its origin argument).
Config config_of(const CampaignSpec& spec, const std::vector<std::string>& logs = {}) {
  auto named = [&](const char* key, auto&& f) {
    try {
      return f();
    } catch (const ConfigError& e) {
      throw CampaignError(fmt::format("{}: {}: {}", spec.origin, key, e.what()));
    }
  };
  Config c = named("platform.preset", [&] { return Config::preset(spec.preset); });
  for (auto& [key, value] : spec.set.items()) c.set(key, value, spec.origin + ": platform.set");
  if (!logs.empty()) {  // a replay's --log: what the run prints, never what it computes
    std::string modules = c.s("log.modules");
    for (const std::string& l : logs) modules += (modules.empty() ? "" : ",") + l;
    c.set("log.modules", modules, "--log");
  }
  named("platform", [&] {
    c.validate();
    return 0;
  });
  return c;
}

// SMs named by the trigger or a target glob ("gpu.sm5.regs") must exist: otherwise the glob would
// match nothing, or only less than the user meant.
void check_sms(const CampaignSpec& spec) {
  const int64_t sms = config_of(spec).i("sm.count");
  auto must_exist = [&](uint64_t sm, const std::string& what) {
    if (sm >= uint64_t(sms))
      throw CampaignError(fmt::format("{}: {}: the platform has {} SM{}", spec.origin, what, sms, sms == 1 ? "" : "s"));
  };
  if (spec.trigger.event == "warp_instruction") must_exist(spec.trigger.sm, fmt::format("trigger.sm = {}", spec.trigger.sm));
  if (spec.inst_output)
    must_exist(spec.inst_output->sm, fmt::format("instruction_output.sm = {}", spec.inst_output->sm));
  if (spec.rate) must_exist(spec.rate->sm, fmt::format("rate.sm = {}", spec.rate->sm));
  static const std::regex named_sm(R"(^gpu\.sm([0-9]{1,9})(\.|$))");
  std::smatch m;
  for (const std::string& t : spec.targets)
    if (std::regex_search(t, m, named_sm)) must_exist(std::stoull(m[1].str()), "targets: " + t);
}

// The job of a campaign; an exec launch's relative PTX path is relative to `base_dir`.
JobFactory plain_job_factory(const CampaignSpec& spec, const std::string& base_dir, const std::vector<std::string>& logs) {
  Config cfg = config_of(spec, logs);
  if (spec.workload) {
    WorkloadSpec w = *spec.workload;
    try {
      workload_job(cfg, w.name, w.launch, w.seed);  // unknown names fail here, before any fork
    } catch (const ConfigError& e) {
      throw CampaignError(fmt::format("{}: {}", spec.origin, e.what()));  // it names the workload
    }
    return [cfg, w] { return workload_job(cfg, w.name, w.launch, w.seed); };
  }
  // Paths in the launch are the campaign file's neighbours; a campaign compares outputs and writes none.
  const ExecSource src{spec.origin + ": exec", base_dir, "", false};
  exec_job(cfg, *spec.exec, src);
  return [cfg, desc = *spec.exec, src] { return exec_job(cfg, desc, src); };
}

// An application's runs are processes of their own (faultinj/app_run.h): no job to build.
JobFactory job_factory(const CampaignSpec& spec, const std::string& base_dir, const std::vector<std::string>& logs = {}) {
  if (spec.application) return {};
  check_sms(spec);
  JobFactory make = plain_job_factory(spec, base_dir, logs);
  if (!spec.bus) return make;
  parse_bus_field(spec.bus->field);
  return [make, bus = *spec.bus] { return with_saboteur(make(), bus.link, bus.field); };
}

std::vector<TargetInfo> target_infos(const GoldenRun& g) {
  std::vector<TargetInfo> v;
  for (auto& t : g.targets) v.push_back({t.name, t.width, t.count});
  return v;
}

// What the campaign process holds per fault while it sets a campaign up and runs it (the fault list
// drawn, then the pending faults read back; measured: about 170 bytes, docs/campaigns.md), with room.
constexpr uint64_t kBytesPerFault = 200;

// MemAvailable of /proc/meminfo in bytes; none where it cannot be read.
std::optional<uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

// Faults to draw from a fault space of `space` points: the count asked for (at most the space), or
// the statistical sample size. A fault list lives in memory: a campaign file asks for at most
// kMaxFaults, and for no more than the memory this machine has available now (refused before
// anything is drawn); larger studies are several files.
constexpr uint64_t kMaxFaults = 10'000'000;
uint64_t sample_size(const CampaignSpec& spec, uint64_t space) {
  const uint64_t n = spec.size.exhaustive ? space
                     : spec.size.count    ? std::min(*spec.size.count, space)
                                          : leveugle_sample_size(double(space), spec.size.margin, spec.size.t, spec.size.p);
  const std::string asked = spec.size.exhaustive ? std::string("size.exhaustive = true")
                            : spec.size.count    ? fmt::format("size.count = {}", *spec.size.count)
                                                 : fmt::format("size.margin = {}", spec.size.margin);
  const char* fix = spec.size.exhaustive ? "select fewer targets or a shorter window"
                    : spec.size.count    ? "lower size.count"
                                         : "widen size.margin";
  if (n > kMaxFaults)
    throw CampaignError(fmt::format("{}: {}: {} faults, at most {} per campaign file ({})", spec.origin, asked, n,
                                    kMaxFaults, fix));
  const uint64_t need = n * kBytesPerFault;
  if (auto avail = mem_available(); avail && need > *avail)
    throw CampaignError(fmt::format("{}: {}: {} faults need about {} MB of memory (about {} bytes a fault); this "
                                    "machine has {} MB available (MemAvailable, /proc/meminfo): {}",
                                    spec.origin, asked, n, need >> 20, kBytesPerFault, *avail >> 20, fix));
  return n;
}

// The faults of a bus campaign: transaction k (uniform over the golden run's transactions on the
// link) and a bit of the field; each forks just before its transaction's instant.
std::vector<Fault> bus_faults(const CampaignSpec& spec, const GoldenRun& g, uint64_t& space) {
  const auto times = g.info.value("transaction_ps", std::vector<uint64_t>{});
  if (times.empty())
    throw CampaignError(fmt::format("{}: bus.link {}: no transaction crossed it in the golden run", spec.origin,
                                    spec.bus->link));
  const BusField field = parse_bus_field(spec.bus->field);
  std::vector<TargetInfo> t{{target_name(spec.bus->link, field), bus_field_bits(field), 1}};
  space = fault_space_size(t, 0, times.size(), 1);
  const uint64_t n = sample_size(spec, space);
  std::vector<Fault> faults = make_fault_list(t, spec.fault, 0, times.size(), 1, n, spec.seed);
  for (Fault& f : faults) {
    f.trigger = TriggerKind::Event;
    f.event = spec.bus->link;
    f.count = f.time_ps + 1;
    f.time_ps = times[f.time_ps] > 0 ? times[f.time_ps] - 1 : 0;
  }
  return faults;
}

// Occurrences of the trigger's event in the golden run (instants, ps), for event triggers.
const std::vector<uint64_t>& trigger_events(const CampaignSpec& spec, const GoldenRun& g) {
  const std::vector<uint64_t>& v = spec.trigger.event == "block_dispatch" ? g.dispatch_ps : g.issue_ps;
  if (v.empty())
    throw CampaignError(fmt::format("{}: trigger.event {}: no occurrence in the golden run", spec.origin,
                                    spec.trigger.event));
  return v;
}

// Faults at the n-th occurrence of an event: n uniform over the golden run's occurrences; the
// fault strikes just after it (1 ps later: the instruction has executed, the batch is dispatched).
std::vector<Fault> event_faults(const CampaignSpec& spec, const GoldenRun& g, const std::vector<TargetInfo>& targets,
                                uint64_t& space) {
  const std::vector<uint64_t>& ev = trigger_events(spec, g);
  space = fault_space_size(targets, 0, ev.size(), 1);
  const uint64_t n = sample_size(spec, space);
  std::vector<Fault> faults = make_fault_list(targets, spec.fault, 0, ev.size(), 1, n, spec.seed);
  const std::string name = spec.trigger.event == "block_dispatch"
                               ? "block_dispatch"
                               : fmt::format("warp_instruction:sm{}", spec.trigger.sm);
  for (Fault& f : faults) {
    f.trigger = TriggerKind::Event;
    f.event = name;
    f.count = f.time_ps + 1;
    f.time_ps = ev[f.time_ps] + 1;
  }
  return faults;
}

// Register-file targets keep the words the golden run's kernels allocated (with allocated_only; an
// application's golden run, reported by the library, records no allocation and keeps every word). A
// register file with none selected (an idle SM under gpu.sm*.regs) leaves the selection; only a
// selection left without any register-file word is refused.
void keep_allocated(const CampaignSpec& spec, const GoldenRun& g, std::vector<TargetInfo>& targets) {
  if (!spec.allocated_only || g.reg_allocs.empty()) return;
  std::vector<std::string> empty;
  bool kept_regs = false;
  for (TargetInfo& t : targets) {
    const std::optional<unsigned> sm = regs_target_sm(t.name);
    if (!sm) continue;
    const WordRanges all = t.ranges.empty() ? WordRanges{{0, t.count}} : t.ranges;
    t.ranges = intersect(all, allocated_words(g, *sm));
    if (t.ranges.empty()) empty.push_back(t.name);
    else kept_regs = true;
  }
  if (empty.empty()) return;
  if (!kept_regs)
    throw CampaignError(fmt::format("{}: targets: no word of {} that they select was allocated by a kernel in the "
                                    "golden run (set \"allocated_only\": false to draw over the whole register file)",
                                    spec.origin, fmt::join(empty, ", ")));
  targets.erase(std::remove_if(targets.begin(), targets.end(),
                               [](const TargetInfo& t) { return regs_target_sm(t.name) && t.ranges.empty(); }),
                targets.end());
}

// The targets (and their words) a campaign on registered state draws from.
std::vector<TargetInfo> drawn_targets(const CampaignSpec& spec, const GoldenRun& g) {
  std::vector<TargetInfo> targets;
  try {
    targets = select_targets(target_infos(g), spec.targets, spec.exclude);
  } catch (const std::invalid_argument& e) {
    throw CampaignError(fmt::format("{}: {}", spec.origin, e.what()));  // exit 2, naming the file and the glob
  }
  keep_allocated(spec, g, targets);
  return targets;
}

// The instants [from, to) whose clock edges a time-triggered campaign draws: its window, else the
// golden run's execution window.
std::pair<uint64_t, uint64_t> drawn_window(const CampaignSpec& spec, const GoldenRun& g) {
  if (!spec.window) return {g.start_ps, g.end_ps};
  const uint64_t from = spec.window->from_ns * 1000, to = spec.window->to_ns * 1000;
  if (to > g.sim_end_ps)
    throw CampaignError(fmt::format("{}: window.to_ns = {} is after the end of the golden run ({} ns)", spec.origin,
                                    spec.window->to_ns, g.sim_end_ps / 1000));
  return {from, to};
}

// The faults of a campaign on registered state: targets x bits x clock edges of the window.
std::vector<Fault> state_faults(const CampaignSpec& spec, const GoldenRun& g, std::vector<TargetInfo>& targets,
                                uint64_t& space) {
  targets = drawn_targets(spec, g);
  if (spec.trigger.event != "time") return event_faults(spec, g, targets, space);
  const auto [from, to] = drawn_window(spec, g);
  space = fault_space_size(targets, from, to, g.period_ps);
  const uint64_t n = sample_size(spec, space);
  return make_fault_list(targets, spec.fault, from, to, g.period_ps, n, spec.seed);
}

// The faults of an instruction-output campaign: instruction n (uniform over the golden run's
// instructions of the group on the SM) x lane selector (32 for one lane, 1 warp-level) x bit in
// [0, 64) (applied modulo the destination's width), drawn distinct as any fault list; random_value's
// values from a second stream of the seed. Each forks just before its instruction.
std::vector<Fault> inst_output_faults(const CampaignSpec& spec, const GoldenRun& g, std::vector<TargetInfo>& targets,
                                      uint64_t& space) {
  const InstOutputTarget where{spec.inst_output->sm, parse_inst_group(spec.inst_output->group)};
  const InstOccurrences* o = find_occurrences(g, where);
  if (!o || o->seq.empty())
    throw CampaignError(fmt::format("{}: instruction_output: SM {} executed no {} instruction in the golden run",
                                    spec.origin, where.sm, spec.inst_output->group));
  targets = {{inst_output_target(where), 64, spec.inst_output->warp ? 1 : kWarpLevel}};
  const uint64_t m = o->seq.size();
  space = fault_space_size(targets, 0, m, 1);
  std::vector<Fault> faults = make_fault_list(targets, spec.fault, 0, m, 1, sample_size(spec, space), spec.seed);
  SplitMix64 values(spec.seed ^ 0x696e73745f6f7574);  // "inst_out": independent of the list's stream
  for (Fault& f : faults) {
    f.trigger = TriggerKind::Event;
    f.event = kInstOutputEvent;
    f.count = f.time_ps + 1;
    f.time_ps = o->ps[f.time_ps];
    if (spec.inst_output->warp) f.index = kWarpLevel;
    if (f.model == FaultModel::RandomValue) f.mask = values.next();
  }
  return faults;
}

// The runs of a rate campaign (rate_mode.h): size.count runs, each with its Poisson number of faults.
// The FIT bit count is the register file's (the unit results are not storage).
std::vector<Fault> rate_campaign_faults(const CampaignSpec& spec, const GoldenRun& g, std::vector<TargetInfo>& targets,
                                        uint64_t& space) {
  if (!spec.size.count)
    throw CampaignError(fmt::format("{}: size: a rate campaign gives its number of runs as size.count", spec.origin));
  const double mean = rate_mean(*spec.rate, g.kernel_cycles);
  if (mean > 500)
    throw CampaignError(fmt::format("{}: rate.per_million_cycles = {}: {:.1f} faults per run over the golden run's {} "
                                    "kernel cycles, more than 500",
                                    spec.origin, spec.rate->per_million_cycles, mean, g.kernel_cycles));
  const std::string regs = fmt::format("gpu.sm{}.regs", spec.rate->sm);
  for (const TargetDesc& t : g.targets)
    if (t.name == regs) targets = {{t.name, t.width, t.count}};
  if (!targets.empty() && spec.allocated_only) targets[0].ranges = allocated_words(g, spec.rate->sm);
  space = *spec.size.count;
  try {
    RateSpec r = *spec.rate;
    r.whole_regfile = !spec.allocated_only;
    return rate_faults(r, g, sample_size(spec, space), spec.seed);
  } catch (const std::invalid_argument& e) {
    throw CampaignError(fmt::format("{}: rate: {}", spec.origin, e.what()));
  }
}

// The (SM, group) pairs whose instructions the golden run records: the campaign's, or those its
// listed faults name.
std::vector<InstOutputTarget> inst_targets(const CampaignSpec& spec) {
  std::vector<InstOutputTarget> out;
  auto add = [&](const InstOutputTarget& t) {
    for (const InstOutputTarget& o : out)
      if (o.sm == t.sm && o.group == t.group) return;
    out.push_back(t);
  };
  if (spec.inst_output) add({spec.inst_output->sm, parse_inst_group(spec.inst_output->group)});
  if (spec.rate)
    for (const InstOutputTarget& t : rate_inst_targets(*spec.rate)) add(t);
  if (spec.listed_faults)
    for (const Fault& f : *spec.listed_faults)
      if (auto t = parse_inst_output_target(f.target)) add(*t);
  return out;
}

// The targets a campaign injects: its globs' selection, or those its listed faults name.
std::set<std::string> selected_names(const CampaignSpec& spec, const GoldenRun& g, const std::vector<Fault>& pending) {
  std::set<std::string> names;
  if (spec.targets.empty()) {
    for (const Fault& f : pending) names.insert(f.target);
    return names;
  }
  for (const TargetInfo& t : select_targets(target_infos(g), spec.targets, spec.exclude)) names.insert(t.name);
  return names;
}

// An exhaustive campaign simulates one fault per class (lifetimes.h): at most this many.
constexpr uint64_t kMaxExhaustiveRuns = 200'000;

// Refuses an exhaustive campaign whose fault space falls into too many classes to simulate, with the
// estimate: the runs it would make and their CPU time (each run at most the golden run's).
void check_exhaustive(const CampaignSpec& spec, const GoldenRun& g, const std::vector<Fault>& faults) {
  uint64_t runs = faults.size();
  if (spec.pruning) runs = plan_pruning(faults, Lifetimes(g, selected_names(spec, g, faults)), g).to_run.size();
  if (runs <= kMaxExhaustiveRuns) return;
  throw CampaignError(fmt::format(
      "{}: size.exhaustive: the {} points of the fault space fall into {} classes to simulate{} (at most {} per "
      "campaign; about {:.2f} CPU-hours at {:.3f} s a run): select fewer targets or a shorter window, or sample "
      "(size.count)",
      spec.origin, faults.size(), runs, spec.pruning ? "" : " (pruning is off: one run per point)", kMaxExhaustiveRuns,
      double(runs) * g.host_seconds / 3600, g.host_seconds));
}

// Golden checkpoints for early stops, spread over the run from the kernel's start.
constexpr unsigned kCheckpoints = 64;

// The SM whose warp instructions the golden run records: the trigger's, or the one a listed fault's
// event names ("warp_instruction:sm3"); a list naming two SMs is refused (one SM's issues are recorded).
int issues_sm(const CampaignSpec& spec) {
  if (!spec.listed_faults) return spec.trigger.event == "warp_instruction" ? int(spec.trigger.sm) : -1;
  int sm = -1;
  static const std::regex warp_event(R"(^warp_instruction:sm([0-9]{1,2})$)");
  std::smatch m;
  for (const Fault& f : *spec.listed_faults) {
    if (f.trigger != TriggerKind::Event || !std::regex_match(f.event, m, warp_event)) continue;
    const int k = std::stoi(m[1].str());
    if (sm >= 0 && k != sm)
      throw CampaignError(fmt::format("{}: faults: events of warp instructions of SMs {} and {}; one SM per campaign",
                                      spec.origin, sm, k));
    sm = k;
  }
  return sm;
}

// The golden run must succeed: when it does not, the campaign asks for something the platform cannot
// run (an unknown link, a kernel that is not in the PTX, PTX the toolchain refuses): the file's error.
GoldenRun golden_of(const JobFactory& make, const CampaignSpec& spec, const std::string& origin) {
  if (spec.application) return run_app_golden(spec, spec.check.base_dir);
  try {
    return run_golden(make, issues_sm(spec), spec.check, inst_targets(spec));
  } catch (const std::runtime_error& e) {
    throw CampaignError(fmt::format("{}: {}", origin, e.what()));
  }
}

// Whether a new store may be created at `path`: false when nothing is there; true when something is;
// a path that cannot even be looked at (a folder the user cannot enter, a symlink loop, a name too
// long) is an error naming it, exit 2.
bool path_taken(const std::string& path) {
  std::error_code ec;
  const auto st = fs::symlink_status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw StoreError(fmt::format("{}: cannot create a store there: {}", path, ec.message()));
  return !ec && st.type() != fs::file_type::not_found;
}

// An output path that would overwrite a store the command reads (or its WAL/SHM files) is refused.
void refuse_overwriting(const std::string& out, const std::vector<std::string>& stores, const char* what) {
  std::error_code ec;
  for (const std::string& db : stores)
    for (const char* side : {"", "-wal", "-shm", "-journal"})
      if (fs::exists(out, ec) && fs::equivalent(out, db + side, ec))
        throw CampaignError(fmt::format("{}: {} would overwrite the store {}", out, what, db + side));
}

// Runs a command on stores: what SQLite or the store's contents refuse (a dropped table, an unknown
// outcome name) is an error of the stores named, not of the tool.
template <class F>
int on_stores(const std::vector<std::string>& dbs, F&& f) {
  try {
    return f();
  } catch (const SQLite::Exception& e) {
    std::string names;
    for (auto& d : dbs) names += (names.empty() ? "" : ", ") + d;
    throw StoreError(fmt::format("{}: not a readable campaign store ({})", names, e.what()));
  } catch (const std::invalid_argument& e) {
    std::string names;
    for (auto& d : dbs) names += (names.empty() ? "" : ", ") + d;
    throw StoreError(fmt::format("{}: {}", names, e.what()));
  }
}

std::string dir_of(const std::string& path) {
  fs::path p = fs::absolute(path).parent_path();
  return p.string();
}

// `campaign run` and `resume` own their store for their whole life: an exclusive POSIX record lock on
// DB.lock, a file beside it (not the store itself, whose POSIX locks are SQLite's). A record lock
// belongs to this process alone: the forked leader and faulty runs do not hold it, so the moment this
// process dies (kill -9 included) another may take the store.
class StoreLock {
 public:
  explicit StoreLock(const std::string& db) {
    const std::string path = db + ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw StoreError(fmt::format("{}: cannot create its lock file {}: {}", db, path, std::strerror(errno)));
    struct flock want = whole_file(F_WRLCK);
    if (::fcntl(fd_, F_SETLK, &want) != 0) {
      const int err = errno;
      struct flock held = whole_file(F_WRLCK);
      const bool known = ::fcntl(fd_, F_GETLK, &held) == 0 && held.l_type != F_UNLCK;
      ::close(fd_);
      if (err == EACCES || err == EAGAIN)
        throw StoreError(fmt::format("{}: another process{} owns the store (a campaign run or resume); wait for it to "
                                     "end or stop it", db, known ? fmt::format(" (pid {})", held.l_pid) : ""));
      throw StoreError(fmt::format("{}: cannot lock {}: {}", db, path, std::strerror(err)));
    }
  }
  ~StoreLock() { ::close(fd_); }
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  static struct flock whole_file(short type) {
    struct flock f {};
    f.l_type = type;
    f.l_whence = SEEK_SET;
    return f;  // l_start = l_len = 0: the whole file
  }

  int fd_ = -1;
};

// What a new store holds from the start.
struct NewStore {
  CampaignInfo info;
  ShardInfo shard;
  GoldenRecord golden;
  std::string base_dir;          // the campaign file's folder: relative paths in it resolve there
  std::vector<RunRecord> runs;   // merges: every run of the shards
  std::string lifetimes;         // merges: the shards' meta `lifetimes` (their golden run's, the same in each)
};

// A store appears whole or not at all: written as DB.tmp-PID, closed (so its WAL is folded in), then
// renamed. One that exists always has its whole fault list; any failure (disk full) names the store.
void create_store(const std::string& db, const NewStore& s, const std::vector<Fault>& faults) {
  const std::string tmp = fmt::format("{}.tmp-{}", db, ::getpid());
  auto remove_tmp = [&] {
    std::error_code ec;
    for (const char* side : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + side, ec);
  };
  try {
    {
      Store st = Store::create(tmp, s.info);
      st.set_shard(s.shard);
      st.set_golden(s.golden);
      st.add_faults(faults);
      if (!s.runs.empty()) st.add_runs(s.runs);
      st.set_meta("base_dir", s.base_dir);
      st.set_meta("complete", "1");
      if (!s.lifetimes.empty()) st.set_meta("lifetimes", s.lifetimes);
    }
    fs::rename(tmp, db);
  } catch (const std::exception& e) {
    remove_tmp();
    throw StoreError(fmt::format("{}: cannot create the store: {}", db, e.what()));
  }
}

// A store for reading only (report, export, merge's inputs); a run without its fault is a damaged
// store, named, never a wrong table.
Store open_for_reading(const std::string& path) {
  Store st = Store::open_read_only(path);
  if (auto id = st.run_without_fault())
    throw StoreError(fmt::format("{}: damaged store: the run of fault {} has no fault row", path, *id));
  return st;
}

unsigned workers_of(const CampaignOptions& opt, const CampaignSpec& spec) {
  if (opt.workers) return opt.workers;
  if (spec.workers) return spec.workers;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Live progress: a rewritten line on a terminal, one line a minute otherwise.
class Progress {
 public:
  Progress(uint64_t done, uint64_t total, bool quiet)
      : done_(done), start_done_(done), total_(total), quiet_(quiet), tty_(::isatty(STDERR_FILENO)) {}

  void add(Outcome o) {
    ++done_;
    ++counts_[static_cast<int>(o)];
    const auto now = Clock::now();
    if (quiet_) return;
    if (tty_ ? now - last_ >= std::chrono::milliseconds(200) || done_ == total_ : now - last_ >= std::chrono::minutes(1)) {
      last_ = now;
      std::fprintf(stderr, tty_ ? "\r%s\033[K" : "%s\n", line().c_str());
      std::fflush(stderr);
    }
  }
  void end() const {
    if (!quiet_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  std::string line() const {
    const double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    const double rate = s > 0 ? double(done_ - start_done_) / s : 0;
    const double eta = rate > 0 ? double(total_ - done_) / rate : 0;
    std::string c;
    for (int i = 0; i < kOutcomeCount; ++i)
      if (counts_[i]) c += fmt::format(" {} {}", to_string(static_cast<Outcome>(i)), counts_[i]);
    return fmt::format("campaign: {}/{} runs, {:.0f} runs/s, ETA {:.0f} s |{}", done_, total_, rate, eta, c);
  }

  uint64_t done_, start_done_, total_;
  bool quiet_, tty_;
  uint64_t counts_[kOutcomeCount] = {};
  Clock::time_point t0_ = Clock::now(), last_ = Clock::time_point{};
};

RunRecord record_of(const RunResult& r, int shard) {
  RunRecord rec;
  rec.shard = shard;
  rec.fault_id = r.fault_id;
  rec.outcome = r.outcome;
  rec.due_kind = r.due;
  rec.detail = r.detail;
  rec.end_ps = r.end_ps;
  rec.kernel_cycles = r.kernel_cycles;
  rec.early_stop = r.early_stop;
  rec.host_ms = r.host_ms;
  return rec;
}

// The population a campaign draws its faults from, for the ACE figures beside its AVF: its targets'
// drawn words (a register file's allocated words, index ranges) over its window; rate mode's register
// file (allocated words) over the execution window; a list's targets whole (it draws nothing).
FaultSpace fault_space(const CampaignSpec& spec, const GoldenRun& g, const std::vector<Fault>& pending) {
  FaultSpace s;
  std::tie(s.from_ps, s.to_ps) = drawn_window(spec, g);
  if (!spec.targets.empty()) {
    s.targets = drawn_targets(spec, g);
    return s;
  }
  std::set<std::string> names = selected_names(spec, g, pending);
  if (spec.rate) names.insert(fmt::format("gpu.sm{}.regs", spec.rate->sm));
  for (const TargetInfo& t : target_infos(g))
    if (names.count(t.name)) s.targets.push_back(t);
  if (spec.rate && spec.allocated_only)
    for (TargetInfo& t : s.targets)
      if (regs_target_sm(t.name) == spec.rate->sm) t.ranges = allocated_words(g, spec.rate->sm);
  return s;
}

// At most this many runs wait for a commit (memory, and what a killed campaign runs again).
constexpr size_t kCommitBatch = 4096;

// Runs the store's pending faults. The store is closed while processes are forked, reopened to
// commit the runs as they arrive. With pruning, faults in dead intervals are committed first (Masked,
// never run) and a fault sharing a live interval with another is committed with that one's run.
// `g` loses its access log (GoldenRun::accesses) once the faults are placed.
void execute(const std::string& db, const JobFactory& make, GoldenRun& g, const CampaignSpec& spec,
             const CampaignOptions& opt) {
  PrunePlan plan;  // only what is pending: the one copy of the fault list in memory
  uint64_t total = 0;
  int shard = 0;
  // Each fault's launch and instruction class, from the golden run (ids in order: pending_faults()),
  // taken before pruning so that pruned and shared runs have theirs too.
  const RunContexts contexts(g);
  std::vector<std::pair<uint64_t, FaultContext>> context_of;
  {
    Store st = Store::open(db);
    total = st.fault_count();
    if (auto sh = st.shard()) shard = static_cast<int>(sh->index);
    plan.to_run = st.pending_faults();
    context_of.reserve(plan.to_run.size());
    for (const Fault& f : plan.to_run) context_of.emplace_back(f.id, contexts.of(f));
    const FaultSpace space = fault_space(spec, g, plan.to_run);
    std::set<std::string> selected;
    for (const TargetInfo& t : space.targets) selected.insert(t.name);
    const Lifetimes lifetimes(g, selected);
    st.set_meta("lifetimes", lifetimes_summary(lifetimes, g, spec.pruning, space).dump());
    if (spec.pruning) plan = plan_pruning(std::move(plan.to_run), lifetimes, g);
  }
  // Every faulty run is forked from a copy of this process, and a fork costs in proportion to the
  // memory mapped (its page tables are copied, its pages faulted in again when written): the access log
  // and the lifetimes indexed from it served the pruning, give their memory back to the system.
  AccessLog().swap(g.accesses);
  ::malloc_trim(0);
  uint64_t pending = plan.to_run.size() + plan.dead.size();
  for (auto& [rep, ids] : plan.followers) pending += ids.size();
  Progress progress(total - pending, total, opt.quiet);
  std::optional<Store> st;
  EngineOptions eo;
  eo.workers = workers_of(opt, spec);
  eo.timeout_factor = spec.timeout_factor;
  eo.early_stop = spec.early_stop;
  eo.check = spec.check;
  // Runs are committed in batches, one transaction each: the pruned ones together, then what each
  // read of the results pipe brought (a commit per run cost more than a pruned run itself).
  std::vector<RunRecord> batch;
  auto flush = [&] {
    if (batch.empty()) return;
    if (!st) st.emplace(Store::open(db));
    st->add_runs(batch);
    for (const RunRecord& rec : batch) progress.add(rec.outcome);
    batch.clear();
  };
  auto commit = [&](const RunResult& r) {
    RunRecord rec = record_of(r, shard);
    auto it = std::lower_bound(context_of.begin(), context_of.end(), std::make_pair(r.fault_id, FaultContext{}),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    if (it != context_of.end() && it->first == r.fault_id) {
      rec.kernel = contexts.kernel(it->second);
      rec.inst_class = RunContexts::inst_class(it->second);
      contexts.reg_place(it->second, rec);
    }
    batch.push_back(std::move(rec));
    if (batch.size() >= kCommitBatch) flush();
  };
  for (const RunResult& r : plan.dead) commit(r);
  plan.dead = {};
  flush();
  auto commit_shared = [&](const RunResult& r) {
    commit(r);
    auto it = plan.followers.find(r.fault_id);
    if (it == plan.followers.end()) return;
    for (uint64_t id : it->second) commit(shared_result(r, id));
  };
  if (spec.application) {
    const std::string route = run_app_faults(spec, spec.check.base_dir, g, plan.to_run, eo.workers,
                                             [&](const RunResult& r) {
                                               commit_shared(r);
                                               flush();
                                             });
    flush();
    if (!st) st.emplace(Store::open(db));
    st->set_meta("application_runs", route);
  } else
    run_faults(make, g, std::move(plan.to_run), eo, commit_shared, [&] {
      flush();
      st.reset();
    }, flush);
  flush();
  progress.end();
}

GoldenRecord record_of(const GoldenRun& g, uint64_t state_bits) {
  GoldenRecord r;
  r.start_ps = g.start_ps;
  r.end_ps = g.end_ps;
  r.sim_end_ps = g.sim_end_ps;
  r.output_hash = hex(g.output_hash);
  r.output_bytes = g.output_bytes;
  r.kernel_cycles = g.kernel_cycles;
  r.host_seconds = g.host_seconds;
  r.state_bits = state_bits;
  nlohmann::json ph = nlohmann::json::array();
  for (auto& p : g.phases) ph.push_back({{"phase", p.phase}, {"start_ps", p.start_ps}});
  r.phases_json = ph.dump();
  return r;
}


void print_summary(const std::string& db) {
  Store st = Store::open(db);
  print_out("{}", text_report(st, std::nullopt));
}

}  // namespace

std::pair<unsigned, unsigned> parse_shard(const std::string& text) {
  auto bad = [&](const char* why) {
    return CampaignError(fmt::format("--shard {}: {}; expected I/N with 1 <= I <= N (e.g. 2/4)", text, why));
  };
  auto number = [&](const std::string& s) -> unsigned {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
      throw bad("not two decimal integers");
    return static_cast<unsigned>(std::stoul(s));
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad("no '/'");
  const unsigned i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (n == 0) throw bad("N must be at least 1");
  if (i == 0 || i > n) throw bad("I out of range");
  return {i, n};
}

namespace {
// A campaign file read and made ready to run: its golden run and whole fault list.
struct Prepared {
  std::string text;
  CampaignSpec spec;
  JobFactory make;
  GoldenRun golden;
  std::vector<TargetInfo> targets;
  std::vector<Fault> faults;
  uint64_t space = 0;
};

// The campaign file's text parsed, its check command's relative path resolved from `base_dir`.
CampaignSpec spec_of(const std::string& text, const std::string& origin, const std::string& base_dir) {
  CampaignSpec spec = parse_campaign_text(text, origin);
  spec.check.base_dir = base_dir;
  return spec;
}

// A check command must accept the golden output compared with itself (exit 0): one that does not is
// broken, and would turn every differing run into a wrong outcome. Found before anything is stored.
void check_command_accepts_golden(const CampaignSpec& spec, const GoldenRun& g) {
  if (spec.check.command.empty()) return;
  std::vector<uint8_t> out;
  for (const GoldenOutput& o : g.outputs) out.insert(out.end(), o.bytes.begin(), o.bytes.end());
  const CheckVerdict v = run_check_command(spec.check, out, out);
  if (v.outcome != Outcome::Tolerable)
    throw CampaignError(fmt::format("{}: check.command: given the golden output twice it did not exit 0: {}",
                                    spec.origin, v.detail));
}

// A listed fault's problem with this platform ("" if none): an unknown target, a word or bit beyond it,
// an instant after the end of the golden run.
std::string listed_fault_problem(const Fault& f, const std::map<std::string, TargetDesc>& reg, const GoldenRun& g) {
  if (auto t = parse_inst_output_target(f.target)) {
    const InstOccurrences* o = find_occurrences(g, *t);
    if (!o || f.event != kInstOutputEvent || f.count == 0 || f.count > o->seq.size())
      return fmt::format("event '{}' count {}: the golden run has {} instructions of {} (event {})", f.event, f.count,
                         o ? o->seq.size() : 0, f.target, kInstOutputEvent);
    if (f.index > kWarpLevel) return fmt::format("idx {}: a lane selector 0..31, or 32 for every active lane", f.index);
    return "";
  }
  auto it = reg.find(f.target);
  if (it == reg.end()) return fmt::format("target '{}' is not a registered target of this platform", f.target);
  const TargetDesc& t = it->second;
  if (f.index >= t.count) return fmt::format("idx {} is beyond {} ({} words)", f.index, f.target, t.count);
  const unsigned top = f.bit + (f.model == FaultModel::MultiBitFlip ? f.nbits : 1);
  if (top > t.width) return fmt::format("bit {} (+{} bits) is beyond {} ({} bits wide)", f.bit, top - f.bit - 1, f.target, t.width);
  if (f.trigger == TriggerKind::Time && f.time_ps >= g.sim_end_ps)
    return fmt::format("time_ps {} is not before the end of the golden run ({} ps)", f.time_ps, g.sim_end_ps);
  return "";
}

// A listed campaign's faults, checked against the golden run's registry; `targets` gets the targets
// they name (their bits are the state bits of FIT).
std::vector<Fault> listed_faults(const CampaignSpec& spec, const GoldenRun& g, std::vector<TargetInfo>& targets) {
  std::map<std::string, TargetDesc> reg;
  for (const TargetDesc& t : g.targets) reg[t.name] = t;
  std::set<std::string> named;
  const std::string where = spec.faults_csv.empty() ? "faults" : spec.faults_csv;
  for (const Fault& f : *spec.listed_faults) {
    const std::string problem = listed_fault_problem(f, reg, g);
    if (!problem.empty()) throw CampaignError(fmt::format("{}: {}: fault {}: {}", spec.origin, where, f.id, problem));
    if (!named.insert(f.target).second) continue;
    if (is_inst_output(f))
      targets.push_back({f.target, 64, 1});
    else
      targets.push_back({f.target, reg[f.target].width, reg[f.target].count});
  }
  return *spec.listed_faults;
}

// Why a campaign has no fault: its window holds no clock edge, or its size comes to 0.
std::string no_faults(const CampaignSpec& spec, const GoldenRun& g, uint64_t space) {
  if (spec.window && space == 0)
    return fmt::format("{}: window.from_ns = {}, window.to_ns = {}: no clock edge (every {} ps) in the window: the "
                       "campaign has no fault", spec.origin, spec.window->from_ns, spec.window->to_ns, g.period_ps);
  return fmt::format("{}: size: 0 faults from a fault space of {} points: the campaign has no fault", spec.origin, space);
}

Prepared prepare(const std::string& file) {
  Prepared p;
  p.text = read_text(file);
  p.spec = spec_of(p.text, file, dir_of(file));
  if (!p.spec.faults_csv.empty()) {
    const fs::path csv = fs::path(dir_of(file)) / p.spec.faults_csv;
    p.spec.listed_faults = read_fault_csv(fs::path(p.spec.faults_csv).is_absolute() ? p.spec.faults_csv : csv.string());
  }
  p.make = job_factory(p.spec, dir_of(file));
  p.golden = golden_of(p.make, p.spec, file);
  check_command_accepts_golden(p.spec, p.golden);
  const CampaignSpec& spec = p.spec;
  if (spec.listed_faults) {
    p.faults = listed_faults(spec, p.golden, p.targets);
    p.space = p.faults.size();
    return p;
  }
  if (spec.rate)
    p.faults = rate_campaign_faults(spec, p.golden, p.targets, p.space);
  else if (spec.inst_output)
    p.faults = inst_output_faults(spec, p.golden, p.targets, p.space);
  else
    p.faults = spec.bus ? bus_faults(spec, p.golden, p.space) : state_faults(spec, p.golden, p.targets, p.space);
  if (p.faults.empty()) throw CampaignError(no_faults(spec, p.golden, p.space));
  if (spec.size.exhaustive) check_exhaustive(spec, p.golden, p.faults);
  if (spec.bus) p.targets = {{p.faults[0].target, bus_field_bits(parse_bus_field(spec.bus->field)), 1}};
  return p;
}
}  // namespace

int campaign_check(const std::string& file) {
  Prepared p = prepare(file);
  print_out("{}: campaign '{}' is valid: golden run {} to {} ps ({} kernel cycles), {} faults over {} targets "
             "({} fault-space points)\n",
             file, p.spec.name, p.golden.start_ps, p.golden.end_ps, p.golden.kernel_cycles, p.faults.size(),
             p.targets.size(), p.space);
  return 0;
}

namespace {
// What the store of a prepared campaign holds. Every shard computes the same golden run and the same
// whole fault list, then keeps its part (p.faults loses the others).
NewStore new_store(Prepared& p, const std::string& file, std::optional<std::pair<unsigned, unsigned>> shard) {
  NewStore ns;
  ns.shard.full_fault_count = p.faults.size();
  ns.shard.fault_list_hash = fault_list_hash(p.faults);
  if (shard) {
    const auto [index, count] = *shard;
    ns.shard.index = index;
    ns.shard.count = count;
    auto other = [&](const Fault& f) { return f.id % count != index - 1; };
    p.faults.erase(std::remove_if(p.faults.begin(), p.faults.end(), other), p.faults.end());
  }
  ns.info.name = p.spec.name;
  ns.info.file_text = p.text;
  ns.info.file_hash = hex(hash_bytes(std::vector<uint8_t>(p.text.begin(), p.text.end())));
  ns.info.seed = p.spec.seed;
  ns.info.build_id = build_id();
  ns.golden = record_of(p.golden, total_bits(p.targets));
  ns.base_dir = dir_of(file);
  return ns;
}
}  // namespace

int campaign_run(const std::string& file, const CampaignOptions& opt) {
  std::optional<std::pair<unsigned, unsigned>> shard;
  if (!opt.shard.empty()) shard = parse_shard(opt.shard);
  const std::string stem = fs::path(file).stem().string();
  const std::string db = !opt.db.empty() ? opt.db
                         : shard ? fmt::format("{}.shard{}-of-{}.db", stem, shard->first, shard->second)
                                 : stem + ".db";
  const std::string exists = fmt::format("{}: exists; `gpuvp campaign resume {}` continues it, or remove it", db, db);
  if (path_taken(db)) throw CampaignError(exists);
  Prepared p = prepare(file);  // errors of the file leave nothing behind
  StoreLock lock(db);
  if (path_taken(db)) throw CampaignError(exists);  // made while this one prepared
  const CampaignSpec& spec = p.spec;
  const NewStore ns = new_store(p, file, shard);
  const ShardInfo& sh = ns.shard;
  create_store(db, ns, p.faults);
  if (!opt.quiet)
    print_err("campaign {}{}: {} faults over {} targets ({} fault-space points), store {}\n", spec.name,
              shard ? fmt::format(", shard {} of {} ({} faults in all)", sh.index, sh.count, sh.full_fault_count) : "",
              p.faults.size(), p.targets.size(), p.space, db);
  const bool any = !p.faults.empty();
  std::vector<Fault>().swap(p.faults);  // stored: the store is read back for what is pending
  if (spec.early_stop && any && !spec.application) record_checkpoints(p.make, p.golden, kCheckpoints);
  execute(db, p.make, p.golden, spec, opt);
  if (!opt.quiet) print_summary(db);
  return 0;
}

namespace {
// A campaign continued or replayed must see the golden run it started with.
void check_same_golden(const std::string& db, const GoldenRun& g, const GoldenRecord& stored) {
  if (hex(g.output_hash) != stored.output_hash || g.end_ps != stored.end_ps)
    throw CampaignError(fmt::format("{}: this build's golden run differs from the one the campaign started with "
                                    "(output {} vs {}, end {} vs {} ps)",
                                    db, hex(g.output_hash), stored.output_hash, g.end_ps, stored.end_ps));
}
}  // namespace

int campaign_resume(const std::string& db, const CampaignOptions& opt) {
  return on_stores({db}, [&] {
  Store::open_read_only(db).close();  // a store at all, before its lock file is made beside it
  StoreLock lock(db);
  CampaignSpec spec;
  GoldenRecord stored;
  std::string base_dir = dir_of(db);  // stores written before `meta`: their folder
  {
    Store st = Store::open(db);
    if (auto dir = st.meta("base_dir")) base_dir = *dir;
    spec = spec_of(st.campaign().file_text, db + " (its campaign file)", base_dir);
    auto g = st.golden();
    if (!g) throw StoreError(fmt::format("{}: no golden run recorded (the campaign never started)", db));
    const bool complete = st.meta("complete").has_value();
    // Older builds committed the golden run, then the fault list: a kill between them left no faults.
    if (st.fault_count() == 0 && !complete)
      throw StoreError(fmt::format("{}: no fault list recorded (the campaign was stopped before it started; remove "
                                   "the file and run the campaign again)", db));
    if (st.pending_count() == 0) {
      if (!opt.quiet) print_err("{}: every fault has its run: nothing to do\n", db);
      return 0;
    }
    stored = *g;
    if (spec.lists_faults()) spec.listed_faults = st.faults();  // a CSV's faults, as stored
  }
  JobFactory make = job_factory(spec, base_dir);
  GoldenRun g = golden_of(make, spec, db);
  check_same_golden(db, g, stored);
  if (spec.early_stop && !spec.application) record_checkpoints(make, g, kCheckpoints);
  execute(db, make, g, spec, opt);
  if (!opt.quiet) print_summary(db);
  return 0;
  });
}

int campaign_export(const std::string& db, const std::string& csv, const std::string& json) {
  return on_stores({db}, [&] {
  for (const std::string& out : {csv, json})
    if (!out.empty() && out != "-") {
      refuse_overwriting(out, {db}, "export");
      check_output(out, "export");  // writable now, without blocking (a FIFO with no reader is refused)
    }
  Store st = open_for_reading(db);
  auto write = [&](const std::string& path, bool as_csv) {
    std::ostringstream out;
    const bool to_stdout = path == "-";  // maybe a terminal: nothing there a terminal acts on
    as_csv ? st.export_csv(out) : st.export_json(out, to_stdout);
    if (to_stdout) {
      std::fputs(as_csv ? terminal_safe(out.str()).c_str() : out.str().c_str(), stdout);
      return;
    }
    std::ofstream f(path, std::ios::binary);
    if (!f) throw CampaignError(fmt::format("{}: cannot write", path));
    f << out.str();
    if (!f.flush()) throw CampaignError(fmt::format("{}: cannot write (disk full?)", path));
  };
  if (!csv.empty()) write(csv, true);
  if (!json.empty()) write(json, false);
  if (csv.empty() && json.empty()) write("-", true);
  return 0;
  });
}

namespace {

struct ShardStore {
  std::string path;
  std::string base_dir;
  CampaignInfo info;
  ShardInfo shard;
  GoldenRecord golden;
  std::vector<Fault> faults;
  std::vector<RunRecord> runs;
  uint64_t pending = 0;
  std::string lifetimes;
};

ShardStore read_shard(const std::string& path) {
  Store st = open_for_reading(path);
  ShardStore s;
  s.path = path;
  s.info = st.campaign();
  s.base_dir = st.meta("base_dir").value_or(dir_of(path));
  s.lifetimes = st.meta("lifetimes").value_or("");
  auto sh = st.shard();
  if (!sh || sh->index == 0)
    throw StoreError(fmt::format("{}: not a shard (a whole campaign; `gpuvp campaign run FILE --shard I/N` makes shards)",
                                 path));
  s.shard = *sh;
  auto g = st.golden();
  if (!g || (st.fault_count() == 0 && !st.meta("complete")))  // an empty shard is complete
    throw StoreError(fmt::format("{}: shard {} of {} has no {} (it was stopped before it started; run it again)", path,
                                 sh->index, sh->count, g ? "fault list" : "golden run"));
  s.golden = *g;
  s.faults = st.faults();
  s.runs = st.runs();
  s.pending = st.pending_fault_ids().size();
  for (const Fault& f : s.faults)
    if (f.id % sh->count != sh->index - 1)
      throw StoreError(fmt::format("{}: fault {} does not belong to shard {} of {}", path, f.id, sh->index, sh->count));
  return s;
}

std::string shard_name(const ShardStore& s) {
  return fmt::format("{} (shard {} of {})", s.path, s.shard.index, s.shard.count);
}

// What differs between two shards' campaigns ("" if nothing).
std::string campaign_difference(const ShardStore& a, const ShardStore& b) {
  std::vector<std::string> d;
  auto cmp = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) d.push_back(fmt::format("{} {} vs {}", what, x, y));
  };
  cmp("campaign file hash", a.info.file_hash, b.info.file_hash);
  cmp("seed", std::to_string(a.info.seed), std::to_string(b.info.seed));
  cmp("fault list hash", a.shard.fault_list_hash, b.shard.fault_list_hash);
  cmp("fault count", std::to_string(a.shard.full_fault_count), std::to_string(b.shard.full_fault_count));
  cmp("build id", "'" + a.info.build_id + "'", "'" + b.info.build_id + "'");
  cmp("golden output hash", a.golden.output_hash, b.golden.output_hash);
  std::string s;
  for (auto& x : d) s += (s.empty() ? "" : "; ") + x;
  return s;
}

// The shards of 1..n not in `present`, as ranges ("2, 4-7"): as long as the shards given, never a
// list of n.
std::string missing_ranges(const std::map<unsigned, ShardStore*>& present, unsigned n) {
  std::string s;
  unsigned next = 1;  // the first shard not yet accounted for
  auto gap = [&](unsigned to) {  // next .. to - 1 are missing
    if (next < to) s += (s.empty() ? "" : ", ") + (next + 1 == to ? std::to_string(next) : fmt::format("{}-{}", next, to - 1));
  };
  for (const auto& [i, shard] : present) {
    gap(i);
    next = i + 1;
  }
  gap(n + 1);
  return s;
}

}  // namespace

int campaign_merge(const std::string& out, const std::vector<std::string>& paths, bool allow_missing) {
  return on_stores(paths, [&] {
  if (paths.empty()) throw CampaignError("campaign merge: no shard given");
  refuse_overwriting(out, paths, "merge");
  if (path_taken(out))
    throw CampaignError(fmt::format("{}: exists; the merged store must be a new file (remove it first)", out));
  std::vector<ShardStore> shards;
  for (const std::string& p : paths) shards.push_back(read_shard(p));
  const ShardStore& first = shards.front();
  std::map<unsigned, ShardStore*> by_index;
  for (ShardStore& s : shards) {
    if (s.shard.count != first.shard.count)
      throw CampaignError(fmt::format("overlapping shards: {} and {} split the campaign differently ({} vs {} shards)",
                                      shard_name(first), shard_name(s), first.shard.count, s.shard.count));
    const std::string diff = campaign_difference(first, s);
    if (!diff.empty())
      throw CampaignError(fmt::format("{} and {} are shards of different campaigns: {}", shard_name(first),
                                      shard_name(s), diff));
    auto [it, fresh] = by_index.emplace(s.shard.index, &s);
    if (!fresh)
      throw CampaignError(fmt::format("overlapping shards: {} and {} are both shard {} of {}", it->second->path, s.path,
                                      s.shard.index, s.shard.count));
  }
  const unsigned n = first.shard.count;
  const std::string missing = missing_ranges(by_index, n);
  std::vector<std::string> unfinished;
  for (const auto& [i, s] : by_index)
    if (s->pending)
      unfinished.push_back(fmt::format("{}: {} of {} runs pending", shard_name(*s), s->pending, s->faults.size()));
  std::string problems;
  if (!missing.empty()) problems += fmt::format("missing shards: {} of {}\n", missing, n);
  for (auto& u : unfinished) problems += "unfinished shard " + u + "\n";
  if (!problems.empty() && !allow_missing)
    throw CampaignError(fmt::format("campaign merge {}: refused:\n{}(`gpuvp campaign run FILE --shard I/{}` runs a "
                                    "missing shard, `gpuvp campaign resume SHARD.db` finishes one; --allow-missing "
                                    "merges what is there)", out, problems, n));
  if (!problems.empty()) print_err("campaign merge {}: merging what is there:\n{}", out, problems);

  std::vector<Fault> faults;
  std::vector<RunRecord> runs;
  for (const auto& [i, s] : by_index) {  // moved, not copied: one copy of the campaign in memory
    faults.insert(faults.end(), std::make_move_iterator(s->faults.begin()), std::make_move_iterator(s->faults.end()));
    std::vector<Fault>().swap(s->faults);
    for (RunRecord& r : s->runs) {
      r.shard = static_cast<int>(i);  // the source shard
      runs.push_back(std::move(r));
    }
    std::vector<RunRecord>().swap(s->runs);
  }
  std::sort(faults.begin(), faults.end(), [](const Fault& a, const Fault& b) { return a.id < b.id; });
  std::sort(runs.begin(), runs.end(), [](const RunRecord& a, const RunRecord& b) { return a.fault_id < b.fault_id; });
  if (missing.empty() && (faults.size() != first.shard.full_fault_count || fault_list_hash(faults) != first.shard.fault_list_hash))
    throw CampaignError(fmt::format("campaign merge {}: the shards' faults ({}) are not the campaign's fault list ({} "
                                    "faults, hash {})", out, faults.size(), first.shard.full_fault_count,
                                    first.shard.fault_list_hash));
  NewStore ns;
  ns.info = first.info;
  ns.shard = first.shard;
  ns.shard.index = 0;
  ns.shard.missing = missing;
  ns.golden = first.golden;
  ns.base_dir = first.base_dir;
  ns.lifetimes = first.lifetimes;
  ns.runs = std::move(runs);
  create_store(out, ns, faults);
  print_err("campaign merge {}: {} shard{} of {}, {} faults, {} runs\n", out, by_index.size(),
            by_index.size() == 1 ? "" : "s", n, faults.size(), ns.runs.size());
  return 0;
  });
}

namespace {
std::string fault_where(const Fault& f) {
  const std::string when = f.trigger == TriggerKind::Event ? fmt::format("{} #{}", f.event, f.count)
                                                           : fmt::format("{} ps", f.time_ps);
  return fmt::format("{}[{}] bit {} ({}, {}) at {}", f.target, f.index, f.bit, to_string(f.model),
                     to_string(f.duration), when);
}

// Replays one recorded run; prints both outcomes; true when they agree.
bool replay_one(const std::function<RunResult(const Fault&)>& rerun, const Fault& f, const RunRecord& rec) {
  const RunResult r = rerun(f);
  const bool same = r.outcome == rec.outcome && r.due == rec.due_kind && !r.not_run;
  auto named = [](Outcome o, DueKind k) {
    return o == Outcome::DUE ? fmt::format("due ({})", to_string(k)) : std::string(to_string(o));
  };
  print_out("fault {}: {}\n  recorded {}, replayed {}: {}\n", f.id, fault_where(f), named(rec.outcome, rec.due_kind),
            named(r.outcome, r.due), same ? "reproduced" : "NOT reproduced");
  if (!r.detail.empty()) print_out("  replay detail: {}\n", r.detail);
  if (!same && !rec.detail.empty()) print_out("  recorded detail: {}\n", rec.detail);
  return same;
}
}  // namespace

int campaign_replay(const std::string& db, const std::vector<uint64_t>& ids, const ReplayOptions& opt) {
  return on_stores({db}, [&] {
    if (ids.size() > 1 && (!opt.vcd.empty() || !opt.timeline.empty()))
      throw CampaignError("campaign replay: --vcd and --timeline record one run: give one fault id");
    Store st = open_for_reading(db);
    const std::string base_dir = st.meta("base_dir").value_or(dir_of(db));
    CampaignSpec spec = spec_of(st.campaign().file_text, db + " (its campaign file)", base_dir);
    const auto stored = st.golden();
    if (!stored) throw StoreError(fmt::format("{}: no golden run recorded (the campaign never started)", db));
    std::map<uint64_t, Fault> faults;
    for (Fault& f : st.faults()) faults.emplace(f.id, std::move(f));
    if (spec.lists_faults()) {
      spec.listed_faults.emplace();
      for (auto& [id, f] : faults) spec.listed_faults->push_back(f);
    }
    std::map<uint64_t, RunRecord> runs;
    for (RunRecord& r : st.runs()) runs.emplace(r.fault_id, std::move(r));
    for (uint64_t id : ids) {
      if (!faults.count(id)) throw CampaignError(fmt::format("{}: no fault {} (ids 0 to {})", db, id, faults.size() - 1));
      if (!runs.count(id)) throw CampaignError(fmt::format("{}: fault {} has no recorded run yet (pending)", db, id));
    }
    st.close();
    JobFactory make = job_factory(spec, base_dir, opt.logs);
    GoldenRun g = golden_of(make, spec, db);
    check_same_golden(db, g, *stored);
    EngineOptions eo;
    eo.timeout_factor = spec.timeout_factor;
    eo.check = spec.check;
    if (spec.application && (!opt.vcd.empty() || !opt.timeline.empty()))
      throw CampaignError(fmt::format("{}: --vcd and --timeline: not for a campaign on an application", db));
    auto rerun = [&](const Fault& f) {
      if (!spec.application) return replay_fault(make, g, f, eo, opt.vcd, opt.timeline);
      RunResult r;
      run_app_faults(spec, base_dir, g, {f}, 1, [&](const RunResult& x) { r = x; });
      return r;
    };
    bool all = true;
    for (uint64_t id : ids) all = replay_one(rerun, faults.at(id), runs.at(id)) && all;
    return all ? 0 : 1;
  });
}

namespace {
void write_report(const std::string& path, const std::string& text, const char* what) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw CampaignError(fmt::format("{}: cannot write ({})", path, what));
  f << text;
  if (!f.flush()) throw CampaignError(fmt::format("{}: cannot write ({})", path, what));
}
}  // namespace

int campaign_report(const std::vector<std::string>& dbs, std::optional<double> raw_fit_per_bit,
                    const std::string& html, const std::string& json) {
  return on_stores(dbs, [&] {
  if (!html.empty() && !json.empty()) throw CampaignError("report: --html and --json are exclusive (one output each run)");
  for (const auto& [out, what] : {std::pair{html, "--html"}, std::pair{json, "--json"}})
    if (!out.empty() && out != "-") {
      refuse_overwriting(out, dbs, what);
      check_output(out, what);
    }
  std::vector<Store> stores;
  for (const std::string& db : dbs) stores.push_back(open_for_reading(db));
  if (!html.empty()) {
    write_report(html, html_report(stores, raw_fit_per_bit), "--html");
    return 0;
  }
  if (!json.empty()) {
    nlohmann::json all = nlohmann::json::array();
    for (size_t i = 0; i < stores.size(); ++i) {
      all.push_back(json_report(stores[i]));
      all.back()["db"] = dbs[i];
    }
    if (json == "-")
      print_out("{}\n", all.dump(1));
    else
      write_report(json, all.dump(1) + "\n", "--json");
    return 0;
  }
  for (size_t i = 0; i < stores.size(); ++i) {
    if (stores.size() > 1) print_out("{}== {} ==\n", i ? "\n" : "", dbs[i]);
    print_out("{}", text_report(stores[i], raw_fit_per_bit));
  }
  return 0;
  });
}

}  // namespace gpuvp::fi
