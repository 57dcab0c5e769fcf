#pragma once
// What a campaign simulates: a platform configuration and a host program (a workload of
// sw/workloads, or an `exec` launch of any PTX) whose read-back output the golden and faulty runs
// are compared on.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/config/config.h"
#include "faultinj/fault.h"
#include "faultinj/output_check.h"
#include "platform/exec_job.h"
#include "platform/platform.h"
#include "sw/runtime/runtime.h"

namespace gpuvp::fi {

class Job {
 public:
  virtual ~Job() = default;
  const Config& config() const { return config_; }
  // The host program; call once per process.
  virtual void run(rt::Runtime& rt) = 0;
  // The bytes the host program read back from the GPU (valid after run()).
  virtual std::vector<uint8_t> output() const = 0;
  // The same bytes as buffers, with what each held before the kernel ran where the job knows it (the
  // output checks tell inputs from outputs by it). By default one u8 buffer "output", contents before
  // unknown (a workload's host program reads back its results only).
  virtual std::vector<OutputBuffer> buffers() const { return {{"output", "u8", false, {}, output()}}; }
  std::string describe() const { return describe_; }

  // What the platform is built with (a bus saboteur on a link), and a call once it is built (to
  // register more state): every process that builds the job's platform uses both.
  virtual PlatformHooks hooks() { return {}; }
  virtual void attach(Platform& /*p*/) {}
  // Applies a fault the registry does not hold (a bus fault); false: not this job's kind of fault.
  // Throws std::invalid_argument when it is but cannot be applied.
  virtual bool inject(Platform& /*p*/, const Fault& /*f*/) { return false; }
  // True while a fault is armed but has not struck yet (a saboteur waiting for its transaction):
  // the state cannot have reconverged then.
  virtual bool fault_pending() const { return false; }
  // What the golden run learnt beyond the registry (a bus saboteur's transaction instants).
  virtual nlohmann::json golden_info() const { return nlohmann::json::object(); }

 protected:
  Job(Config c, std::string what) : config_(std::move(c)), describe_(std::move(what)) {}

 private:
  Config config_;
  std::string describe_;
};

// Throws ConfigError naming the workload or launch when unknown.
std::unique_ptr<Job> workload_job(const Config& c, const std::string& workload, const std::string& launch,
                                  uint64_t seed);
// `desc` is a launch description as `gpuvp exec --launch-file` reads it; `src` names it in errors and
// says where its relative paths start (the second form: `origin`, paths as given, no dumps).
std::unique_ptr<Job> exec_job(const Config& c, const nlohmann::json& desc, const ExecSource& src);
std::unique_ptr<Job> exec_job(const Config& c, const nlohmann::json& desc, const std::string& origin);

// `inner` with a bus saboteur on `link` that corrupts `field` of the k-th transaction for a fault on
// target "bus:<link>.<field>" whose count is k (TriggerKind::Event).
std::unique_ptr<Job> with_saboteur(std::unique_ptr<Job> inner, const std::string& link, const std::string& field);

// FNV-1a, 64 bits: outputs are compared by size and hash.
uint64_t hash_bytes(const std::vector<uint8_t>& bytes);

}  // namespace gpuvp::fi
