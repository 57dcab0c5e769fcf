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
  if (q_.size() > limit_ && overflow_) overflow_();  // drains: first_ and q_ change
  const uint64_t idx = cycle / len_ < first_ ? first_ : cycle / len_;
  while (q_.size() <= idx - first_) q_.emplace_back();
  cur_ = &q_[idx - first_];
  cur_start_ = idx * len_;
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
  add_powered(powered_since_, until);
  powered_since_ = until;
}

void ActivityLog::set_powered(uint64_t cycle, bool on) {
  if (on == powered_) return;
  if (powered_) close_powered(cycle);
  powered_ = on;
  powered_since_ = std::max(cycle, first_ * len_);
}

}  // namespace gpuvp::power
