// Statistics and the block timeline of a run, from the modules' counters.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "platform/platform.h"
#include "platform/platform_impl.h"
#include "platform/power_outputs.h"
#include "sw/runtime/clock_cycles.h"

namespace gpuvp {

std::vector<std::pair<std::string, uint64_t>> Platform::scheduler_phases() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  const std::vector<PhaseMark>* marks = nullptr;
  if (auto* s = dynamic_cast<const BlockScheduler*>(impl_->sched.get())) marks = &s->stats().phases;
  if (auto* r = dynamic_cast<const RtlBlockScheduler*>(impl_->sched.get())) marks = &r->phases();
  if (marks)
    for (const PhaseMark& m : *marks) out.emplace_back(to_string(m.phase), m.cycle * impl_->clk.period().value());
  return out;
}

namespace {
// The global memory's counters at instant ps: the last mark at or before it (marks are taken at every
// launch's start and end, so a launch's own instants are marked).
PlatformStats::Bytes bytes_at(const std::vector<HostPort::BytesMark>& marks, uint64_t ps) {
  auto it = std::upper_bound(marks.begin(), marks.end(), ps, [](uint64_t t, const HostPort::BytesMark& m) { return t < m.ps; });
  if (it == marks.begin()) return {};
  --it;
  return {it->read_bytes, it->write_bytes};
}

std::vector<PlatformStats::Bytes> launch_bytes(std::vector<HostPort::BytesMark> marks,
                                               const std::vector<rt::LaunchStats>& launches) {
  std::stable_sort(marks.begin(), marks.end(), [](const auto& a, const auto& b) { return a.ps < b.ps; });
  // A completion is marked when the host learns of it, with its own instant: counters read later
  // than an earlier-stamped mark are kept non-decreasing (the bytes of that gap go to the later mark).
  for (size_t i = 1; i < marks.size(); ++i) {
    marks[i].read_bytes = std::max(marks[i].read_bytes, marks[i - 1].read_bytes);
    marks[i].write_bytes = std::max(marks[i].write_bytes, marks[i - 1].write_bytes);
  }
  std::vector<PlatformStats::Bytes> out;
  for (const rt::LaunchStats& l : launches) {
    const PlatformStats::Bytes s = bytes_at(marks, l.start_ps), e = bytes_at(marks, l.end_ps);
    out.push_back({e.read - s.read, e.write - s.write});
  }
  return out;
}
}  // namespace

PlatformStats Platform::stats() const {
  auto& p = *impl_;
  PlatformStats st;
  st.sim_seconds = sc_core::sc_time_stamp().to_seconds();
  st.host_seconds = p.host_seconds;
  st.launches = p.host->launches();
  // The runtime records a launch when it completes; concurrent kernels complete out of launch order.
  std::stable_sort(st.launches.begin(), st.launches.end(),
                   [](const rt::LaunchStats& a, const rt::LaunchStats& b) { return a.launch_id < b.launch_id; });
  // Time with at least one kernel in flight: the union of the windows (concurrent kernels overlap).
  auto windows = p.host->windows();
  std::sort(windows.begin(), windows.end());
  uint64_t window_ps = 0, covered = 0;
  for (auto& [s, e] : windows) {
    const uint64_t from = std::max(s, covered);
    if (e > from) window_ps += e - from;
    covered = std::max(covered, e);
  }
  st.kernel_cycles = rt::cycles_in(window_ps, p.clk.period().value());
  // The kernel time in whole cycles, as documented: the windows start between edges, by an amount that
  // depends on the host program, which must not change a residency fraction.
  const uint64_t kernel_ps = st.kernel_cycles * p.clk.period().value();
  // The copy engine moves its data by debug transport (its timing is its own): its bytes are added.
  st.dram = {p.gmem->read_bytes(), p.gmem->write_bytes()};
  if (p.ce) st.dram.read += p.ce->bytes_to_host(), st.dram.write += p.ce->to_device_bytes();
  st.launch_dram = launch_bytes(p.host->bytes_marks(), st.launches);
  for (auto& sm : p.sms) {
    st.sms.push_back(sm->stats());
    st.thread_insts += sm->stats().thread_insts;
    // (at most 1: a residency can reach into the part cycle the whole cycles leave out)
    const double fraction = kernel_ps ? double(sm->stats().busy_ps) / double(kernel_ps) : 0.0;
    st.sm_residency_fraction.push_back(std::min(1.0, fraction));
    st.sm_caches.emplace_back();
    for (auto& [name, c] : sm->cache_stats()) st.sm_caches.back().push_back({name, c});
  }
  if (p.l2) st.l2.push_back({"l2", p.l2->stats()});
  if (const power::PowerAccounting* pa = power()) {
    PowerChipActivity chip;
    chip.seconds = st.sim_seconds;
    if (p.l2) chip.l2_reads = p.l2->stats().reads, chip.l2_writes = p.l2->stats().writes;
    if (DramBus* b = p.gmem->dram_bus()) chip.dram_bytes = b->bytes();
    st.power = power_stats_json(*pa, chip);
  }
  for (ArbitratedTarget* a : p.arbiters()) {
    ArbiterStats as;
    as.name = a->basename();
    for (unsigned i = 0; i < a->size(); ++i) {
      const ArbiterPortStats ps = a->stats(i);
      as.grants.push_back(ps.grants);
      as.stall_cycles.push_back(ps.stall_cycles);
      as.wait_cycles.push_back(ps.wait_cycles);
    }
    st.arbiters.push_back(std::move(as));
  }
  return st;
}

std::vector<BlockRecord> Platform::timeline() const {
  std::vector<BlockRecord> all;
  for (auto& sm : impl_->sms) all.insert(all.end(), sm->block_records().begin(), sm->block_records().end());
  std::stable_sort(all.begin(), all.end(), [](const BlockRecord& a, const BlockRecord& b) {
    return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.sm < b.sm;
  });
  return all;
}

namespace {
nlohmann::json stalls_json(const uint64_t (&c)[size_t(StallReason::Count)]) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t r = 0; r < size_t(StallReason::Count); ++r) j[stall_reason_name(StallReason(r))] = c[r];
  return j;
}

nlohmann::json inst_class_json(const uint64_t (&counts)[size_t(InstClass::Count)]) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t c = 0; c < size_t(InstClass::Count); ++c) j[inst_class_name(InstClass(c))] = counts[c];
  return j;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

nlohmann::json scheduler_json(const SmStats::Scheduler& k) {
  return {{"cycles", k.cycles},
          {"issue_cycles", k.issue_cycles},
          {"warp_insts", k.warp_insts},
          {"dual_issued", k.dual_issued},
          {"stall_cycles", stalls_json(k.stall_cycles)}};
}

void add(SmStats::Scheduler& to, const SmStats::Scheduler& k) {
  for (size_t r = 0; r < size_t(StallReason::Count); ++r) to.stall_cycles[r] += k.stall_cycles[r];
  to.cycles += k.cycles;
  to.issue_cycles += k.issue_cycles;
  to.warp_insts += k.warp_insts;
  to.dual_issued += k.dual_issued;
}

// The dynamic energy of a launch's instructions (null without power accounting).
nlohmann::json launch_energy(const nlohmann::json& power, uint64_t launch_id) {
  if (power.is_null()) return nullptr;
  auto it = power["launches"].find(std::to_string(launch_id));
  return it == power["launches"].end() ? nlohmann::json(0.0) : *it;
}

// Issue timing's schedulers (docs/statistics.md, "Issue"): every scheduler has the SM's cycles with a
// block resident; the SM's figures add its schedulers up.
nlohmann::json issue_json(const SmStats& s) {
  const uint64_t cycles = s.schedulers.empty() ? 0 : s.schedulers[0].cycles;
  SmStats::Scheduler sum;
  nlohmann::json per = nlohmann::json::array();
  for (const SmStats::Scheduler& k : s.schedulers) {
    add(sum, k);
    per.push_back(scheduler_json(k));
  }
  const uint64_t issued = sum.warp_insts, dual = sum.dual_issued;
  const auto& stalls = sum.stall_cycles;
  const uint64_t slots = cycles * s.schedulers.size() * s.dispatch;
  return {{"schedulers", s.schedulers.size()},
          {"dispatch_per_scheduler", s.dispatch},
          {"cycles", cycles},
          {"issue_slots", slots},
          {"issue_slots_used", issued * s.issue_cycles_per_inst},
          {"warp_insts", issued},
          {"dual_issued", dual},
          {"ipc_warp", ratio(double(issued), double(cycles))},
          {"ipc_thread", ratio(double(s.thread_insts), double(cycles))},
          {"resident_warps_avg", ratio(double(s.warp_resident_cycles), double(cycles))},
          {"stall_cycles", stalls_json(stalls)},
          {"per_scheduler", per}};
}

nlohmann::json shared_json(const SmStats::Shared& s) {
  return {{"accesses", s.accesses}, {"bank_conflict_replays", s.replays}, {"bank_conflict_cycles", s.replay_cycles}};
}

// A launch's shared memory counters, summed over the SMs that ran it.
// A launch's instruction classes and blocks, summed over the SMs that ran it.
nlohmann::json launch_inst_class_json(const std::vector<SmStats>& sms, uint64_t launch_id) {
  uint64_t sum[size_t(InstClass::Count)] = {};
  for (const SmStats& s : sms)
    for (const SmStats::Launch& o : s.launches)
      if (o.launch_id == launch_id)
        for (size_t c = 0; c < size_t(InstClass::Count); ++c) sum[c] += o.inst_class[c];
  return inst_class_json(sum);
}

uint64_t launch_blocks(const std::vector<SmStats>& sms, uint64_t launch_id) {
  uint64_t n = 0;
  for (const SmStats& s : sms)
    for (const SmStats::Launch& o : s.launches)
      if (o.launch_id == launch_id) n += o.blocks_run;
  return n;
}

nlohmann::json launch_shared_json(const std::vector<SmStats>& sms, uint64_t launch_id) {
  SmStats::Shared sum;
  for (const SmStats& s : sms)
    for (const SmStats::Launch& o : s.launches)
      if (o.launch_id == launch_id) {
        sum.accesses += o.shared.accesses;
        sum.replays += o.shared.replays;
        sum.replay_cycles += o.shared.replay_cycles;
      }
  return shared_json(sum);
}

// The occupancy limit of a launch, from the first SM that ran it (null when none did).
nlohmann::json occupancy_json(const std::vector<SmStats>& sms, uint64_t launch_id) {
  for (const SmStats& s : sms)
    for (const SmStats::Launch& o : s.launches)
      if (o.launch_id == launch_id)
        return {{"blocks_per_sm", o.blocks}, {"warps_per_sm", o.warps}, {"limited_by", o.limited_by}};
  return nullptr;
}

// A launch's share of the schedulers' cycles (docs/statistics.md, "Per launch"): summed over its
// schedulers on one SM (`sm` set) or over every SM that ran it; IPC per cycle of the launch's window.
nlohmann::json launch_issue_json(const std::vector<const SmStats::Launch*>& parts, uint64_t launch_cycles) {
  SmStats::Scheduler sum;
  uint64_t threads = 0, resident = 0;
  for (const SmStats::Launch* l : parts) {
    for (const SmStats::Scheduler& k : l->schedulers) add(sum, k);
    threads += l->thread_insts;
    resident += l->warp_resident_cycles;
  }
  nlohmann::json j = scheduler_json(sum);
  j.erase("cycles");
  j["scheduler_cycles"] = sum.cycles;
  j["thread_insts"] = threads;
  j["ipc_warp"] = ratio(double(sum.warp_insts), double(launch_cycles));
  j["ipc_thread"] = ratio(double(threads), double(launch_cycles));
  j["resident_warps_avg"] = ratio(double(resident), double(launch_cycles));
  return j;
}

// The launch's issue figures over the GPU and per SM that ran it.
nlohmann::json launch_sms_json(const std::vector<SmStats>& sms, uint64_t launch_id, uint64_t launch_cycles) {
  std::vector<const SmStats::Launch*> all;
  nlohmann::json per = nlohmann::json::array();
  for (size_t i = 0; i < sms.size(); ++i)
    for (const SmStats::Launch& o : sms[i].launches)
      if (o.launch_id == launch_id) {
        all.push_back(&o);
        nlohmann::json one = launch_issue_json({&o}, launch_cycles);
        one["sm"] = i;
        per.push_back(std::move(one));
      }
  nlohmann::json j = launch_issue_json(all, launch_cycles);
  j["per_sm"] = std::move(per);
  return j;
}

nlohmann::json bytes_json(const PlatformStats::Bytes& b, double seconds) {
  return {{"read_bytes", b.read}, {"write_bytes", b.write},
          {"bandwidth_gbs", seconds > 0 ? double(b.read + b.write) / seconds / 1e9 : 0.0}};
}

// {"l1d": {"reads": .., "writes": .., ...}, ...}: every counter of each cache by name.
nlohmann::json caches_json(const std::vector<CacheStatsEntry>& caches) {
  nlohmann::json j = nlohmann::json::object();
  for (const CacheStatsEntry& c : caches) {
    nlohmann::json counters = nlohmann::json::object();
    for (auto& [name, v] : c.counters.items()) counters[name] = v;
    j[c.name] = counters;
  }
  return j;
}
}  // namespace

// Schema gpuvp-stats/2 (docs/statistics.md): whole-run totals at the top, then one section per SM,
// per kernel launch and per arbiter.
nlohmann::json PlatformStats::to_json() const {
  nlohmann::json j;
  uint64_t warp_insts = 0;
  for (const SmStats& s : sms) warp_insts += s.warp_insts;
  j["sim_seconds"] = sim_seconds;
  j["host_seconds"] = host_seconds;
  j["kernel_cycles"] = kernel_cycles;
  j["warp_insts"] = warp_insts;
  j["thread_insts"] = thread_insts;
  j["thread_insts_per_host_second"] = host_seconds > 0 ? thread_insts / host_seconds : 0.0;
  j["sms"] = nlohmann::json::array();
  for (size_t i = 0; i < sms.size(); ++i) {
    const SmStats& s = sms[i];
    j["sms"].push_back({{"id", i},
                        {"residency_ps", s.busy_ps},
                        {"residency_fraction", sm_residency_fraction[i]},
                        {"warp_insts", s.warp_insts},
                        {"thread_insts", s.thread_insts},
                        {"fetches", s.fetches},
                        {"mem_transactions", s.mem_transactions},
                        {"batches", s.batches},
                        {"blocks", s.blocks},
                        {"inst_class", inst_class_json(s.inst_class)},
                        {"shared", shared_json(s.shared)},
                        {"issue", issue_json(s)},
                         {"caches", caches_json(i < sm_caches.size() ? sm_caches[i] : std::vector<CacheStatsEntry>{})}});
    j["sms"].back()["energy"] = power.is_null() ? nlohmann::json() : power["sms"][i];
  }
  j["energy"] = power.is_null() ? nlohmann::json() : power["total"];
  j["em"] = power.is_null() ? nlohmann::json() : power["em"];
  j["l2"] = l2.empty() ? nlohmann::json() : caches_json(l2)["l2"];
  j["dram"] = bytes_json(dram, sim_seconds);
  j["arbiters"] = nlohmann::json::array();
  for (auto& a : arbiters)
    j["arbiters"].push_back(
        {{"name", a.name}, {"grants", a.grants}, {"stall_cycles", a.stall_cycles}, {"wait_cycles", a.wait_cycles}});
  j["launches"] = nlohmann::json::array();
  for (size_t k = 0; k < launches.size(); ++k) {
    const rt::LaunchStats& l = launches[k];
    j["launches"].push_back({{"kernel", l.kernel},
                             {"launch_id", l.launch_id},
                             {"start_ps", l.start_ps},
                             {"end_ps", l.end_ps},
                             {"cycles", l.cycles},
                             {"blocks_per_core", l.blocks_per_core},
                             {"occupancy", occupancy_json(sms, l.launch_id)},
                             {"issue", launch_sms_json(sms, l.launch_id, l.cycles)},
                             {"shared", launch_shared_json(sms, l.launch_id)},
                             {"inst_class", launch_inst_class_json(sms, l.launch_id)},
                             {"blocks", launch_blocks(sms, l.launch_id)},
                             {"dram", bytes_json(k < launch_dram.size() ? launch_dram[k] : PlatformStats::Bytes{},
                                                 double(l.end_ps - l.start_ps) * 1e-12)},
                             {"dynamic_energy_j", launch_energy(power, l.launch_id)}});
  }
  return j;
}

nlohmann::json timeline_trace_events(const std::vector<BlockRecord>& blocks, const std::vector<rt::LaunchStats>& launches) {
  // Chrome trace-event format: one process (the GPU), one thread per SM, times in microseconds.
  nlohmann::json ev = nlohmann::json::array();
  std::set<unsigned> sms;
  for (auto& b : blocks) {
    sms.insert(b.sm);
    std::string kernel = b.launch_id >= 1 && b.launch_id <= launches.size() ? launches[b.launch_id - 1].kernel : "kernel";
    ev.push_back({{"name", fmt::format("{} block {}", kernel, b.block)},
                  {"cat", kernel},
                  {"ph", "X"},
                  {"pid", 0},
                  {"tid", b.sm},
                  {"ts", b.start_ps / 1e6},
                  {"dur", (b.end_ps - b.start_ps) / 1e6},
                  {"args", {{"block", b.block}, {"sm", b.sm}, {"launch", b.launch_id}}}});
  }
  for (unsigned s : sms)
    ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", s}, {"args", {{"name", fmt::format("SM {}", s)}}}});
  return nlohmann::json{{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
}

}  // namespace gpuvp
