#include "models/scheduler/work_queues.h"

#include <algorithm>

namespace gpuvp {

WorkQueues::WorkQueues(Registry& reg, const std::string& path, unsigned slots, unsigned events,
                       std::function<uint64_t()> now_ps)
    : tag_(slots), state_(slots), blocks_(slots), assigned_(slots), completed_(slots), kind_(slots), stream_(slots),
      level_(slots), event_(slots), target_(slots), seq_(slots), qseq_(slots), recorded_(events), last_record_(events) {
  const std::string w = path + ".work.";
  reg.add_array(w + "state", 3, state_.data(), slots);
  kind_.add(reg, w + "kind", 3, now_ps);
  stream_.add(reg, w + "stream", 16, now_ps);
  level_.add(reg, w + "priority", 1, now_ps);
  seq_.add(reg, w + "seq", 32, now_ps);
  qseq_.add(reg, w + "qseq", 32, now_ps);
  reg.add_array(w + "blocks", 32, blocks_.data(), slots);
  reg.add_array(w + "assigned", 32, assigned_.data(), slots);
  reg.add_array(w + "completed", 32, completed_.data(), slots);
  event_.add(reg, w + "event", 16, now_ps);
  target_.add(reg, w + "target", 32, now_ps);
  recorded_.add(reg, path + ".event.recorded", 32, now_ps);
}

int WorkQueues::submit(const WorkItem& w) {
  auto it = std::find(state_.begin(), state_.end(), uint32_t(Free));
  // A slot whose state a fault pushed out of range counts as free too.
  if (it == state_.end()) it = std::find_if(state_.begin(), state_.end(), [](uint32_t s) { return s > Copying; });
  if (it == state_.end()) return -1;
  const int i = int(it - state_.begin());
  state_[i] = InStream;
  kind_.set(i, (w.kind & 3) | (w.non_blocking ? kNonBlockingBit : 0));
  stream_.set(i, w.stream & 0xFFFF);
  level_.set(i, w.priority ? 1 : 0);
  blocks_[i] = w.blocks;
  assigned_[i] = completed_[i] = 0;
  const uint32_t e = w.event % uint32_t(recorded_.size());
  event_.set(i, e);
  // A wait waits for the last record of its event submitted before it, that record only (CUDA: a
  // record made later, or an earlier one still running in another stream, does not count).
  if (w.kind == WorkItem::Record) last_record_[e] = uint32_t(next_seq_);
  target_.set(i, last_record_[e]);
  seq_.set(i, next_seq_++);
  qseq_.set(i, 0);
  tag_[i] = w.tag;
  return i;
}

WorkItem WorkQueues::item(int i) const {
  WorkItem w;
  w.kind = WorkItem::Kind(kind_.get(i) & 3);
  w.non_blocking = non_blocking(i);
  w.stream = stream_.get(i);
  w.priority = level_.get(i);
  w.blocks = blocks_[i];
  w.event = event_.get(i);
  w.tag = tag_[i];
  return w;
}

bool WorkQueues::idle() const {
  return std::all_of(state_.begin(), state_.end(), [](uint32_t s) { return s == Free || s > Copying; });
}

unsigned WorkQueues::free_slots() const {
  return unsigned(std::count_if(state_.begin(), state_.end(), [](uint32_t s) { return s == Free || s > Copying; }));
}

bool WorkQueues::kernel_waiting() const {
  for (size_t i = 0; i < state_.size(); ++i)
    if (state_[i] == InStream && (kind_.get(i) & 3) == WorkItem::Kernel) return true;
  return false;
}

// The stream queue of s holds its live slots in seq order; the head is the lowest seq.
int WorkQueues::stream_head(uint32_t stream) const {
  int best = -1;
  for (int i = 0; i < int(state_.size()); ++i)
    if (state_[i] != Free && state_[i] <= Copying && stream_.get(i) == stream &&
        (best < 0 || seq_.get(i) < seq_.get(best)))
      best = i;
  return best;
}

bool WorkQueues::is_head(int i) const { return stream_head(stream_.get(i)) == i; }

bool WorkQueues::non_blocking(int i) const { return kind_.get(i) & kNonBlockingBit; }

// N1: the NULL stream's head goes on only when every other blocking stream is empty or has at its head
// something launched after it. N2: a blocking stream's head waits while the NULL stream's head was
// launched before it. (Both apply to every kind of work: the NULL stream orders copies and events too.)
// A non-blocking stream (cudaStreamNonBlocking) is in neither rule. Its bit is read last, only when it
// decides: a flip of it matters only then.
bool WorkQueues::may_leave_stream_head(int i) const {
  if (stream_.get(i) != 0) {
    const int n = stream_head(0);
    return n < 0 || seq_.get(n) > seq_.get(i) || non_blocking(i);
  }
  for (int j = 0; j < int(state_.size()); ++j)
    if (state_[j] != Free && state_[j] <= Copying && stream_.get(j) != 0 && is_head(j) && seq_.get(j) < seq_.get(i) &&
        !non_blocking(j))
      return false;
  return true;
}

// G2/A1 (kernel to the EE queue of its level), C1 (copy to the CE queue); a record completes, a wait
// completes once its event's record has. True when something moved.
bool WorkQueues::promote(int i) {
  if (state_[i] != InStream || !is_head(i) || !may_leave_stream_head(i)) return false;
  switch (kind_.get(i) & 3) {
    case WorkItem::Kernel:
      state_[i] = InEE;
      qseq_.set(i, next_qseq_++);
      return true;
    case WorkItem::Copy:
      state_[i] = InCE;
      qseq_.set(i, next_qseq_++);
      return true;
    case WorkItem::Record: {
      const size_t e = event_.get(i) % recorded_.size();
      recorded_.update(e, recorded_.get(e) + 1);
      return true;  // the caller releases it after reporting
    }
    default:  // Wait: completes (the caller releases it after reporting) once its record has
      return !record_pending(event_.get(i), target_.get(i));
  }
}

bool WorkQueues::record_pending(uint32_t event, uint32_t seq) const {
  for (size_t j = 0; j < state_.size(); ++j)
    if (state_[j] != Free && (kind_.get(j) & 3) == WorkItem::Record && seq_.get(j) == seq && event_.get(j) == event)
      return true;
  return false;
}

std::vector<uint64_t> WorkQueues::settle() {
  std::vector<uint64_t> records;
  for (bool moved = true; moved;) {
    moved = false;
    for (int i = 0; i < int(state_.size()); ++i) {
      const bool event_op = state_[i] == InStream && (kind_.get(i) & 3) >= WorkItem::Record;
      if (!promote(i)) continue;
      moved = true;
      if (event_op) {
        records.push_back(tag_[i]);
        release(i);
      }
    }
  }
  return records;
}

// The head of the engine queue in state s: lowest qseq, of priority `level` when by_level.
int WorkQueues::engine_head(State s, uint32_t level, bool by_level) const {
  int best = -1;
  for (int i = 0; i < int(state_.size()); ++i)
    if (state_[i] == s && (!by_level || level_.get(i) == level) && (best < 0 || qseq_.get(i) < qseq_.get(best))) best = i;
  return best;
}

int WorkQueues::head_kernel() const {
  for (uint32_t level = 0; level < kLevels; ++level)  // A2: a lower level only when the higher are empty
    if (int k = engine_head(InEE, level, true); k >= 0) return k;
  return -1;
}

std::vector<int> WorkQueues::engine_kernels() const {
  std::vector<int> ks;
  for (int i = 0; i < int(state_.size()); ++i)
    if (state_[i] == InEE) ks.push_back(i);
  std::sort(ks.begin(), ks.end(), [&](int a, int b) {
    return level_.get(a) != level_.get(b) ? level_.get(a) < level_.get(b) : qseq_.get(a) < qseq_.get(b);
  });
  return ks;
}

void WorkQueues::block_assigned(int i) {
  if (++assigned_[i] >= blocks_[i] && state_[i] == InEE) state_[i] = Assigned;  // G3
}

bool WorkQueues::block_completed(int i) {
  if (state_[i] == Free) return false;  // a fault already released it
  if (++completed_[i] < blocks_[i]) return false;
  release(i);  // G4
  return true;
}

int WorkQueues::head_copy() const {
  if (engine_head(Copying, 0, false) >= 0) return -1;  // one copy at a time
  return engine_head(InCE, 0, false);
}

void WorkQueues::copy_started(int i) { state_[i] = Copying; }   // C3
void WorkQueues::copy_completed(int i) { release(i); }           // C4

void WorkQueues::release(int i) {
  state_[i] = Free;
  seq_.set(i, 0);
  qseq_.set(i, 0);
}

}  // namespace gpuvp
