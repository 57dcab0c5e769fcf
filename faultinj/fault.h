#pragma once
// One fault: where (a registered target, word and bit), when (an instant or the n-th event), what
// (the fault model) and for how long. fault-injection.md is the contract.
#include <cstdint>
#include <string>

namespace gpuvp::fi {

enum class FaultModel : uint8_t {
  BitFlip = 0,       // flip bit `bit`
  MultiBitFlip = 1,  // flip `nbits` adjacent bits starting at `bit` (clipped to the target's width)
  StuckAt0 = 2,      // force bit `bit` to 0
  StuckAt1 = 3,      // force bit `bit` to 1
  XorMask = 4,       // value ^= mask
  RandomValue = 5,   // value = mask (a random value drawn with the fault list: NVBitFI's RANDOM_VALUE)
  ZeroValue = 6,     // value = 0 (NVBitFI's ZERO_VALUE)
};
constexpr int kFaultModelCount = 7;

enum class Duration : uint8_t {
  Transient = 0,     // applied once; the design may overwrite it
  Intermittent = 1,  // held (re-applied on every change) for `hold_ps`
  Permanent = 2,     // held to the end of the run
};
constexpr int kDurationCount = 3;

enum class TriggerKind : uint8_t {
  Time = 0,   // at simulated instant time_ps
  Event = 1,  // at the `count`-th occurrence of event `event` (see engine: "gpu.arb_gmem_rd.grant", ...)
};

struct Fault {
  uint64_t id = 0;          // position in the campaign's fault list (0-based)
  std::string target;       // registry name, e.g. "gpu.sched.blocks_scheduled_cnt"
  uint64_t index = 0;       // word index for memory targets (0 for registers)
  unsigned bit = 0;         // lowest bit affected
  unsigned nbits = 1;       // MultiBitFlip
  uint64_t mask = 0;        // XorMask
  FaultModel model = FaultModel::BitFlip;
  Duration duration = Duration::Transient;
  uint64_t hold_ps = 0;     // Intermittent
  TriggerKind trigger = TriggerKind::Time;
  uint64_t time_ps = 0;     // Time trigger: absolute simulated instant
  std::string event;        // Event trigger
  uint64_t count = 0;       // Event trigger: occurrence number (1-based)
};

// What every fault of a campaign shares (the campaign file's "fault" object); the fault list adds
// where and when.
struct FaultTemplate {
  FaultModel model = FaultModel::BitFlip;
  unsigned nbits = 1;  // MultiBitFlip
  uint64_t mask = 0;   // XorMask
  Duration duration = Duration::Transient;
  uint64_t hold_ps = 0;  // Intermittent
};

// The value a `width`-bit word holds after the fault is applied to `value`.
uint64_t apply(const Fault& f, uint64_t value, unsigned width);

const char* to_string(FaultModel m);
const char* to_string(Duration d);
// Parse the names to_string gives; throw std::invalid_argument naming the value and the choices.
FaultModel parse_fault_model(const std::string& s);
Duration parse_duration(const std::string& s);

// How a faulty run ended, compared with the golden run.
enum class Outcome : uint8_t {
  Masked = 0,        // output identical, kernel(s) completed, same execution time
  MaskedTiming = 1,  // output identical, execution time changed
  SDC = 2,           // completed, output differs
  DUE = 3,           // the platform detected an error (see DueKind)
  Timeout = 4,       // did not finish within the bound (simulated time or host watchdog)
  ToolError = 5,     // the fault could not be applied: an error of the tool, never counted as masked
  Tolerable = 6,     // completed, output differs within the campaign's output check (tolerance, share, command)
};
constexpr int kOutcomeCount = 7;

// Detected: the copies of a duplicated data object differed (device error kind `detected`, the
// data-centric protection of docs/reliability.md), apart from Other so that a study counts them.
enum class DueKind : uint8_t {
  None = 0, Tlm = 1, IllegalInstruction = 2, OutOfBounds = 3, Trap = 4, Died = 5, Other = 6, Detected = 7
};
constexpr int kDueKindCount = 8;

const char* to_string(Outcome o);
const char* to_string(DueKind k);
Outcome parse_outcome(const std::string& s);
DueKind parse_due_kind(const std::string& s);
// The DUE kind of a device error kind ("address", "decode", "tlm", "trap", ...).
DueKind due_kind_of(const std::string& device_error_kind);

}  // namespace gpuvp::fi
