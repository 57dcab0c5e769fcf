#pragma once
// The one registry of injectable state. Every model registers each piece of state it holds
// under a hierarchical name (gpu.sched.blocks_scheduled_cnt, gpu.arb_gmem_rd.grant, gpu.gmem).
// Fault injection, the RTL wrappers and waveform tracing all go through these names.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/common/access_log.h"

namespace gpuvp {

// What kind of storage a target is; campaigns sample targets per kind.
enum class TargetKind { Register, Memory };

// Access recording (ACE analysis and fault-space pruning): while a log is attached, models that own a
// target report when its words are read and written, at their simulated instants. A ReadSpan is a
// read at every clock edge from time_ps to until_ps (a value sampled each cycle, kept as one interval,
// not one event per cycle). A write replaces every bit of the word. An event with `lanes` set stands
// for several words at once (one entry per warp instruction operand, not one per thread): for each
// lane l in the mask, the `stride` words from index + l * stride.
// (Access and AccessEvent are in access_log.h, with the compact log a golden run records into.)

// One registered piece of state. A register is one value of `width` bits; a memory is `count`
// words of `width` bits each (addressed gpu.gmem[0x1000] by word index * width/8 bytes).
struct Target {
  std::string name;
  TargetKind kind = TargetKind::Register;
  unsigned width = 0;   // bits per word, 1..64
  uint64_t count = 1;   // words (1 for a register)
  std::function<uint64_t(uint64_t index)> get;
  std::function<void(uint64_t index, uint64_t value)> set;
  // Called after a write so that gated models re-evaluate (wake a sleeping clocked process).
  std::function<void()> on_write;
  // Optional, for large memories: a hash of the contents kept up to date as they change, so that
  // state_hash() need not read every word.
  std::function<uint64_t()> digest;
  // Registration order, the target's number in access logs.
  uint32_t serial = 0;
  // True when the owner reports every read and every write of this target to the access log (set by
  // the owner after add). Only such targets have ACE intervals and are pruned; a value read
  // implicitly (an FSM state every cycle, a signal consumers react to) stays false.
  bool reads_observed = false;
  // Read at every instant (read_always below): its whole access log is one span, noted by the registry.
  bool read_always = false;
};

// The hash of one word for digests: 0 for a zero word, so that zeroed memory hashes to 0.
uint64_t word_digest(uint64_t index, uint64_t value);

class Registry {
 public:
  // Registers a plain integer or bool field by pointer. The value is truncated to `width` bits on write.
  template <typename T>
  void add_field(const std::string& name, unsigned width, T* field, std::function<void()> on_write = {}) {
    Target t;
    t.name = name;
    t.width = width;
    t.get = [field](uint64_t) { return static_cast<uint64_t>(*field); };
    t.set = [field](uint64_t, uint64_t v) { *field = static_cast<T>(v); };
    t.on_write = std::move(on_write);
    add(std::move(t));
  }
  // Registers `count` integers at `data` as one memory target (a table a model keeps, such as queue slots).
  template <typename T>
  void add_array(const std::string& name, unsigned width, T* data, uint64_t count, std::function<void()> on_write = {}) {
    Target t;
    t.name = name;
    t.kind = TargetKind::Memory;
    t.width = width;
    t.count = count;
    t.get = [data](uint64_t i) { return static_cast<uint64_t>(data[i]); };
    t.set = [data](uint64_t i, uint64_t v) { data[i] = static_cast<T>(v); };
    t.on_write = std::move(on_write);
    add(std::move(t));
  }
  void add(Target t);
  void remove_prefix(const std::string& prefix);

  bool contains(const std::string& name) const;
  const Target& at(const std::string& name) const;  // throws std::out_of_range naming the target
  Target& at_mut(const std::string& name);          // the owner completing its registration
  std::vector<const Target*> all() const;            // sorted by name
  std::vector<const Target*> matching(const std::string& glob) const;

  uint64_t read(const std::string& name, uint64_t index = 0) const;
  void write(const std::string& name, uint64_t value, uint64_t index = 0);
  void flip(const std::string& name, unsigned bit, uint64_t index = 0);

  // Access recording: events go to `log` until record_accesses(nullptr). Owners call note() only
  // while recording() (a branch on one pointer when not). Attaching a log notes the read_always targets.
  // The compact log (access_log.h) is what golden runs record into; the vector of decoded events
  // serves tests that look at single events.
  void record_accesses(AccessLog* log);
  void record_accesses(std::vector<AccessEvent>* log);
  void record_accesses(std::nullptr_t) {
    log_ = nullptr;
    events_ = nullptr;
  }
  bool recording() const { return log_ != nullptr || events_ != nullptr; }
  void note(const Target& t, uint64_t index, Access kind, uint64_t time_ps, uint64_t until_ps = 0) {
    if (log_) log_->push(time_ps, until_ps, uint32_t(index), t.serial, 0, kind, 0);
    else if (events_) events_->push_back({time_ps, until_ps, uint32_t(index), t.serial, 0, kind, 0});
  }
  // The words index + l * stride .. + stride - 1 of every lane l in `lanes`, in one entry.
  void note_lanes(const Target& t, uint64_t index, uint32_t lanes, uint8_t stride, Access kind, uint64_t time_ps,
                  uint64_t until_ps = 0) {
    if (!lanes) return;
    if (log_) log_->push(time_ps, until_ps, uint32_t(index), t.serial, lanes, kind, stride);
    else if (events_) events_->push_back({time_ps, until_ps, uint32_t(index), t.serial, lanes, kind, stride});
  }

  // Timing (fault injection's early stop compares it with the state hash at checkpoints): what a
  // model's future depends on beyond its registered values, such as the instants it has posted (a
  // request rising, a bus busy until, an input queued for the next edge). Each model with such timing
  // adds one hook, which folds its instants relative to `now_ps`, the instant of the comparison, and
  // leaves out history that can no longer change anything, so that two runs that diverged and came
  // back together compare equal. timing_digest folds every hook's, by name.
  using TimingDigest = std::function<uint64_t(uint64_t now_ps)>;
  void add_timing(const std::string& name, TimingDigest d);
  uint64_t timing_digest(uint64_t now_ps) const;

  // Total number of state bits (registers and memory words), for FIT computations.
  uint64_t total_bits() const;
  // A hash of every registered value (fault injection compares a faulty run's state with the golden
  // run's at the same instant: equal hashes, reconverged state).
  uint64_t state_hash() const;

 private:
  std::map<std::string, Target> targets_;
  std::map<std::string, TimingDigest> timing_;
  uint32_t next_serial_ = 0;
  AccessLog* log_ = nullptr;
  std::vector<AccessEvent>* events_ = nullptr;
  void note_read_always();
};

// The until_ps of a ReadSpan that lasts to the end of the run, whenever that is.
constexpr uint64_t kToTheEnd = ~uint64_t{0};

// Marks a target whose value is used at every instant of the run: a state register every clock edge
// reads (a flip during a clock-gated stretch wakes its owner, which evaluates the next edge with it), a
// flip-flop driving a signal whose consumers react to any change. A fault there is never dead and no two
// instants are alike: record_accesses notes it as one ReadSpan from 0 to the end of the run (ACE 100 %,
// every fault runs on its own), whether its owner runs while recording or not. (A memory: every word.)
inline void read_always(Target& t) { t.reads_observed = t.read_always = true; }

// Masks a value to `width` bits.
inline uint64_t mask_bits(uint64_t v, unsigned width) {
  return width >= 64 ? v : (v & ((uint64_t{1} << width) - 1));
}

}  // namespace gpuvp
