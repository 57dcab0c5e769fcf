#include "models/power/activity.h"

#include <algorithm>

namespace gpuvp::power {

const char* event_name(Event e) {
  static const char* const names[] = {"warp_inst", "int",       "fp32",      "fp64",        "sfu",
                                      "ldst",      "control",   "reg_read",  "reg_write",   "shared",
                                      "l1d_read",  "l1d_write", "const_cache", "icache",    "offchip"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(Event::Count));
  return names[size_t(e)];
}

void IntervalRing::grow() {
  std::vector<IntervalActivity> b(buf_.size() * 2);
  for (size_t i = 0; i < n_; ++i) b[i] = (*this)[i];
  buf_.swap(b);
  mask_ = buf_.size() - 1;
  head_ = 0;
}

ActivityLog::ActivityLog(uint64_t interval_cycles, unsigned clusters)
    : len_(interval_cycles ? interval_cycles : 1), clusters_(clusters ? clusters : 1) {
  cur_ = &q_.push();
  launches_[0];
}

void ActivityLog::seek(uint64_t cycle) {
  // Too many intervals held, or about to be: the owner drains what simulated time allows (first_ and
  // q_ change).
  if ((q_.size() > limit_ || cycle / len_ > first_ + limit_) && overflow_) overflow_();
  uint64_t idx = cycle / len_ < first_ ? first_ : cycle / len_;
  // An SM idle for hours of simulated time: jump over the stretch rather than hold an interval each.
  if (idx - first_ > limit_ && first_active() >= idx) skip_steady(idx);
  while (q_.size() <= idx - first_) q_.push();
  cur_ = &q_[idx - first_];
  cur_start_ = idx * len_;
}

uint64_t ActivityLog::first_counted() const {
  for (size_t i = 0; i < q_.size(); ++i)
    if (q_[i].counted) return first_ + i;
  return ~uint64_t{0};
}

uint64_t ActivityLog::first_active() const {
  const uint64_t from = first_ * len_;
  uint64_t a = first_counted();
  if (!spans_.empty()) a = std::min(a, std::max(spans_.front().first, from) / len_);  // spans end after from
  if (powered_) a = std::min(a, std::max(powered_since_, from) / len_);
  return a;
}

uint64_t ActivityLog::steady_end() const {
  // The first change of the powered state after the oldest interval's start: the interval holding it
  // is not steady (unless the change is at its start, where the next stretch begins).
  const uint64_t from = first_ * len_;
  uint64_t change = ~uint64_t{0};
  if (!spans_.empty()) change = spans_.front().first > from ? spans_.front().first : spans_.front().second;
  else if (powered_ && powered_since_ > from) change = powered_since_;
  return std::min(first_counted(), change == ~uint64_t{0} ? change : change / len_);
}

bool ActivityLog::powered_at(uint64_t cycle) const {
  for (const auto& [f, t] : spans_)
    if (cycle >= f && cycle < t) return true;
  return powered_ && cycle >= powered_since_;
}

uint64_t ActivityLog::powered_in(uint64_t from, uint64_t to) const {
  auto overlap = [&](uint64_t f, uint64_t t) {
    const uint64_t lo = std::max(f, from), hi = std::min(t, to);
    return hi > lo ? hi - lo : 0;
  };
  uint64_t n = powered_ ? overlap(powered_since_, to) : 0;
  for (const auto& [f, t] : spans_) {
    if (f >= to) break;
    n += overlap(f, t);
  }
  return n;
}

void ActivityLog::drop_spans() {
  while (!spans_.empty() && spans_.front().second <= first_ * len_) spans_.pop_front();
}

uint64_t ActivityLog::end_open() const {
  size_t n = q_.size();
  while (n > 0 && !q_[n - 1].counted) --n;
  const uint64_t spans_end = spans_.empty() ? 0 : (spans_.back().second + len_ - 1) / len_;
  return std::max(first_ + n, spans_end);
}

void ActivityLog::skip_steady(uint64_t end) {
  if (end <= first_) return;
  const uint64_t drop = std::min<uint64_t>(q_.size(), end - first_);  // empty: what follows stays
  // An interval nothing was counted in is all zeros (powered time is filed only as it is drained): when
  // every interval held goes, the last stays as the new first rather than being zeroed again (a wait
  // skips a steady stretch at every wake-up).
  q_.pop_front(size_t(drop == q_.size() && drop > 0 ? drop - 1 : drop));
  first_ = end;
  drop_spans();
  if (q_.empty()) q_.push();
  cur_start_ = first_ * len_;
  cur_ = &q_.front();
}

void ActivityLog::issue(uint64_t cycle, unsigned cluster, unsigned lanes, uint64_t launch) {
  issue_at(cycle, cluster, lanes, launch);
}

EventCounts ActivityLog::counted_so_far() const {
  EventCounts c = drained_;
  for (size_t i = 0; i < q_.size(); ++i)
    if (q_[i].counted) c += q_[i].events;
  return c;
}

// The events counted since the last change are the old launch's. A change costs a sum over the open
// intervals (a few): launches change far less often than instructions issue, unless kernels of several
// launches share the SM warp by warp.
void ActivityLog::switch_launch(uint64_t launch) {
  const EventCounts now = counted_so_far();
  EventCounts since = now;
  since -= at_switch_;
  launches_[launch_id_] += since;
  at_switch_ = now;
  launch_id_ = launch;
  launches_[launch];  // listed from its first instruction on, even if it counts nothing
}

std::unordered_map<uint64_t, EventCounts> ActivityLog::by_launch() const {
  auto by = launches_;
  EventCounts since = counted_so_far();
  since -= at_switch_;
  by[launch_id_] += since;
  return by;
}

void ActivityLog::set_powered(uint64_t cycle, bool on) {
  if (on == powered_) return;
  if (powered_ && cycle > powered_since_) spans_.emplace_back(powered_since_, cycle);
  if (on) powered_since_ = std::max(cycle, first_ * len_);
  powered_ = on;
}

}  // namespace gpuvp::power
