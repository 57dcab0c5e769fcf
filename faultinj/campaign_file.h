#pragma once
// Campaign files (docs/campaigns.md): a JSON document saying what to run, where to inject, which
// fault model and how many faults. Every error is a CampaignError naming the file and the key path.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "faultinj/fault.h"
#include "faultinj/output_check.h"
#include "faultinj/rate_mode.h"

namespace gpuvp::fi {

class CampaignError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct WorkloadSpec {
  std::string name;
  std::string launch;  // "" = the workload's default launch
  uint64_t seed = 1;
};

// A campaign on an application (docs/campaigns.md): a CUDA host program run through the project's
// libcudart.so.13, as the golden run and once per fault, each run in a folder of its own (a faulty run
// forked from a golden run at its instant, or a fresh process).
struct AppOutputFile {
  std::string path;          // relative to the run's folder, or absolute
  std::string type = "u8";   // element type for tolerances (output checks)
};
struct ApplicationSpec {
  std::vector<std::string> command;  // argv; command[0] relative to the campaign file's folder
  std::vector<AppOutputFile> outputs;
  std::string workdir;               // copied into every run's folder (relative to the campaign file's folder); "": none
  double timeout_s = 0;              // a faulty run's wall-time limit (0: from the golden run's)
  bool fork = true;                  // faulty runs forked from golden runs at their instants (else fresh processes)
  bool check_reproducible = true;    // a second fault-free run must be classified masked (app_run.h)
};

// The sample size: a fixed count, or Leveugle's formula from margin and confidence.
struct SizeSpec {
  bool exhaustive = false;  // {"exhaustive": true}: every bit at every edge of the window
  std::optional<uint64_t> count;
  double margin = 0;
  double confidence = 0;
  double t = 0;  // the normal quantile of `confidence`
  double p = 0.5;
};

struct WindowSpec {
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
};

// A bus campaign: faults in the transactions crossing one link instead of registered state.
struct BusSpec {
  std::string link;   // a link name (Platform::link_names(): gpu.sm0.gmem_wr, gpu.arb_gmem_rd.out, ...)
  std::string field;  // address, data, byte_enable, command
};

// When faults strike: at clock edges of the window ("time"), or at the n-th occurrence of an
// event of the golden run: a block dispatch (smp_en), or a warp instruction of SM `sm` (just after
// it executed), n uniform over the golden run's occurrences.
struct TriggerSpec {
  std::string event = "time";
  unsigned sm = 0;
};

// An instruction-output campaign (fault model instruction_output, docs/campaigns.md): the destination
// of the n-th dynamic instruction of `group` on SM `sm`, n uniform over the golden run's; every
// active lane (`warp`) or one.
struct InstOutputSpec {
  unsigned sm = 0;
  std::string group = "G_GPPR";
  bool warp = false;
};

struct CampaignSpec {
  std::string origin;  // the file it came from, for messages
  std::string name;
  std::string preset;
  nlohmann::json set = nlohmann::json::object();  // configuration key -> scalar value
  std::optional<WorkloadSpec> workload;           // exactly one of workload, exec and application
  std::optional<nlohmann::json> exec;             // a launch description, passed through
  std::optional<ApplicationSpec> application;     // instead of workload and exec
  std::vector<std::string> targets;
  std::vector<std::string> exclude;
  std::optional<BusSpec> bus;  // instead of targets/exclude
  std::optional<InstOutputSpec> inst_output;  // instead of targets/exclude/bus
  std::optional<RateSpec> rate;               // rate mode: several faults per run, instead of targets/...
  TriggerSpec trigger;
  FaultTemplate fault;
  SizeSpec size;
  std::optional<WindowSpec> window;  // none: the golden run's execution window
  uint64_t seed = 1;
  double timeout_factor = 3;
  unsigned workers = 0;  // 0: the number of CPUs
  bool early_stop = true;
  // "allocated_only": register-file targets (gpu.smN.regs, and rate mode's registers) draw only over the
  // words the golden run's kernels allocated (reg_map.h); false: over the whole file.
  bool allocated_only = true;
  bool pruning = true;  // faults in dead intervals recorded masked, one run per live interval (lifetimes.h)
  OutputCheckSpec check;  // "check": outputs and how they are compared (base_dir set by the caller)
  // "faults": the faults to run instead of drawing them: a list in the file, or the path of a CSV
  // (the columns of `gpuvp campaign export --csv`), relative to the campaign file's folder.
  std::optional<std::vector<Fault>> listed_faults;
  std::string faults_csv;
  // "raw_fit_per_bit": the raw upset rate reports turn into FIT and MTBF in hours (none: the default of
  // docs/reliability.md, kDefaultRawFitPerBit).
  std::optional<double> raw_fit_per_bit;

  bool lists_faults() const { return listed_faults || !faults_csv.empty(); }
};

// Faults given as JSON objects with the columns of the export CSV (target, idx, bit, nbits, mask, model,
// duration, hold_ps, trigger, time_ps, event, count); `where` names the list in messages ("f.json:
// faults"). `lenient`: unknown keys are ignored (a CSV export's outcome columns).
std::vector<Fault> parse_fault_entries(const nlohmann::json& list, const std::string& where, bool lenient);
// A CSV file of faults (a header line naming the columns, then one fault a line); errors name the
// file and line.
std::vector<Fault> read_fault_csv(const std::string& path);

// Checks a parsed document; `origin` names it in messages.
CampaignSpec parse_campaign(const nlohmann::json& j, const std::string& origin);
// Parses JSON text (comments allowed), refusing nesting deeper than kMaxJsonDepth first
// (platform/config/json_text.h).
CampaignSpec parse_campaign_text(const std::string& text, const std::string& origin);
// Reads and parses a file; messages name the path.
CampaignSpec load_campaign(const std::string& path);

}  // namespace gpuvp::fi
