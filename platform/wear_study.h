#pragma once
// A wear study (docs/power.md, "Wear study"): applications spatially multitasked on SM partitions (SM
// sets), each wear-balancing policy run on a fresh platform over the same work, and per policy every
// SM's electromigration consumption rate over the window, the GPU's normalised to the baseline's, and
// each application's completion time.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/config.h"
#include "sw/runtime/runtime.h"
#include "platform/wear_policy.h"

namespace gpuvp::wear {

struct App {
  std::string name, kernel;
  unsigned grid = 1, block = 32, launches = 1;
  std::vector<nlohmann::json> args;  // "out:N" (a zeroed f32 buffer of N), "in:N" (f32 0, 1, 2, ...), integers
};

struct Study {
  std::string file;  // for messages
  std::string ptx_path;
  std::vector<App> apps;
  std::vector<std::vector<unsigned>> partitions;  // SMs per application, one entry per point
  std::vector<std::string> policies;              // baseline first (the reference)
  std::vector<unsigned> rotations;                // fixed: R values
  std::vector<uint64_t> thresholds;               // monitoring: sensor ps
  double years = 10;                              // the window repeats for this long (lifetime check)
};

// ConfigError "FILE: AT: unknown key 'K' (known: ...)" when `obj` (at key `at` of a study file; "": the
// top level) holds a key not in `known`: a misspelt key would otherwise leave its default in force.
void known_keys(const nlohmann::json& obj, std::initializer_list<const char*> known, const std::string& file,
                const std::string& at);
// The f32 elements N of a buffer argument "out:N" or "in:N" (N from 1 to 2^30), or 0 when `v` is not one.
uint64_t buffer_elems(const nlohmann::json& v);
// The application at key `at` of a study file (shared with the aging study); ConfigError naming the
// file and the key for bad input.
App parse_app(const nlohmann::json& a, const std::string& file, const std::string& at);
// A whole number from 1 to 2^30 at `key`, or ConfigError naming the file and the key.
unsigned positive(const nlohmann::json& j, const std::string& file, const std::string& key);
// Years (more than 0, at most 1000) at `key`, or ConfigError naming the file and the key.
double study_years(const nlohmann::json& j, const std::string& file, const std::string& key);
// ConfigError naming the file and `key` when the applications' buffers exceed global memory (gmem.size_mib).
void check_buffers(const Config& cfg, const std::vector<App>& apps, const std::string& file, const std::string& key);
// The kernels' file `ptx` of the study file `study_path` (relative to its folder), checked readable.
std::string study_ptx(const std::string& ptx, const std::string& study_path);
// The application's kernel arguments, its buffers allocated and filled.
rt::KernelArgs make_args(rt::Runtime& rt, const App& a);

// Parses a study file; ConfigError naming the file and the key for bad input.
Study parse(const nlohmann::json& j, const std::string& file);
// What the study asks of the platform `cfg` would build (partitions within its SMs, buffers within its
// global memory), before anything runs; ConfigError naming the file and the key.
void check(const Config& cfg, const Study& s);
// Parses and checks a study file for `cfg`.
Study load(const std::string& path, const Config& cfg);

struct PolicyRun {
  std::string policy;  // "baseline", "fixed R=4", "monitoring 1e6", "uniform"
  std::vector<unsigned> partition;
  std::vector<double> cr;          // per SM over the window
  // Per SM over the run (the window and the setup before it, the unit taken to repeat): mean power (W)
  // and temperature (K); and its temperature as the run started (the periodic state of the run repeated,
  // from a pilot run: docs/power.md, "Wear study").
  std::vector<double> power_w, temp_k, initial_k;
  double period_s = 0;  // the run's length in the thermal model (whole intervals)
  double gpu_cr = 0, normalised = 0;  // max cr; over the baseline's of the same partition
  std::vector<double> rotation_us;  // the instant of every rotation, from the window's start
  std::vector<double> completion_us;  // per application, from the window's start
  uint64_t blocks = 0;                // blocks the applications ran
  // Blocks that started on an SM outside their application's partition as it was then (the partition
  // set by the latest rotation, or the one before while the change reaches the dispatcher): 0.
  uint64_t blocks_off_partition = 0;
  double longest_block_us = 0;  // the longest any block ran: the drain a rotation may cost an application
};

// Every point of the study, each on its own platform built from `cfg`, twice: a pilot run from ambient,
// then the measured run with every SM starting (thermal.initial) where the run repeated without end
// puts it (the periodic state, worked out from the pilot's mean power and temperature).
std::vector<PolicyRun> run(const Config& cfg, const Study& s);
nlohmann::json to_json(const Study& s, const std::vector<PolicyRun>& runs);
std::string table(const Study& s, const std::vector<PolicyRun>& runs);

}  // namespace gpuvp::wear
