#pragma once
// The work queues of a TX2-class GPU (docs/concurrent-kernels.md):
// one FIFO per stream, one execution-engine (EE) queue per priority level and one copy-engine (CE)
// queue, and the rules that move work between them: G1-G4, X1, C1-C4, N1-N2, A1-A2.
//
// Pure logic without SystemC: the concurrent dispatcher calls it at the instants things happen (a
// command arrives, a block is assigned or completes, a copy starts or ends) and asks it what may
// start. Everything is kept in one fixed-size table of work slots, as hardware keeps it, so that every
// queue and counter is registered state (fault targets):
//   <path>.work.state[i]      0 free, 1 in its stream queue, 2 in an EE queue, 3 blocks all assigned,
//                             4 in the CE queue, 5 on the copy engine (other values: treated as free)
//   <path>.work.kind[i]       bits 0-1: 0 kernel, 1 copy, 2 event record, 3 event wait; bit 2: the
//                             stream is non-blocking (N1/N2 do not apply to it)
//   <path>.work.stream[i]     stream (0: the NULL stream)
//   <path>.work.priority[i]   the stream's priority level: 0 high (-1 in CUDA), 1 low (0 in CUDA)
//   <path>.work.seq[i]        order the host's call completed (G1): stream-queue order, N1/N2
//   <path>.work.qseq[i]       order the item joined its engine queue: EE- and CE-queue order
//   <path>.work.blocks/assigned/completed[i]   a kernel's grid size and its block counters
//   <path>.work.event[i], <path>.work.target[i]  a record's or wait's event; the record a wait waits for
//   <path>.event.recorded[e]  records of event e completed so far
// A queue is the set of slots in its state, in seq (stream) or qseq (engine) order. A fault that
// corrupts a field changes what runs when, never the memory safety of the model.
//
// Access recording (docs/campaigns.md, "Lifetimes, ACE and pruning"): given the simulated instant, the
// tables other than state, blocks, assigned and completed (which the dispatcher reads at every instant)
// report each read and write of their words as it happens: a fill writes every field of its slot, the
// queue walks read what they compare, a release writes seq and qseq. So a field is live from its fill to
// its last read and dead in a free slot (nothing reads a free slot's fields until the next fill).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/common/registry.h"
#include "models/scheduler/recorded_table.h"

namespace gpuvp {

struct WorkItem {
  enum Kind : uint32_t { Kernel = 0, Copy = 1, Record = 2, Wait = 3 };
  Kind kind = Kernel;
  uint32_t stream = 0;    // 0: the NULL stream
  uint32_t priority = 1;  // level: 0 high, 1 low (A1: a kernel joins the EE queue of its level)
  bool non_blocking = false;  // its stream neither waits for the NULL stream nor holds it back (N1, N2)
  uint32_t blocks = 0;    // Kernel: blocks in the grid (>= 1)
  uint32_t event = 0;     // Record, Wait: the event (< events())
  uint64_t tag = 0;       // the submitter's id (launch id, copy id); not interpreted
};

class WorkQueues {
 public:
  enum State : uint32_t { Free = 0, InStream = 1, InEE = 2, Assigned = 3, InCE = 4, Copying = 5 };
  static constexpr unsigned kLevels = 2;  // priority levels (TX2: high and low)
  static constexpr uint32_t kNonBlockingBit = 4;  // in work.kind: the item's stream is non-blocking

  // `now_ps`: the simulated instant (ps) for access recording; without it the recorded tables are not
  // observed (their reads are not reported).
  WorkQueues(Registry& reg, const std::string& path, unsigned slots, unsigned events,
             std::function<uint64_t()> now_ps = {});

  // G1: the item joins its stream's queue. Returns its slot, or -1 when the table is full (the
  // submitter waits for a completion, as a full push buffer makes the driver wait).
  int submit(const WorkItem& w);
  // Applies G2, C1, N1, N2 and A1 until nothing moves; records and waits at the head of their stream
  // complete here. Returns the tags of the records and waits that completed, in that order (the
  // caller timestamps them and tells their submitters).
  std::vector<uint64_t> settle();

  // X1 + A2: the kernel whose next block may be assigned (the head of the highest-priority non-empty
  // EE queue), or -1.
  int head_kernel() const;
  // Every kernel in an EE queue, in dispatch order: higher priority levels first, each level in
  // EE-queue order (the dispatcher walks it when kernels are confined to SM sets).
  std::vector<int> engine_kernels() const;
  uint32_t next_block(int slot) const { return assigned_[slot]; }
  void block_assigned(int slot);               // G3 when the last block is assigned
  bool block_completed(int slot);              // G4: true when it was the kernel's last block
  // C2: the copy at the head of the CE queue when the copy engine is free, or -1.
  int head_copy() const;
  void copy_started(int slot);                 // C3
  void copy_completed(int slot);               // C4

  WorkItem item(int slot) const;  // as the registered fields describe it now (reads them all)
  uint64_t tag(int slot) const { return tag_[slot]; }
  State state(int slot) const { return State(state_[slot]); }
  unsigned slots() const { return unsigned(state_.size()); }
  unsigned events() const { return unsigned(recorded_.size()); }
  bool idle() const;  // every slot free
  unsigned free_slots() const;
  bool kernel_waiting() const;  // a kernel in a stream queue, not yet in an EE queue

 private:
  bool is_head(int slot) const;        // first of its stream in seq order
  int stream_head(uint32_t stream) const;
  bool may_leave_stream_head(int slot) const;  // N1, N2
  bool non_blocking(int slot) const;           // kind's bit 2
  bool promote(int slot);              // one head item to its engine queue, or completed
  int engine_head(State s, uint32_t level, bool by_level) const;
  void release(int slot);

  std::vector<uint64_t> tag_;          // the submitter's ids (not hardware state: not registered)
  std::vector<uint32_t> state_, blocks_, assigned_, completed_;  // read at every instant (the dispatcher)
  RecordedTable<uint32_t> kind_, stream_, level_, event_, target_;
  RecordedTable<uint64_t> seq_, qseq_;
  RecordedTable<uint32_t> recorded_;
  std::vector<uint32_t> last_record_;  // per event, the seq of its last record submitted (not registered)
  bool record_pending(uint32_t event, uint32_t seq) const;  // that record still in a queue
  uint64_t next_seq_ = 1, next_qseq_ = 1;
};

}  // namespace gpuvp
