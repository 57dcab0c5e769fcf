// Access recording of the concurrent dispatcher's tables (models/scheduler/work_queues.h, recorded_table.h,
// concurrent_dispatcher.cc): the work table's kind, stream, priority, seq, qseq, event and target, the
// event table's recorded counts and the SM sets. A launch sequence worked by hand on the dispatcher
// alone gives each field's accesses and live intervals; and on tx2 with streams, events, asynchronous
// copies and an SM set, the same fault list over these tables gives every fault the same outcome with
// and without pruning.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "faultinj/engine.h"
#include "faultinj/lifetimes.h"
#include "models/scheduler/concurrent_dispatcher.h"
#include "platform/forked_json.h"
#include "recorded_golden.h"

using namespace gpuvp;
using gpuvp::fi::GoldenRun;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;
using gpuvp::fi::test::access_events;

namespace {

constexpr uint64_t kNs = 1000;  // ps

// One SM whose blocks of launch L take ns_of[L] ns, and a host that changes SM set 1 and submits its
// work at 0 (in this order, sampled together at the first edge, 10 ns).
struct DispatchBench : sc_core::sc_module, BlockTarget {
  ConcurrentDispatcher d;
  std::map<uint64_t, uint64_t> ns_of;
  std::vector<Submission> work;
  SC_HAS_PROCESS(DispatchBench);
  DispatchBench(sc_core::sc_module_name n, Registry& reg, const ConcurrentDispatcherConfig& c)
      : sc_core::sc_module(n), d("sched", c, reg) {
    d.connect_sm(0, *this);
    SC_THREAD(host);
  }
  void assign(const BlockWork& w) override {
    sc_core::sc_spawn([this, w] {
      wait(sc_core::sc_time(double(ns_of.at(w.kernel->launch_id)), sc_core::SC_NS));
      d.block_done(0, w);
    });
  }
  void host() {
    d.set_sm_set(1, 0b1);
    for (size_t i = 0; i < work.size(); ++i) {
      work[i].order = i;
      if (!d.submit(work[i])) throw std::runtime_error("work table full");
    }
  }
};

Submission kernel(uint64_t launch, uint32_t stream, uint32_t blocks, uint32_t set) {
  auto k = std::make_shared<KernelDesc>();
  k->launch_id = launch;
  k->block[0] = 1024;
  k->grid[0] = blocks;
  k->smem_per_block = 256;
  k->regs_per_thread = 16;
  Submission s;
  s.kernel = k;
  s.item.kind = WorkItem::Kernel;
  s.item.stream = stream;
  s.item.blocks = blocks;
  s.item.tag = launch;
  s.sm_set = set;
  return s;
}

Submission event_op(WorkItem::Kind kind, uint32_t stream, uint32_t event, uint64_t tag) {
  Submission s;
  s.item.kind = kind;
  s.item.stream = stream;
  s.item.event = event;
  s.item.tag = tag;
  return s;
}

// The clock edges (every 10 ns up to `to_ns`) at which a fault in the word is live, as ranges "a-b"
// (ns) of consecutive live edges.
std::string live_edges(const Lifetimes& lt, const std::string& target, uint64_t word, uint64_t to_ns) {
  std::string s;
  for (uint64_t t = 0; t <= to_ns; t += 10) {
    if (lt.interval(target, word, t * kNs).kind != LiveInterval::Live) continue;
    const uint64_t from = t;
    while (t + 10 <= to_ns && lt.interval(target, word, (t + 10) * kNs).kind == LiveInterval::Live) t += 10;
    s += fmt::format("{}{}-{}", s.empty() ? "" : " ", from, t);
  }
  return s;
}

}  // namespace

TEST_CASE("dispatch lifetimes: a work-table slot's fields, an event's count and an SM set over a launch sequence worked by hand") {
  const nlohmann::json j = json_in_child([] {
    Registry reg;
    ConcurrentDispatcherConfig c;
    c.num_sms = 1;
    c.clock = Clock(sc_core::sc_time(10, sc_core::SC_NS));
    c.slots = 4;
    DispatchBench b("bench", reg, c);
    // A: kernel 1 on stream 1, 2 blocks of 1000 ns; B: record of event 1 on stream 1; C: stream 2 waits
    // for it; D: kernel 2 on stream 2, 2 blocks of 500 ns, on SM set 1.
    b.work = {kernel(1, 1, 2, 0), event_op(WorkItem::Record, 1, 1, 10), event_op(WorkItem::Wait, 2, 1, 11),
              kernel(2, 2, 2, 1)};
    b.ns_of = {{1, 1000}, {2, 500}};
    const GoldenRun g = fi::test::record_bench(reg, sc_core::sc_time(3, sc_core::SC_US));
    const std::vector<AccessEvent> log = g.accesses.events();
    const Lifetimes lt(g);
    nlohmann::json out = nlohmann::json::object();
    auto word = [&](const std::string& name, uint64_t w) {
      const uint32_t serial = reg.at(name).serial;
      std::vector<AccessEvent> mine;
      for (const AccessEvent& e : log)
        if (e.target == serial && e.index == w) mine.push_back(e);
      out[fmt::format("{}[{}]", name, w)] = {{"events", access_events(reg, mine, name)},
                                               {"live", live_edges(lt, name, w, 2000)},
                                               {"ace", lt.ace(name, 0, 2000 * kNs, {{w, w + 1}}).live_bit_ps},
                                               {"observed", reg.at(name).reads_observed}};
    };
    for (const char* f : {"kind", "stream", "priority", "seq", "qseq", "event", "target"}) {
      word(std::string("gpu.sched.work.") + f, 3);
      word(std::string("gpu.sched.work.") + f, 0);
    }
    word("gpu.sched.work.target", 2);
    word("gpu.sched.work.event", 1);
    word("gpu.sched.event.recorded", 1);
    word("gpu.sched.sm_set.sms", 1);
    word("gpu.sched.sm_set.sms", 0);
    const LiveInterval iv = lt.interval("gpu.sched.work.kind", 3, 500 * kNs);
    out["kind3@500"] = fmt::format("{}/{}/{}", int(iv.kind), iv.next_ps / kNs, iv.shared);
    return out;
  }, "dispatch bench");
  INFO(j.dump(1));
  auto events = [&](const std::string& w) { return j.at(w).at("events").get<std::string>(); };
  auto live = [&](const std::string& w) { return j.at(w).at("live").get<std::string>(); };
  // Worked from work_queues.cc and concurrent_dispatcher.cc, T = 10 ns, inputs sampled at the first
  // edge strictly after they came:
  //  10   the set change and the four submissions: slots 0 (A), 1 (B), 2 (C), 3 (D) filled (every
  //       field written; the walks of this edge read what it just wrote). A joins the EE queue (qseq 1);
  //       C, head of stream 2, waits for event 1's record B (its target: B's seq): it looks for that
  //       record among the occupied slots (every slot's kind; a record's seq, and its event when the
  //       seq is B's): it waits. A's block 0 goes to the SM; one block per cycle, so the next at 20.
  //  20   the walks read B (kind; not its stream's head: A is still in stream 1), C (kind; head of
  //       stream 2, so its event and target, then the slots' kinds, B's seq and event: B is still
  //       there, it waits) and D (kind; not head), and the streams and seqs they compare (stream 2 holds
  //       C and D: seq[3] against seq[2]).
  //       A's block 1 goes out: A leaves the EE queue (G3).
  //  1020 A's block 0 ended at 1010: the same walks as at 20.
  //  1030 A's block 1 ended at 1020: A's slot freed (seq, qseq written 0). B is head: record (event
  //       read, count read and incremented), freed; C reads seq[3] against seq[2] once more, then the
  //       kinds of the occupied slots (its own and D's: no record left): done, freed; D is head alone: kind read, joins the EE queue (qseq written 2).
  //       pick reads set 1 for D: block 0 goes out; head_kernel reads D's priority (level 0, then 1).
  //  1040 block 1 of D (set 1 read again), D leaves the EE queue.
  //  1550 D's blocks ended at 1530 and 1540: slot 3 freed (seq, qseq written 0).
  CHECK(events("gpu.sched.work.kind[3]") == "W10000 R20000 R1020000 R1030000");
  CHECK(events("gpu.sched.work.stream[3]") == "W10000 R20000 R1020000 R1030000");
  CHECK(events("gpu.sched.work.priority[3]") == "W10000 R1030000");
  CHECK(events("gpu.sched.work.seq[3]") == "W10000 R20000 R1020000 R1030000 W1550000");
  CHECK(events("gpu.sched.work.qseq[3]") == "W10000 W1030000 W1550000");  // D alone in its EE queue: never compared
  CHECK(events("gpu.sched.work.event[3]") == "W10000");                   // a kernel's: never read
  CHECK(events("gpu.sched.work.target[3]") == "W10000");
  // Slot 3's live intervals: a fault at an edge in (10, 1030] meets D's reads; at 10 it may come before
  // or after the fill (not live: run, not pruned); before 10 the slot is free, after 1030 nothing reads
  // these fields again: dead.
  for (const char* f : {"kind", "stream", "priority", "seq"}) CHECK(live(fmt::format("gpu.sched.work.{}[3]", f)) == "20-1030");
  for (const char* f : {"qseq", "event", "target"}) CHECK(live(fmt::format("gpu.sched.work.{}[3]", f)).empty());
  CHECK(j.at("kind3@500") == "2/1020/true");  // shared with every edge after 20 and before 1020
  // Slot 0 (A): its priority, event and target read only at their fill's edge; its kind read by C's
  // search for its record at 20 and 1020; its stream and seq compared by the others' walks until it is
  // freed at 1030; its qseq written at 10 (0, then 1), never compared (A alone in its EE queue).
  CHECK(events("gpu.sched.work.kind[0]") == "W10000 R20000 R1020000");
  CHECK(events("gpu.sched.work.stream[0]") == "W10000 R20000 R1020000");
  CHECK(events("gpu.sched.work.seq[0]") == "W10000 R20000 R1020000 W1030000");
  CHECK(events("gpu.sched.work.qseq[0]") == "W10000 W1030000");
  CHECK(live("gpu.sched.work.stream[0]") == "20-1020");
  CHECK(live("gpu.sched.work.kind[0]") == "20-1020");
  // Live bit-time over [0, 2000 ns): each field's bits from 10 to its last read.
  CHECK(j.at("gpu.sched.work.kind[3]").at("ace") == 3.0 * 1020 * kNs);     // 3 bits, 10..1030, slot 3
  CHECK(j.at("gpu.sched.work.priority[3]").at("ace") == 1.0 * 1020 * kNs);  // 1 bit, slot 3 only
  // C's target: read while it waits at its stream's head; B's event: read by C's search (B's seq is C's
  // target) at 20 and 1020 and by B's record at 1030.
  CHECK(events("gpu.sched.work.target[2]") == "W10000 R20000 R1020000 R1030000");
  CHECK(events("gpu.sched.work.event[1]") == "W10000 R20000 R1020000 R1030000");
  CHECK(live("gpu.sched.work.event[1]") == "20-1030");
  // Event 1's count of completed records: no wait reads it (a wait looks for its record itself); read by
  // B's increment at 1030 (an increment is a read: the new count follows from the old): live 0 to 1030.
  CHECK(events("gpu.sched.event.recorded[1]") == "R1030000");
  CHECK(live("gpu.sched.event.recorded[1]") == "0-1030");
  // SM set 1: written at 10; read by pick at 1030 and 1040; D waits in the EE queue from 1030 to 1040,
  // when a flip of the set would wake the dispatcher, which would read it: one span. Set 0 (every SM)
  // is never read.
  CHECK(events("gpu.sched.sm_set.sms[1]") == "W10000 R1030000 R1040000 S1030000-1040000");
  CHECK(live("gpu.sched.sm_set.sms[1]") == "20-1040");
  CHECK(events("gpu.sched.sm_set.sms[0]").empty());
  for (const char* t : {"gpu.sched.work.kind[3]", "gpu.sched.work.seq[3]", "gpu.sched.event.recorded[1]", "gpu.sched.sm_set.sms[1]"})
    CHECK(j.at(t).at("observed") == true);
}

namespace {

constexpr uint32_t kN = 128;

rt::KernelArgs add_args(rt::DevPtr x, rt::DevPtr y, rt::DevPtr out) {
  rt::KernelArgs a;
  a.ptr(x).ptr(y).ptr(out).u32(kN);
  return a;
}

// On tx2 with 2 SMs: stream 1 copies a and b in and adds them into c, then records event 1; stream 2
// (high priority, non-blocking) waits for it, adds c and b into d on SM set 1 (SM 1 only) and copies d
// back; the NULL stream adds a and a into e, after stream 1's work (N1) but not stream 2's, whose
// non-blocking bit it reads meanwhile. The output is c, d and e.
class StreamsJob : public fi::Job {
 public:
  StreamsJob() : Job(config(), "streams, an event and an SM set") {}
  static Config config() {
    Config c = Config::preset("tx2");
    c.set("sm.count=2");
    return c;
  }
  void run(rt::Runtime& rt) override {
    std::vector<float> a(kN), b(kN), d(kN);
    for (uint32_t i = 0; i < kN; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
    const std::string ptx = std::string(GPUVP_TEST_DATA) + "/ptx/vectorAdd.ptx";
    const rt::Module m = rt.load_module(fi::test::file_text(ptx), ptx);
    const size_t bytes = kN * sizeof(float);
    const rt::DevPtr da = rt.malloc(bytes), db = rt.malloc(bytes), dc = rt.malloc(bytes), dd = rt.malloc(bytes),
                     de = rt.malloc(bytes);
    const rt::Stream s1 = rt.create_stream(0), s2 = rt.create_stream(-1, true);
    const rt::Event ev = rt.create_event();
    const uint32_t set = rt.create_sm_set(0b10);
    rt.memcpy_h2d_async(da, a.data(), bytes, s1);
    rt.memcpy_h2d_async(db, b.data(), bytes, s1);
    rt.launch_async(s1, m, "vectorAdd", {2}, {64}, add_args(da, db, dc));
    rt.record_event(ev, s1);
    rt.stream_wait_event(s2, ev);
    rt.launch_sub_async(s2, m, "vectorAdd", {2}, {64}, add_args(dc, db, dd), rt::SubKernel{0, 2, set});
    rt.memcpy_d2h_async(d.data(), dd, bytes, s2);
    rt.launch(m, "vectorAdd", {2}, {64}, add_args(da, da, de));
    rt.synchronize();
    out_.clear();
    for (const std::vector<float>& v : {rt.download<float>(dc, kN), d, rt.download<float>(de, kN)}) {
      const auto* p = reinterpret_cast<const uint8_t*>(v.data());
      out_.insert(out_.end(), p, p + v.size() * sizeof(float));
    }
  }
  std::vector<uint8_t> output() const override { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// Bit 0 of every word of `words` at clock edges chosen from the golden run's accesses of the word: two
// strictly inside its first stretch of at least 3 edges that ends in a read (one live interval: they
// share a run) and one inside its first stretch that ends in a write or after its last access (dead).
std::vector<fi::Fault> faults_around_accesses(const GoldenRun& g, const std::map<std::string, uint64_t>& words) {
  std::map<uint32_t, std::string> name_of;
  for (const fi::TargetDesc& t : g.targets) name_of[t.serial] = t.name;
  std::map<std::pair<std::string, uint64_t>, std::vector<AccessEvent>> by_word;
  for (const AccessEvent& e : g.accesses)
    if (auto it = words.find(name_of[e.target]); it != words.end() && e.index < it->second)
      by_word[{it->first, e.index}].push_back(e);
  const uint64_t p = g.period_ps;
  auto edge_after = [&](uint64_t t) { return (t / p + 1) * p; };
  std::vector<fi::Fault> faults;
  auto add = [&](const std::pair<std::string, uint64_t>& w, uint64_t t) {
    fi::Fault f;
    f.id = faults.size();
    f.target = w.first;
    f.index = w.second;
    f.time_ps = t;
    faults.push_back(f);
  };
  for (auto& [w, ev] : by_word) {
    std::stable_sort(ev.begin(), ev.end(), [](const AccessEvent& a, const AccessEvent& b) { return a.time_ps < b.time_ps; });
    bool live = false, dead = false;
    for (size_t i = 0; i + 1 < ev.size(); ++i) {
      const uint64_t lo = edge_after(ev[i].kind == Access::ReadSpan ? ev[i].until_ps : ev[i].time_ps), hi = ev[i + 1].time_ps;
      if (!live && ev[i + 1].kind != Access::Write && lo + 2 * p < hi) {
        add(w, lo);
        add(w, lo + (hi - lo) / 2 / p * p);
        live = true;
      }
      if (!dead && ev[i + 1].kind == Access::Write && lo < hi) {
        add(w, lo);
        dead = true;
      }
    }
    const AccessEvent& last = ev.back();
    if (const uint64_t after = edge_after(last.kind == Access::ReadSpan ? last.until_ps : last.time_ps);
        !dead && after + p < g.sim_end_ps)
      add(w, after);
  }
  return faults;
}

// Each outcome of `faults`, run as `run_faults` runs them.
std::map<uint64_t, fi::RunResult> results_of(const fi::JobFactory& make, const GoldenRun& g, std::vector<fi::Fault> faults) {
  fi::EngineOptions opt;
  opt.workers = 2;
  opt.early_stop = false;  // no checkpoints anyway: every run goes to its end
  std::map<uint64_t, fi::RunResult> out;
  fi::run_faults(make, g, std::move(faults), opt, [&](const fi::RunResult& r) { out[r.fault_id] = r; });
  return out;
}

}  // namespace

TEST_CASE("dispatch pruning: faults in the dispatcher's tables give the same outcome with and without pruning (tx2, streams, an event, an SM set)") {
  const fi::JobFactory make = [] { return std::make_unique<StreamsJob>(); };
  const GoldenRun g = fi::run_golden(make);
  const std::vector<std::string> tables = {"kind", "stream", "priority", "seq", "qseq", "event", "target"};
  std::map<std::string, uint64_t> words;  // target -> words 0 .. n-1
  for (const std::string& t : tables) words["gpu.sched.work." + t] = 4;
  words["gpu.sched.event.recorded"] = 2;  // event 1 is the job's
  words["gpu.sched.sm_set.sms"] = 2;      // set 1 too
  std::vector<fi::Fault> faults = faults_around_accesses(g, words);
  for (size_t i = 0, n = faults.size(); i < n; ++i)  // kind's bit 2 too: the non-blocking bit N1/N2 read
    if (faults[i].target == "gpu.sched.work.kind") {
      fi::Fault f = faults[i];
      f.id = faults.size();
      f.bit = 2;
      faults.push_back(f);
    }
  const Lifetimes lt(g);
  for (const auto& [t, n] : words) CHECK(lt.observed(t));

  // With pruning as a campaign prunes: dead faults masked without a run, one run per live interval.
  const fi::PrunePlan plan = fi::plan_pruning(faults, lt, g);
  std::map<uint64_t, fi::RunResult> pruned = results_of(make, g, plan.to_run);
  for (const fi::RunResult& r : plan.dead) pruned[r.fault_id] = r;
  for (const auto& [rep, followers] : plan.followers)
    for (uint64_t f : followers) pruned[f] = fi::shared_result(pruned.at(rep), f);
  const std::map<uint64_t, fi::RunResult> full = results_of(make, g, faults);
  REQUIRE(full.size() == faults.size());
  REQUIRE(pruned.size() == faults.size());
  size_t shared = 0, not_masked = 0;
  for (const fi::Fault& f : faults) {
    const fi::RunResult& on = pruned.at(f.id);
    const fi::RunResult& off = full.at(f.id);
    INFO("fault " << f.id << " " << f.target << "[" << f.index << "] bit " << f.bit << " at " << f.time_ps << ": "
                  << on.detail << " / " << off.detail);
    CHECK(on.outcome == off.outcome);
    CHECK(on.due == off.due);
    shared += on.detail.rfind("pruned: same live", 0) == 0;
    not_masked += off.outcome != fi::Outcome::Masked;
  }
  INFO(faults.size() << " faults: " << plan.dead.size() << " dead, " << shared << " shared, " << plan.to_run.size()
                     << " run; " << not_masked << " not masked");
  CHECK(plan.dead.size() > faults.size() / 4);
  CHECK(shared > faults.size() / 4);
  CHECK(not_masked > 0);
}
