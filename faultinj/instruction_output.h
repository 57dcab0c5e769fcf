#pragma once
// Fault model instruction_output (docs/campaigns.md, "Instruction-output faults"): the destination
// (register or predicate) of the n-th dynamic warp instruction of one SM, optionally of one
// instruction group (NVBitFI's groups, and the functional units whose results the vulnerable-period
// evaluation corrupts), every active lane (warp-level) or one. The fault strikes inside the SM, at
// the instruction itself (a retire observer), not at a simulated instant: SMs run ahead of
// simulated time, so "the SM's state at instant t" could be before or after the instruction.
//
// A fault of this model: target "gpu.smK.inst_output.GROUP", trigger Event, event "inst_output",
// count n (1-based, over the golden run's instructions of the group on SM K), index the lane
// selector (0..31: the (index mod active lanes)-th active lane; kWarpLevel: every active lane), bit
// drawn in [0, 64) and applied modulo the destination's width (uniform over its bits: every width
// is a power of two dividing 64), mask the random value of model random_value.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faultinj/fault.h"
#include "models/sm/simt_core.h"

namespace gpuvp {
class Platform;
}

namespace gpuvp::fi {

enum class InstGroup : uint8_t {
  G_FP64 = 0, G_FP32, G_LD, G_PR, G_NODEST, G_OTHERS, G_GPPR, G_GP,  // NVBitFI's (nvbitfi arch.h)
  U_LDST, U_INT, U_FP32, U_FP64, U_SFU,                               // functional-unit results
  Count
};
const char* to_string(InstGroup g);
// Throws std::invalid_argument naming the value and the choices.
InstGroup parse_inst_group(const std::string& s);
// The groups (bit i = InstGroup i) an executed warp instruction belongs to.
uint32_t inst_groups(const RetiredInst& r);
// Bits of the instruction's first destination: 1 for a predicate, else its type's (twice for
// mul.wide/mad.wide), 32 for an untyped one.
unsigned dest_width(const RetiredInst& r);

constexpr uint64_t kWarpLevel = 32;  // Fault::index of a warp-level fault: every active lane

struct InstOutputTarget {
  unsigned sm = 0;
  InstGroup group = InstGroup::G_GP;
};
std::string inst_output_target(const InstOutputTarget& t);  // "gpu.sm0.inst_output.G_GP"
// The SM and group of a target name of this model; none for any other name.
std::optional<InstOutputTarget> parse_inst_output_target(const std::string& name);
inline bool is_inst_output(const Fault& f) { return parse_inst_output_target(f.target).has_value(); }
constexpr const char* kInstOutputEvent = "inst_output";

// The golden run's instructions of one group on one SM: sequence numbers (RetiredInst::seq), issue
// instants (ps) and instruction classes (InstClass, for the per-class AVF), in execution order.
struct InstOccurrences {
  InstOutputTarget where;
  std::vector<uint64_t> seq, ps;
  std::vector<uint8_t> cls;
};

// Records the occurrences of every group asked for, on one SM (the golden run).
class InstRecorder : public RetireObserver {
 public:
  InstRecorder(std::vector<InstOccurrences>& out, uint64_t period_ps) : out_(out), period_ps_(period_ps) {}
  void retired(RetiredInst& r) override;

 private:
  std::vector<InstOccurrences>& out_;
  uint64_t period_ps_;
};

// Applies one fault to the destination of SM instruction number `seq` (a faulty run).
class InstOutputInjector : public RetireObserver {
 public:
  InstOutputInjector(const Fault& f, uint64_t seq) : f_(f), seq_(seq) {}
  void retired(RetiredInst& r) override;
  bool fired() const { return fired_; }
  bool applied() const { return applied_; }  // it changed a destination
  // What it changed ("warp 3 lane 5: 0x... -> 0x..."), or why it changed nothing.
  const std::string& note() const { return note_; }

 private:
  Fault f_;
  uint64_t seq_;
  bool fired_ = false, applied_ = false;
  std::string note_;
};

// The value `v` of a `width`-bit destination after the fault (bit taken modulo width; random_value
// writes the mask, zero_value 0; bits above the width kept).
uint64_t corrupt_value(const Fault& f, uint64_t v, unsigned width);

// Arms `inj` (for instruction `seq` of the fault's SM) on the platform; "" when armed, else why not
// (the instruction already executed, no such SM).
std::string arm_inst_output(Platform& p, const InstOutputTarget& t, InstOutputInjector& inj, uint64_t seq);
void disarm_inst_output(Platform& p, const InstOutputTarget& t);

}  // namespace gpuvp::fi
