#include "faultinj/mem_campaign.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "platform/platform.h"

namespace gpuvp::fi {

namespace {
class StuckJob : public Job {
 public:
  StuckJob(std::unique_ptr<Job> inner, std::shared_ptr<const std::vector<StuckSet>> sets, std::string type)
      : Job(inner->config(), inner->describe()), inner_(std::move(inner)), sets_(std::move(sets)), type_(std::move(type)) {}
  void run(rt::Runtime& rt) override { inner_->run(rt); }
  std::vector<uint8_t> output() const override { return inner_->output(); }
  std::vector<OutputBuffer> buffers() const override {
    std::vector<OutputBuffer> b = inner_->buffers();
    for (auto& x : b)
      if (x.name == "output") x.type = type_;
    return b;
  }
  PlatformHooks hooks() override { return inner_->hooks(); }
  void attach(Platform& p) override { inner_->attach(p); }
  bool inject(Platform& p, const Fault& f) override {
    if (f.target != kStuckTarget) return inner_->inject(p, f);
    if (f.index >= sets_->size()) throw std::invalid_argument(fmt::format("{}: no stuck set {}", f.target, f.index));
    for (const StuckWord& w : (*sets_)[f.index]) p.stick_global(w.addr, w.mask, w.values);
    return true;
  }

 private:
  std::unique_ptr<Job> inner_;
  std::shared_ptr<const std::vector<StuckSet>> sets_;
  std::string type_;
};

// The job with the memory profiler attached; the golden run's info carries the profile (a golden
// run is simulated in a child process: SystemC elaborates once per process).
class ProfiledJob : public Job {
 public:
  ProfiledJob(std::unique_ptr<Job> inner, double hot_share)
      : Job(inner->config(), inner->describe()), inner_(std::move(inner)), hot_share_(hot_share) {}
  void run(rt::Runtime& rt) override { inner_->run(rt); }
  std::vector<uint8_t> output() const override { return inner_->output(); }
  std::vector<OutputBuffer> buffers() const override { return inner_->buffers(); }
  PlatformHooks hooks() override { return inner_->hooks(); }
  void attach(Platform& p) override {
    inner_->attach(p);
    prof_ = std::make_unique<MemProfiler>(p.data_objects());
    p.data_objects().observer = prof_.get();
  }
  nlohmann::json golden_info() const override { return prof_->result(hot_share_).to_json(true); }

 private:
  std::unique_ptr<Job> inner_;
  double hot_share_;
  std::unique_ptr<MemProfiler> prof_;
};
// The output check of a memory campaign's runs: when the kernel writes no buffer, the hint is
// mem-campaign's (it has no option naming outputs, unlike a campaign file's check.outputs).
OutputCheckSpec mem_check(OutputCheckSpec c) {
  c.unwritten_hint = "mem-campaign compares the buffers the kernel writes: give it a launch whose kernel writes one";
  return c;
}
}  // namespace

std::unique_ptr<Job> with_stuck_sets(std::unique_ptr<Job> inner, std::shared_ptr<const std::vector<StuckSet>> sets,
                                     std::string output_type) {
  return std::make_unique<StuckJob>(std::move(inner), std::move(sets), std::move(output_type));
}

MemoryProfile profile_job(const JobFactory& make, double hot_share) {
  const GoldenRun g =
      run_golden([&make, hot_share] { return std::make_unique<ProfiledJob>(make(), hot_share); }, -1, mem_check({}));
  return MemoryProfile::from_json(g.info);
}

MemCampaignResult run_mem_campaign(const JobFactory& make, const std::vector<StuckSet>& sets,
                                   const MemCampaignOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  auto shared = std::make_shared<const std::vector<StuckSet>>(sets);
  JobFactory faulty = [&make, shared, &opt] { return with_stuck_sets(make(), shared, opt.output_type); };
  const OutputCheckSpec check = mem_check(opt.check);
  GoldenRun g = run_golden(faulty, -1, check);
  // Permanent faults present from the first kernel's start: the host's copies before it are shared
  // by every run (the leader forks there), the cells are forced from then on.
  std::vector<Fault> faults(sets.size());
  for (size_t i = 0; i < sets.size(); ++i) {
    Fault& f = faults[i];
    f.id = i;
    f.target = kStuckTarget;
    f.index = i;
    f.model = FaultModel::StuckAt0;
    f.duration = Duration::Permanent;
    f.time_ps = g.start_ps;
  }
  EngineOptions eo;
  eo.workers = opt.workers;
  eo.early_stop = false;  // a permanent fault never reconverges
  eo.check = check;
  MemCampaignResult r;
  r.golden_cycles = g.kernel_cycles;
  r.runs.resize(sets.size());
  run_faults(faulty, g, std::move(faults), eo, [&r](const RunResult& x) {
    r.runs[x.fault_id] = x;
    ++r.outcomes[size_t(x.outcome)];
    if (x.outcome == Outcome::DUE) ++r.by_due[size_t(x.due)];
  });
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gpuvp::fi
