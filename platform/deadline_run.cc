#include "platform/deadline_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <stdexcept>

#include <unistd.h>

#include "platform/deadline_kernels.h"
#include "platform/deadline_policy.h"
#include "platform/platform.h"
#include "sw/kernels/kernels.h"
#include "sw/workloads/workload.h"

namespace gpuvp::deadline {

namespace {

// Blocks sleep through their spin in steps of at most 1 ms (cheap to simulate, never past the end).
constexpr uint32_t kSleepNs = 1000000;

// Every kernel's launch, its inputs in device memory; shared by every policy's run (and the
// measurement of the profiles).
using Launches = std::vector<std::vector<Launch>>;

// The GPU as a policy sees it during one policy's run, over the runtime; it records what it is asked.
class RuntimeGpu : public Gpu {
 public:
  // `sets`: the SM sets earlier policies' runs created, reused before new ones are created.
  RuntimeGpu(rt::Runtime& rt, const Config& cfg, const Launches& launches, PolicyResult& out,
             const std::vector<AppState>& states, std::vector<uint32_t>& sets)
      : rt_(rt), cfg_(cfg), launches_(launches), out_(out), states_(states), sets_(sets), t0_(rt.now_ns()) {}

  // Rounded: the host time is ps, a release instant (t0 + release) must read back as the release.
  uint64_t now_ns() const override { return uint64_t(std::llround(rt_.now_ns() - t0_)); }
  unsigned sms() const override { return rt_.device().sm_count; }
  const Config& config() const override { return cfg_; }
  uint64_t launch_latency_ns() const override { return uint64_t(rt_.device().launch_latency_ns); }
  rt::Stream new_stream(int priority) override { return rt_.create_stream(priority); }
  uint32_t new_sm_set(uint64_t sms) override {
    if (used_sets_ == sets_.size()) sets_.push_back(rt_.create_sm_set(sms));
    else rt_.set_sm_set(sets_[used_sets_], sms);
    note_set(sets_[used_sets_], sms);
    return sets_[used_sets_++];
  }
  void set_sms(uint32_t set, uint64_t sms) override {
    rt_.set_sm_set(set, sms);
    note_set(set, sms);
  }
  void launch(AppState& a, size_t k, uint64_t first, uint64_t last) override {
    const size_t app = size_t(&a - states_.data());
    const Launch& l = launches_[app][k];
    const uint64_t call = now_ns();
    const uint64_t id = rt_.launch_sub_async(a.stream, l.module, l.kernel, l.grid, l.block, l.args,
                                             rt::SubKernel{first, last, a.set}, l.dyn_shmem);
    a.launched[k] = std::max(a.launched[k], last);
    a.inflight.push_back(InFlight{id, k, first, last, a.stream});
    out_.launches.push_back(LaunchRun{app, k, id, first, last, a.set, call, 0});
  }
  double t0() const { return t0_; }

 private:
  void note_set(uint32_t set, uint64_t sms) { out_.set_changes.push_back({now_ns(), set, sms}); }
  rt::Runtime& rt_;
  const Config& cfg_;
  const Launches& launches_;
  PolicyResult& out_;
  const std::vector<AppState>& states_;
  std::vector<uint32_t>& sets_;
  size_t used_sets_ = 0;
  double t0_;
};

rt::Dim3 dim(uint64_t n) { return rt::Dim3{uint32_t(n)}; }

// A timer-spin kernel's launch: its records (start, end, SM) and spin times in fresh buffers.
Launch spin_launch(rt::Runtime& rt, const rt::Module& m, const Kernel& k) {
  rt::KernelArgs args;
  args.ptr(rt.malloc(k.blocks * 8)).ptr(rt.malloc(k.blocks * 8)).ptr(rt.malloc(k.blocks * 4));
  args.ptr(rt.upload(std::vector<uint64_t>(k.blocks, k.spin_ns))).u32(kSleepNs);
  return Launch{m, "timerSpin", dim(k.blocks), dim(k.threads), args, 0};
}

// A launch description's or a workload's launch: its host program runs (inputs allocated and filled)
// with its launch kept instead of run; the rest of the program (reading back, comparing) sees a kernel
// that has not run and is ignored. Its buffers are never freed: the sub-kernels use them.
Launch kept_launch(rt::Runtime& rt, Kernel& k) {
  std::vector<Launch> kept;
  LaunchHook hook(rt, [&](const Launch& l) -> uint64_t {
    if (!l.module.image->find_kernel(l.kernel))
      throw rt::RuntimeError(fmt::format("launch: no kernel '{}' in {}", l.kernel, l.module.image->source_name));
    kept.push_back(l);
    return 0;
  }, true);
  if (k.kind == KernelKind::Ptx) {
    ExecJob job = *k.exec;
    job.run(hook);
  } else {
    const wl::Workload& w = wl::find_or_throw(k.workload);
    w.run(hook, wl::config_named(w, k.size), k.seed);
  }
  if (kept.size() != 1)
    throw ConfigError(fmt::format("{}: its host program launches {} kernels; an application's kernel is one launch",
                                  k.where, kept.size()));
  k.blocks = uint32_t(kept[0].blocks());
  k.threads = kept[0].threads();
  return kept[0];
}

Launches prepare(rt::Runtime& rt, AppSet& set) {
  const rt::Module spin = rt.load_module(kernels::ptx("timerSpin"), "timerSpin.ptx");
  Launches ls;
  for (App& a : set.apps) {
    ls.emplace_back();
    for (Kernel& k : a.kernels) ls.back().push_back(k.kind == KernelKind::Spin ? spin_launch(rt, spin, k) : kept_launch(rt, k));
  }
  return ls;
}

// Takes the completed (sub-)kernels of `s` into its state; true if any had.
bool take_completions(AppState& s, rt::Runtime& rt, RuntimeGpu& gpu, PolicyResult& out, Policy& policy) {
  bool any = false;
  for (size_t i = 0; i < s.inflight.size();) {
    const InFlight f = s.inflight[i];
    const double at = rt.launch_done_ns(f.launch);
    if (at < 0) {
      ++i;
      continue;
    }
    any = true;
    s.inflight.erase(s.inflight.begin() + long(i));
    s.completed[f.kernel] += f.last - f.first;
    const uint64_t done = uint64_t(std::llround(at - gpu.t0()));
    for (auto it = out.launches.rbegin(); it != out.launches.rend(); ++it)
      if (it->launch == f.launch) it->done_ns = done;
    if (s.current() >= s.app->kernels.size()) {
      s.finished = true;
      s.finish_ns = done;
      policy.finished(s);
    }
  }
  return any;
}

// One policy's run of the set; returns its time 0 (host ns).
double run_policy(rt::Runtime& rt, const Config& cfg, const Launches& launches, const AppSet& set,
                  Policy& policy, PolicyResult& out, std::vector<uint32_t>& sets) {
  std::vector<AppState> st(set.apps.size());
  for (size_t i = 0; i < st.size(); ++i) {
    st[i].app = &set.apps[i];
    st[i].launched.assign(set.apps[i].kernels.size(), 0);
    st[i].completed.assign(set.apps[i].kernels.size(), 0);
  }
  RuntimeGpu gpu(rt, cfg, launches, out, st, sets);
  size_t next_release = 0, finished = 0;
  while (finished < st.size()) {
    std::vector<uint64_t> ids;
    for (const AppState& s : st)
      for (const InFlight& f : s.inflight) ids.push_back(f.launch);
    if (ids.empty() && next_release == st.size())
      throw std::logic_error(fmt::format("policy {}: applications left unfinished with nothing running", policy.name()));
    rt.wait_any(ids, next_release < st.size() ? gpu.t0() + double(st[next_release].app->release_ns) : 1e30);
    bool changed = false;
    for (AppState& s : st) {
      const bool was = s.finished;
      changed |= take_completions(s, rt, gpu, out, policy);
      finished += s.finished && !was;
    }
    for (; next_release < st.size() && st[next_release].app->release_ns <= gpu.now_ns(); ++next_release)
      st[next_release].released = changed = true;
    if (!changed) continue;
    if (set.decision_ns) rt.sleep_ns(double(set.decision_ns));  // the host's decision time
    std::vector<AppState*> active;
    for (AppState& s : st)
      if (s.released && !s.finished) active.push_back(&s);
    policy.decide(active, gpu);
  }
  for (size_t i = 0; i < st.size(); ++i) {
    const App& a = set.apps[i];
    AppResult r{a.name, a.priority, a.release_ns, st[i].finish_ns, a.release_ns + a.deadline_ns, false, 0};
    r.met = r.completion_ns <= r.deadline_ns;
    r.lateness_ns = r.met ? 0 : r.completion_ns - r.deadline_ns;
    out.apps.push_back(r);
  }
  rt.synchronize();
  return gpu.t0();
}

// E(K, n) of every kernel without a profile, measured: the kernel alone on SMs 0..n-1, from its arrival
// in the queues (its launch call + the launch latency) to its completion. Equal kernels are measured once.
// Measured profiles are cached in files (docs/deadline.md, "Profile cache"): one per configuration and
// kernel, named by a hash of the effective configuration and the kernel's launch.
std::filesystem::path profile_cache_dir() {
  if (const char* d = std::getenv("GPUVP_PROFILE_CACHE"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "gpuvp" / "profiles";
  if (const char* d = std::getenv("HOME"); d && *d) return std::filesystem::path(d) / ".cache" / "gpuvp" / "profiles";
  return {};
}

// What decides a kernel's E(K, n) besides the configuration: a timer-spin kernel's PTX, blocks, threads,
// spin and sleep step; a launch description's PTX, launch and inputs; a workload's name, size, seed, PTX.
std::string kernel_identity(const Kernel& kd) {
  if (kd.kind != KernelKind::Spin) return kd.identity;
  return fmt::format("{}\n{} {} {} {}", kernels::ptx("timerSpin"), kd.blocks, kd.threads, kd.spin_ns, kSleepNs);
}

// FNV-1a of the configuration and the kernel's identity.
std::string profile_key(const Config& cfg, const Kernel& kd) {
  const std::string text = fmt::format("{}\n{}", cfg.to_json().dump(), kernel_identity(kd));
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return fmt::format("{:016x}", h);
}

// The cached E(K, 1..sms), or empty (no file, unreadable, or not one value per SM count).
std::vector<uint64_t> cached_profile(const std::filesystem::path& file, unsigned sms) {
  std::ifstream in(file);
  if (!in) return {};
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("profile_ns") || !j["profile_ns"].is_array() || j["profile_ns"].size() != sms) return {};
  std::vector<uint64_t> e;
  for (const auto& v : j["profile_ns"]) {
    if (!v.is_number_unsigned()) return {};
    e.push_back(v.get<uint64_t>());
  }
  return e;
}

// Written to a temporary file renamed into place, so that concurrent runs never read half a file; a
// cache that cannot be written is skipped (the profile was measured all the same).
void cache_profile(const std::filesystem::path& file, const Kernel& kd, const std::vector<uint64_t>& e) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  const std::filesystem::path tmp = file.string() + fmt::format(".{}.tmp", ::getpid());
  {
    std::ofstream out(tmp);
    out << nlohmann::json{{"blocks", kd.blocks}, {"threads", kd.threads}, {"spin_ns", kd.spin_ns}, {"profile_ns", e}}.dump() << "\n";
    if (!out) return;
  }
  std::filesystem::rename(tmp, file, ec);
}

void measure_profiles(rt::Runtime& rt, const Config& cfg, const Launches& launches, AppSet& set,
                      std::vector<uint32_t>& sets) {
  const unsigned sms = rt.device().sm_count;
  const double latency = rt.device().launch_latency_ns;
  if (sets.empty()) sets.push_back(rt.create_sm_set(1));
  const rt::Stream s = rt.create_stream(0);
  const std::filesystem::path dir = profile_cache_dir();
  std::map<std::string, std::vector<uint64_t>> measured;  // by kernel identity
  for (size_t a = 0; a < set.apps.size(); ++a)
    for (size_t k = 0; k < set.apps[a].kernels.size(); ++k) {
      Kernel& kd = set.apps[a].kernels[k];
      if (!kd.profile_ns.empty()) continue;
      std::vector<uint64_t>& e = measured[kernel_identity(kd)];
      const std::filesystem::path file = dir.empty() ? dir : dir / (profile_key(cfg, kd) + ".json");
      if (e.empty() && !file.empty()) e = cached_profile(file, sms);
      const bool cached = e.size() == sms;
      for (unsigned n = unsigned(e.size()) + 1; n <= sms; ++n) {
        rt.set_sm_set(sets[0], n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1);
        const Launch& l = launches[a][k];
        const double call = rt.now_ns();
        const uint64_t id =
            rt.launch_sub_async(s, l.module, l.kernel, l.grid, l.block, l.args, rt::SubKernel{0, 0, sets[0]}, l.dyn_shmem);
        rt.stream_synchronize(s);
        e.push_back(uint64_t(std::llround(rt.launch_done_ns(id) - call - latency)));
      }
      if (!cached && !file.empty()) cache_profile(file, kd, e);
      kd.profile_ns = e;
    }
}

void summarise(PolicyResult& r) {
  for (const AppResult& a : r.apps) {
    ++r.total[size_t(a.priority)];
    r.met[size_t(a.priority)] += a.met;
    r.total_lateness_ns += a.lateness_ns;
  }
}

}  // namespace

uint64_t allowed_sms(const PolicyResult& r, uint32_t set, uint64_t call_ns, uint64_t start_ns) {
  if (set == 0) return ~uint64_t{0};
  uint64_t at_call = 0, later = 0;
  for (const auto& c : r.set_changes) {
    if (c.set != set) continue;
    if (c.at_ns <= call_ns) at_call = c.sms;
    else if (c.at_ns <= start_ns) later |= c.sms;
  }
  return at_call | later;
}

std::vector<PolicyResult> run_set(const Config& cfg, AppSet& set) {
  if (cfg.s("scheduler.kind") != "concurrent")
    throw ConfigError("deadline: the policies need scheduler.kind = concurrent (the tk1 and tx2 presets)");
  Platform p(cfg);
  p.record_timeline();
  std::vector<PolicyResult> results(set.policies.size());
  std::vector<double> t0(set.policies.size());
  p.run([&](rt::Runtime& rt) {
    const Launches launches = prepare(rt, set);
    std::vector<uint32_t> sets;
    if (set.measure_profiles) measure_profiles(rt, cfg, launches, set, sets);
    for (size_t i = 0; i < set.policies.size(); ++i) {
      auto policy = make_policy(set.policies[i]);
      results[i].policy = policy->name();
      t0[i] = run_policy(rt, cfg, launches, set, *policy, results[i], sets);
    }
  });
  std::map<uint64_t, std::pair<size_t, size_t>> by_launch;  // launch id -> (policy, launch index)
  for (size_t i = 0; i < results.size(); ++i)
    for (size_t j = 0; j < results[i].launches.size(); ++j) by_launch[results[i].launches[j].launch] = {i, j};
  for (const BlockRecord& b : p.timeline()) {
    auto it = by_launch.find(b.launch_id);
    if (it == by_launch.end()) continue;
    PolicyResult& r = results[it->second.first];
    const LaunchRun& l = r.launches[it->second.second];
    const double base = t0[it->second.first] * 1000.0;  // ps
    // Rounded as the policies' clock is (RuntimeGpu::now_ns): a block that starts at the instant of a
    // set change reads the same ns as the change.
    r.blocks.push_back(BlockRun{l.app, l.kernel, l.launch, b.block, b.sm, uint64_t(std::llround((double(b.start_ps) - base) / 1000.0)),
                                uint64_t(std::llround((double(b.end_ps) - base) / 1000.0))});
  }
  for (PolicyResult& r : results) summarise(r);
  return results;
}

nlohmann::json to_json(const AppSet& set, const std::vector<PolicyResult>& results) {
  nlohmann::json j;
  j["decision_us"] = double(set.decision_ns) / 1000.0;
  j["profiles"] = set.measure_profiles ? "measured" : "computed";
  for (const App& a : set.apps) {
    nlohmann::json ks = nlohmann::json::array();
    for (const Kernel& k : a.kernels) {
      nlohmann::json e = nlohmann::json::array();
      for (uint64_t ns : k.profile_ns) e.push_back(double(ns) / 1000.0);
      ks.push_back(e);
    }
    j["profile_us"].push_back(ks);  // per application, per kernel: E(K, n), n = 1.. (empty: waves x spin)
  }
  j["policies"] = nlohmann::json::array();
  for (const PolicyResult& r : results) {
    nlohmann::json pj;
    pj["policy"] = r.policy;
    pj["total_lateness_us"] = double(r.total_lateness_ns) / 1000.0;
    pj["met"] = r.met_total();
    for (Priority p : {Priority::High, Priority::Medium, Priority::Low})
      pj["by_priority"][to_string(p)] = {{"met", r.met[size_t(p)]}, {"total", r.total[size_t(p)]}};
    for (const AppResult& a : r.apps)
      pj["applications"].push_back({{"name", a.name},
                                    {"priority", to_string(a.priority)},
                                    {"release_us", double(a.release_ns) / 1000.0},
                                    {"completion_us", double(a.completion_ns) / 1000.0},
                                    {"deadline_us", double(a.deadline_ns) / 1000.0},
                                    {"met", a.met},
                                    {"lateness_us", double(a.lateness_ns) / 1000.0}});
    for (const LaunchRun& l : r.launches)
      pj["launches"].push_back({{"app", l.app}, {"kernel", l.kernel}, {"first", l.first}, {"last", l.last},
                                {"call_us", double(l.call_ns) / 1000.0}, {"done_us", double(l.done_ns) / 1000.0}});
    for (const BlockRun& b : r.blocks)
      pj["blocks"].push_back({{"app", b.app}, {"kernel", b.kernel}, {"block", b.block}, {"sm", b.sm},
                              {"start_us", double(b.start_ns) / 1000.0}, {"end_us", double(b.end_ns) / 1000.0}});
    j["policies"].push_back(std::move(pj));
  }
  return j;
}

std::string summary_table(const std::vector<PolicyResult>& results) {
  std::string t = fmt::format("{:<18} {:>9} {:>9} {:>9} {:>9} {:>16}\n", "policy", "met", "high", "medium", "low",
                              "lateness (us)");
  for (const PolicyResult& r : results) {
    auto frac = [&](Priority p) { return fmt::format("{}/{}", r.met[size_t(p)], r.total[size_t(p)]); };
    t += fmt::format("{:<18} {:>9} {:>9} {:>9} {:>9} {:>16.1f}\n", r.policy,
                     fmt::format("{}/{}", r.met_total(), r.apps.size()), frac(Priority::High), frac(Priority::Medium),
                     frac(Priority::Low), double(r.total_lateness_ns) / 1000.0);
  }
  if (results.empty()) return t;
  t += fmt::format("\n{:<20} {:<7} {:>12} {:>12}", "application", "prio", "release (us)", "deadline (us)");
  for (const PolicyResult& r : results) t += fmt::format(" {:>18}", r.policy);
  t += "\n";
  for (size_t i = 0; i < results[0].apps.size(); ++i) {
    const AppResult& a = results[0].apps[i];
    t += fmt::format("{:<20} {:<7} {:>12.1f} {:>12.1f}", a.name, to_string(a.priority), double(a.release_ns) / 1000.0,
                     double(a.deadline_ns) / 1000.0);
    for (const PolicyResult& r : results)
      t += fmt::format(" {:>11.1f} {:<6}", double(r.apps[i].completion_ns) / 1000.0, r.apps[i].met ? "met" : "MISSED");
    t += "\n";
  }
  return t;
}

}  // namespace gpuvp::deadline
