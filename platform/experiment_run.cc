#include "platform/experiment_run.h"
#include "platform/config/json_text.h"
#include "platform/text.h"

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "platform/platform.h"
#include "sw/kernels/kernels.h"

namespace gpuvp {

using nlohmann::json;

namespace {

// A kernel one iteration of a benchmark launches: timerSpin with a spin time per block.
struct SpinLaunch {
  std::string name;
  rt::Dim3 grid, block;
  uint64_t spin_ns = 0;
  rt::DevPtr start = 0, end = 0, sm = 0, spin = 0;  // device buffers, one entry per block
};

// Sleep granularity of the spinning blocks: long sleeps keep the host cost of seconds of spinning low,
// and the kernel never sleeps past the end of its spin (sw/kernels/timerSpin.cu).
constexpr uint32_t kSleepNs = 1000000;

std::vector<SpinLaunch> launches_of(const Benchmark& b) {
  std::vector<SpinLaunch> out;
  if (b.kind == BenchmarkKind::TimerSpin) out.push_back({"timer_spin", b.grid, b.block, b.spin_ns});
  for (const SpinKernel& k : b.kernels) out.push_back({k.name, {k.blocks}, {k.threads}, k.spin_ns});
  return out;
}

json dims_json(const rt::Dim3& d) {
  if (d.y == 1 && d.z == 1) return d.x;
  return json::array({d.x, d.y, d.z});
}

// One benchmark's host thread, as the examiner's per-benchmark process: its own stream, released at its
// release time, iterating until its limits; `log` receives the examiner-shaped record.
class BenchmarkThread {
 public:
  // `sm_set`: the SM set of the benchmark's partition (0: every SM).
  BenchmarkThread(const Benchmark& b, const rt::Module& m, json& log, uint32_t sm_set)
      : b_(b), m_(m), log_(log), sm_set_(sm_set) {}

  // Before the scenario starts (the examiner's initialisation): its stream, buffers and spin times.
  void setup(rt::Runtime& rt) {
    s_ = rt.create_stream(b_.stream_priority);
    kernels_ = launches_of(b_);
    for (SpinLaunch& k : kernels_) {
      const size_t n = size_t(k.grid.count());
      k.start = rt.malloc(n * 8);
      k.end = rt.malloc(n * 8);
      k.sm = rt.malloc(n * 4);
      spin_host_.emplace_back(n, k.spin_ns);
      k.spin = rt.malloc(n * 8);
      rt.memcpy_h2d(k.spin, spin_host_.back().data(), n * 8);
    }
    if (b_.data_size) {
      host_data_.assign(b_.data_size, 0x5a);
      dev_data_ = rt.malloc(b_.data_size);
    }
  }

  // In its own host thread from the scenario start t0 (ns): released, then iterating to its limits.
  void run(rt::Runtime& rt, double t0_ns) {
    t0_ = t0_ns;
    rt.sleep_ns(t0_ + b_.release_time * 1e9 - rt.now_ns());
    const double released = rt.now_ns();
    for (uint64_t i = 0; more(i, rt.now_ns() - released); ++i) iteration(rt, s_);
  }

 private:
  bool more(uint64_t done, double elapsed_ns) const {
    if (b_.max_iterations && done >= b_.max_iterations) return false;
    return !(b_.max_time > 0 && elapsed_ns >= b_.max_time * 1e9);
  }

  double rel(double ns) const { return (ns - t0_) / 1e9; }  // seconds from the scenario start

  std::pair<double, double> copy(rt::Runtime& rt, rt::Stream s, bool in) {
    const double a = rt.now_ns();
    if (in) rt.memcpy_h2d_async(dev_data_, host_data_.data(), b_.data_size, s);
    else rt.memcpy_d2h_async(host_data_.data(), dev_data_, b_.data_size, s);
    rt.stream_synchronize(s);
    return {rel(a), rel(rt.now_ns())};
  }

  void iteration(rt::Runtime& rt, rt::Stream s) {
    const double cpu0 = rt.now_ns();
    std::pair<double, double> cin{rel(cpu0), rel(cpu0)}, cout = cin;
    if (b_.data_size) cin = copy(rt, s, true);
    std::vector<std::pair<double, double>> launched;
    const double exec0 = rt.now_ns();
    for (SpinLaunch& k : kernels_) {
      rt::KernelArgs args;
      args.ptr(k.start).ptr(k.end).ptr(k.sm).ptr(k.spin).u32(kSleepNs);
      const double a = rt.now_ns();
      if (sm_set_) rt.launch_sub_async(s, m_, "timerSpin", k.grid, k.block, args, rt::SubKernel{0, 0, sm_set_});
      else rt.launch_async(s, m_, "timerSpin", k.grid, k.block, args);
      launched.emplace_back(a, rt.now_ns());
    }
    rt.stream_synchronize(s);
    const double exec1 = rt.now_ns();
    if (b_.data_size) cout = copy(rt, s, false);
    for (size_t i = 0; i < kernels_.size(); ++i)
      log_["times"].push_back(record(rt, s, kernels_[i], launched[i], exec1, cin, cout, {exec0, exec1}, cpu0));
  }

  json record(rt::Runtime& rt, rt::Stream s, const SpinLaunch& k, std::pair<double, double> launch, double synced,
              std::pair<double, double> cin, std::pair<double, double> cout, std::pair<double, double> exec,
              double cpu0) {
    const size_t n = size_t(k.grid.count());
    std::vector<uint64_t> start(n), end(n);
    std::vector<uint32_t> sm(n);
    rt.memcpy_d2h_async(start.data(), k.start, n * 8, s);
    rt.memcpy_d2h_async(end.data(), k.end, n * 8, s);
    rt.memcpy_d2h_async(sm.data(), k.sm, n * 4, s);
    rt.stream_synchronize(s);
    json r;
    r["kernel_name"] = k.name;
    r["block_count"] = dims_json(k.grid);
    r["thread_count"] = dims_json(k.block);
    r["shared_memory"] = 0;
    r["cpu_times"] = {rel(cpu0), rel(rt.now_ns())};
    r["copy_in_times"] = {cin.first, cin.second};
    r["execute_times"] = {rel(exec.first), rel(exec.second)};
    r["copy_out_times"] = {cout.first, cout.second};
    r["kernel_launch_times"] = {rel(launch.first), rel(launch.second), rel(synced)};
    json bt = json::array(), ids = json::array();
    double first = 1e300, last = -1e300;
    for (size_t i = 0; i < n; ++i) {
      const double a = rel(double(start[i])), z = rel(double(end[i]));
      bt.push_back(a);
      bt.push_back(z);
      ids.push_back(sm[i]);
      first = std::min(first, a);
      last = std::max(last, z);
    }
    r["kernel_times"] = {first, last};
    r["block_times"] = bt;
    r["block_smids"] = ids;
    return r;
  }

  const Benchmark& b_;
  rt::Module m_;
  json& log_;
  uint32_t sm_set_ = 0;
  double t0_ = 0;
  rt::Stream s_ = 0;
  std::vector<SpinLaunch> kernels_;
  std::vector<std::vector<uint64_t>> spin_host_;
  std::vector<uint8_t> host_data_;
  rt::DevPtr dev_data_ = 0;
};

json log_header(const Experiment& e, const Benchmark& b, const rt::DeviceProps& p) {
  const auto k = launches_of(b);
  json j;
  j["scenario_name"] = e.name;
  j["benchmark_name"] = to_string(b.kind);
  j["label"] = b.label;
  j["thread_count"] = dims_json(b.kind == BenchmarkKind::TimerSpin ? b.block : k.front().block);
  j["block_count"] = dims_json(b.kind == BenchmarkKind::TimerSpin ? b.grid : k.front().grid);
  j["max_resident_threads"] = uint64_t(p.max_threads) * p.sm_count;
  j["data_size"] = b.data_size;
  j["release_time"] = b.release_time;
  j["stream_priority"] = b.stream_priority;
  j["times"] = json::array({json::object()});  // the examiner's first entry is empty
  return j;
}

// An upper bound of the experiment's simulated length: every benchmark released at its time and then
// running alone, its blocks one at a time (any work-conserving schedule ends earlier); a run that goes
// beyond it hangs. Seconds.
double time_bound(const Experiment& e, const rt::DeviceProps& p) {
  double latest = 0, work = 0;
  for (const Benchmark& b : e.benchmarks) {
    double one = 4 * 20e-6 + 1e-3;  // copies' and launches' latencies, the setup, with room to spare
    for (const SpinLaunch& k : launches_of(b)) one += double(k.grid.count()) * (double(k.spin_ns) * 1e-9 + 1e-4);
    one += 4.0 * double(b.data_size) / 1e8 + p.launch_latency_ns * 1e-9;
    const double iters = b.max_iterations ? double(b.max_iterations) : 1e300;
    work += std::min(iters * one, b.max_time > 0 ? b.max_time + one : 1e300);
    latest = std::max(latest, b.release_time);
  }
  return latest + 2 * work + 1;
}

// The logs are kept in memory until the end (every kernel run of every iteration is a record, as the
// examiner writes them): an upper bound of their size, so that an experiment whose logs could not fit
// is refused before it starts rather than growing without end. Bytes.
constexpr double kMaxLogBytes = double(uint64_t{1} << 30);
double log_bytes_bound(const Benchmark& b, double launch_latency_ns) {
  // An iteration launches its kernels and waits for them: at least a microsecond on any preset.
  double per_iteration = 0, min_iteration_ns = std::max(launch_latency_ns, 1000.0);
  for (const SpinLaunch& k : launches_of(b)) {
    per_iteration += 400 + 48 * double(k.grid.count());  // a record's fields, then two times and an SM a block
    min_iteration_ns = std::max(min_iteration_ns, double(k.spin_ns));
  }
  double iterations = b.max_iterations ? double(b.max_iterations) : 1e300;
  if (b.max_time > 0) iterations = std::min(iterations, b.max_time * 1e9 / min_iteration_ns + 1);
  return iterations * per_iteration;
}

// One SM set per distinct sm_partition (benchmarks on the same SMs share it); per benchmark, its set.
std::vector<uint32_t> partition_sets(rt::Runtime& rt, const Experiment& e) {
  std::map<uint64_t, uint32_t> by_mask{{0, 0}};
  std::vector<uint32_t> out;
  for (const Benchmark& b : e.benchmarks) {
    auto it = by_mask.find(b.sm_mask);
    if (it == by_mask.end()) it = by_mask.emplace(b.sm_mask, rt.create_sm_set(b.sm_mask)).first;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

void refuse_unbounded_logs(const Experiment& e, double launch_latency_ns, const std::string& origin) {
  double total = 0;
  for (size_t i = 0; i < e.benchmarks.size(); ++i) {
    const Benchmark& b = e.benchmarks[i];
    if (!b.max_iterations && !(b.max_time > 0)) continue;  // endless: run_experiment refuses it itself
    total += log_bytes_bound(b, launch_latency_ns);
    if (total > kMaxLogBytes)
      throw ConfigError(fmt::format("{}: benchmarks[{}]: its iterations (max_iterations {}, max_time {} s) could log "
                                    "about {:.3g} GB, kept in memory until the experiment ends (at most {:.3g} GB); "
                                    "lower max_iterations or max_time",
                                    origin, i, e.benchmarks[i].max_iterations, e.benchmarks[i].max_time, total / 1e9,
                                    kMaxLogBytes / 1e9));
  }
}

ExperimentRun run_experiment(const Experiment& e, const Config& cfg, const std::string& origin,
                             const RunOutputs& outputs) {
  for (size_t i = 0; i < e.benchmarks.size(); ++i)
    if (!e.benchmarks[i].max_iterations && !(e.benchmarks[i].max_time > 0))
      throw ConfigError(fmt::format("{}: benchmarks[{}]: max_iterations and max_time are both unlimited (0), here or "
                                    "at the top level: the simulation would never end; set one of them",
                                    origin, i));
  refuse_unbounded_logs(e, double(cfg.f("host.launch_latency_ns")), origin);
  PlatformHooks hooks;
  outputs.apply(hooks);
  Platform p(cfg, hooks);
  outputs.attach(p);
  ExperimentRun out;
  for (const Benchmark& b : e.benchmarks) out.logs.push_back(log_header(e, b, p.props()));
  double t0 = 0, t_end = 0;
  p.start([&](rt::Runtime& rt) {
    const rt::Module m = rt.load_module(kernels::ptx("timerSpin"), "timerSpin.ptx");
    std::vector<std::unique_ptr<BenchmarkThread>> threads;
    const std::vector<uint32_t> sets = partition_sets(rt, e);
    for (size_t i = 0; i < e.benchmarks.size(); ++i) {
      threads.push_back(std::make_unique<BenchmarkThread>(e.benchmarks[i], m, out.logs[i], sets[i]));
      threads.back()->setup(rt);
    }
    t0 = rt.now_ns();  // the scenario starts once every benchmark is set up
    for (auto& t : threads) {  // spawned in file order: those released together launch in file order
      BenchmarkThread* bt = t.get();
      rt.spawn([bt, t0](rt::Runtime& r) { bt->run(r, t0); });
    }
    rt.join();
    t_end = rt.now_ns();
  });
  // The experiment's own limits end it; sim.timeout_ms only if it is the longer (a hang stops there).
  p.finish(std::max(cfg.f("sim.timeout_ms"), 1e3 * time_bound(e, p.props())));
  out.simulated_s = (t_end - t0) / 1e9;
  out.host_s = p.stats().host_seconds;
  outputs.write(p, {{"command", "experiment"}, {"experiment", origin}, {"name", e.name}});
  return out;
}

}  // namespace gpuvp
