#pragma once
// Output checks (docs/campaigns.md, "Output checks"): which buffers of a job are its outputs, and how a
// faulty run's outputs are compared with the golden run's: exactly, within an absolute/relative
// tolerance per element, with a maximum share of elements beyond it, or by an external command.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faultinj/fault.h"

namespace gpuvp::fi {

// One buffer a host program read back: `before` is what it held when the kernel started (empty when
// the job does not know: a workload's output, the kernel's printed text), `after` what it read back.
struct OutputBuffer {
  std::string name;          // "args[2]" (an exec launch's argument), "printf", "output" (a workload's)
  std::string type = "u8";   // element type: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64
  bool known_before = false;
  std::vector<uint8_t> before, after;
};

// The campaign file's "check" object.
struct OutputCheckSpec {
  std::vector<std::string> outputs;   // buffer names; empty: the buffers the golden run's kernel wrote
  std::optional<double> abs, rel;     // per-element tolerance: |faulty - golden| <= abs + rel * |golden|
  std::optional<double> max_share;    // elements beyond the tolerance allowed, as a share of all output elements
  std::vector<std::string> command;   // external check: argv, then the golden and the faulty output file
  double timeout_s = 10;              // the command's wall-time limit
  std::string base_dir;               // where a relative command path starts (the campaign file's folder)
  // What to do when no buffer was written and none is named: the error ends with it (a command
  // without check.outputs says what it does instead).
  std::string unwritten_hint = "name the outputs in check.outputs";

  bool tolerant() const { return abs || rel || max_share; }
};

// The golden run's output buffers (after selection) with their contents.
struct GoldenOutput {
  std::string name, type;
  std::vector<uint8_t> bytes;
};

// The buffers of `all` (the golden run's) that are outputs: those named by the spec, else those whose
// contents changed during the run or whose initial contents are unknown. Throws std::invalid_argument
// naming an unknown buffer (with the known names), or saying that no buffer was written.
std::vector<GoldenOutput> select_outputs(const OutputCheckSpec& spec, const std::vector<OutputBuffer>& all);

struct CheckVerdict {
  Outcome outcome = Outcome::Masked;  // Masked: outputs identical; Tolerable; SDC; ToolError (the command failed)
  std::string detail;                 // what differed (elements, first index, largest errors), or why the tool failed
};

// Compares a faulty run's buffers (all of them, as Job::buffers() gives them) with the golden outputs.
CheckVerdict check_outputs(const OutputCheckSpec& spec, const std::vector<GoldenOutput>& golden,
                           const std::vector<OutputBuffer>& faulty);

// Runs the external check command on two byte strings (written to temporary files); exit 0: tolerable,
// exit 1: SDC; any other status, a signal, a failure to start or the time limit: ToolError with the
// command's message. Never waits longer than spec.timeout_s.
CheckVerdict run_check_command(const OutputCheckSpec& spec, const std::vector<uint8_t>& golden,
                               const std::vector<uint8_t>& faulty);

}  // namespace gpuvp::fi
