#include "faultinj/job.h"

#include <fmt/format.h>

#include <sstream>

#include "faultinj/saboteur.h"
#include "platform/exec_job.h"
#include "sw/workloads/workload.h"

namespace gpuvp::fi {

namespace {

class WorkloadJob : public Job {
 public:
  WorkloadJob(const Config& c, const wl::Workload& w, wl::LaunchConfig lc, uint64_t seed)
      : Job(c, fmt::format("{} ({})", w.name(), lc.name)), w_(w), lc_(std::move(lc)), seed_(seed) {}
  void run(rt::Runtime& rt) override { result_ = w_.run(rt, lc_, seed_); }
  std::vector<uint8_t> output() const override { return result_.output; }

 private:
  const wl::Workload& w_;
  wl::LaunchConfig lc_;
  uint64_t seed_;
  wl::Result result_;
};

class ExecLaunchJob : public Job {
 public:
  ExecLaunchJob(const Config& c, ExecJob job) : Job(c, job.kernel), job_(std::move(job)) {
    for (const ExecBuffer& b : job_.bufs) initial_.push_back(b.bytes);
  }
  // What the kernel printed (device printf) is output like its buffers: a fault that changes it is
  // an SDC. It goes after the buffers' bytes, and not to the campaign's stdout.
  void run(rt::Runtime& rt) override {
    rt.set_device_output(&printed_);
    job_.run(rt);
  }
  std::vector<uint8_t> output() const override {
    std::vector<uint8_t> out = job_.output();
    const std::string text = printed_.str();
    out.insert(out.end(), text.begin(), text.end());
    return out;
  }
  // Each buffer by its argument's name (args[i]), then the printed text (type "text": compared exactly).
  std::vector<OutputBuffer> buffers() const override {
    std::vector<OutputBuffer> out;
    for (size_t i = 0; i < job_.args.size(); ++i) {
      const int k = job_.args[i].buf;
      if (k < 0) continue;
      const ExecBuffer& b = job_.bufs[size_t(k)];
      out.push_back({fmt::format("args[{}]", i), b.type, true, initial_[size_t(k)], b.bytes});
    }
    const std::string text = printed_.str();
    out.push_back({"printf", "text", false, {}, std::vector<uint8_t>(text.begin(), text.end())});
    return out;
  }

 private:
  ExecJob job_;
  std::vector<std::vector<uint8_t>> initial_;  // each buffer's contents before the run
  std::ostringstream printed_;
};

class SaboteurJob : public Job {
 public:
  SaboteurJob(std::unique_ptr<Job> inner, std::string link, BusField field)
      : Job(inner->config(), inner->describe()), inner_(std::move(inner)), link_(std::move(link)), field_(field) {}
  void run(rt::Runtime& rt) override { inner_->run(rt); }
  std::vector<uint8_t> output() const override { return inner_->output(); }
  std::vector<OutputBuffer> buffers() const override { return inner_->buffers(); }
  PlatformHooks hooks() override {
    PlatformHooks h;
    h.interpose = [this](const std::string& link) -> Interposer {
      if (link != link_) return {};
      sab_ = new BusSaboteur("saboteur", true);  // a SystemC module: the simulation owns it to the end
      return {&sab_->in, &sab_->out};
    };
    return h;
  }
  void attach(Platform& p) override {
    if (!sab_) {
      std::string known;
      for (auto& l : p.link_names()) known += (known.empty() ? "" : ", ") + l;
      throw ConfigError(fmt::format("bus.link '{}' is not a link of this platform (links: {})", link_, known));
    }
  }
  bool inject(Platform&, const Fault& f) override {
    if (f.target.rfind("bus:", 0) != 0) return false;
    if (f.target != target_name(link_, field_))
      throw std::invalid_argument(fmt::format("{}: this campaign's saboteur is on {}", f.target, target_name(link_, field_)));
    if (!sab_->arm(f.count, field_, f))
      throw std::invalid_argument(fmt::format("transaction {} on {} has already passed", f.count, link_));
    return true;
  }
  bool fault_pending() const override { return sab_ && sab_->armed(); }
  nlohmann::json golden_info() const override { return {{"transaction_ps", sab_ ? sab_->times() : std::vector<uint64_t>{}}}; }

 private:
  std::unique_ptr<Job> inner_;
  std::string link_;
  BusField field_;
  BusSaboteur* sab_ = nullptr;
};

}  // namespace

std::unique_ptr<Job> with_saboteur(std::unique_ptr<Job> inner, const std::string& link, const std::string& field) {
  return std::make_unique<SaboteurJob>(std::move(inner), link, parse_bus_field(field));
}

std::unique_ptr<Job> workload_job(const Config& c, const std::string& workload, const std::string& launch,
                                  uint64_t seed) {
  try {
    const wl::Workload& w = wl::find_or_throw(workload);
    return std::make_unique<WorkloadJob>(c, w, wl::launch_or_default(w, launch), seed);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());  // it names the workload or launch
  }
}

std::unique_ptr<Job> exec_job(const Config& c, const nlohmann::json& desc, const ExecSource& src) {
  return std::make_unique<ExecLaunchJob>(c, ExecJob::parse(desc, src));
}

std::unique_ptr<Job> exec_job(const Config& c, const nlohmann::json& desc, const std::string& origin) {
  return exec_job(c, desc, ExecSource{origin, "", "", false});
}

uint64_t hash_bytes(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

}  // namespace gpuvp::fi
