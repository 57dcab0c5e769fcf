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
  std::string describe() const { return describe_; }

  // What the platform is built with (a bus saboteur on a link), and a call once it is built (to
  // register more state): every process that builds the job's platform uses both.
  virtual PlatformHooks hooks() { return {}; }
  virtual void attach(Platform& /*p*/) {}

 protected:
  Job(Config c, std::string what) : config_(std::move(c)), describe_(std::move(what)) {}

 private:
  Config config_;
  std::string describe_;
};

// Throws ConfigError naming the workload or launch when unknown.
std::unique_ptr<Job> workload_job(const Config& c, const std::string& workload, const std::string& launch,
                                  uint64_t seed);
// `desc` is a launch description as `gpuvp exec --launch-file` reads it; `origin` names it in errors.
std::unique_ptr<Job> exec_job(const Config& c, const nlohmann::json& desc, const std::string& origin);

// FNV-1a, 64 bits: outputs are compared by size and hash.
uint64_t hash_bytes(const std::vector<uint8_t>& bytes);

}  // namespace gpuvp::fi
