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

EventCounts& EventCounts::operator+=(const EventCounts& o) {
  for (size_t i = 0; i < n.size(); ++i) n[i] += o.n[i];
  return *this;
}

ActivityLog::ActivityLog(uint64_t interval_cycles, unsigned clusters)
    : len_(interval_cycles ? interval_cycles : 1), clusters_(clusters ? clusters : 1) {
  cur_ = &q_.emplace_back();
  launch_ = &launches_[0];
}

void ActivityLog::seek(uint64_t cycle) {
  // Too many intervals held, or about to be: the owner drains what simulated time allows (first_ and
  // q_ change).
  if ((q_.size() > limit_ || cycle / len_ > first_ + limit_) && overflow_ && !filing_) overflow_();
  uint64_t idx = cycle / len_ < first_ ? first_ : cycle / len_;
  // An SM idle for hours of simulated time: jump over the stretch rather than hold an interval each.
  if (idx - first_ > limit_ && first_active() >= idx) skip_quiet(idx);
  while (q_.size() <= idx - first_) q_.emplace_back();
  cur_ = &q_[idx - first_];
  cur_start_ = idx * len_;
}

uint64_t ActivityLog::first_active() const {
  if (powered_) return first_;
  for (size_t i = 0; i < q_.size(); ++i) {
    const IntervalActivity& a = q_[i];
    if (a.powered_cycles || a.issue_cycles ||
        std::any_of(a.events.n.begin(), a.events.n.end(), [](uint64_t v) { return v != 0; }))
      return first_ + i;
  }
  return ~uint64_t{0};
}

uint64_t ActivityLog::end_open() const {
  size_t n = q_.size();
  auto empty = [](const IntervalActivity& a) {
    return a.powered_cycles == 0 && a.issue_cycles == 0 &&
           std::all_of(a.events.n.begin(), a.events.n.end(), [](uint64_t v) { return v == 0; });
  };
  while (n > 0 && empty(q_[n - 1])) --n;
  return first_ + n;
}

void ActivityLog::skip_quiet(uint64_t end) {
  if (end <= first_) return;
  const uint64_t drop = std::min<uint64_t>(q_.size(), end - first_);  // empty: what follows stays
  q_.erase(q_.begin(), q_.begin() + std::ptrdiff_t(drop));
  first_ = end;
  if (q_.empty()) q_.emplace_back();
  cur_start_ = first_ * len_;
  cur_ = &q_.front();
}

void ActivityLog::issue(uint64_t cycle, unsigned cluster, unsigned lanes, uint64_t launch) {
  if (launch != launch_id_) {
    launch_id_ = launch;
    launch_ = &launches_[launch];
  }
  IntervalActivity& a = at(cycle);
  a.events[Event::WarpInst] += 1;
  (*launch_)[Event::WarpInst] += 1;
  if (cycle != last_issue_) {  // dual issue: two instructions, one issue cycle
    ++a.issue_cycles;
    last_issue_ = cycle;
  }
  a.cluster_warp_insts[cluster] += 1;
  a.cluster_thread_insts[cluster] += lanes;
}

void ActivityLog::add_powered(uint64_t from, uint64_t to) {
  from = std::max(from, first_ * len_);
  while (from < to) {
    const uint64_t end = std::min(to, (from / len_ + 1) * len_);
    at(from).powered_cycles += end - from;
    from = end;
  }
}

void ActivityLog::close_powered(uint64_t until) {
  if (until <= powered_since_) return;
  const uint64_t from = powered_since_;
  powered_since_ = until;
  filing_ = true;
  add_powered(from, until);
  filing_ = false;
}

void ActivityLog::set_powered(uint64_t cycle, bool on) {
  if (on == powered_) return;
  if (powered_) close_powered(cycle);
  powered_ = on;
  powered_since_ = std::max(cycle, first_ * len_);
}

}  // namespace gpuvp::power
