// The concurrent dispatcher with fake SMs whose blocks take a fixed time per kernel: block-to-SM
// placement and start/end instants worked by hand from tx2-scheduling.md and the dispatcher's
// sampling rule (inputs count at the first edge strictly after they came). T = 10 ns.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "models/scheduler/concurrent_dispatcher.h"

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

struct Run {
  uint64_t launch, block;
  unsigned sm;
  uint64_t start_ns, end_ns;
};

// An SM whose blocks of launch L each take ns_of[L] nanoseconds, however many are resident.
class FakeSm : public sc_core::sc_module, public BlockTarget {
 public:
  SC_HAS_PROCESS(FakeSm);
  FakeSm(sc_core::sc_module_name n, unsigned id, BlockDoneSink& sink, std::map<uint64_t, uint64_t>& ns_of,
         std::vector<Run>& runs)
      : sc_module(n), id_(id), sink_(sink), ns_of_(ns_of), runs_(runs) {
    SC_METHOD(finish);
    sensitive << q_;
    dont_initialize();
  }
  void assign(const BlockWork& w) override {
    const uint64_t now = uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5);
    const uint64_t d = ns_of_.at(w.kernel->launch_id);
    pending_.emplace(now + d, w);
    runs_.push_back(Run{w.kernel->launch_id, w.linear, id_, now, now + d});
    q_.notify(sc_time(double(d), SC_NS));
  }

 private:
  void finish() {
    const uint64_t now = uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5);
    auto it = pending_.find(now);
    if (it == pending_.end()) return;
    sink_.block_done(id_, it->second);
    pending_.erase(it);
  }
  unsigned id_;
  BlockDoneSink& sink_;
  std::map<uint64_t, uint64_t>& ns_of_;
  std::vector<Run>& runs_;
  std::multimap<uint64_t, BlockWork> pending_;
  sc_core::sc_event_queue q_;
};

struct Done {
  WorkItem::Kind kind;
  uint64_t tag, ns;
};

// A host that submits kernels (launch id, stream, blocks, threads, level) at given instants.
struct Launch {
  uint64_t at_ns, launch;
  uint32_t stream, blocks, threads, level;
  uint32_t smem = 256;
  uint32_t set = 0;        // SM set
  uint64_t first = 0;      // a sub-kernel: grid blocks [first, first + blocks) of a grid of `grid`
  uint32_t grid = 0;       // (0: blocks)
  bool non_blocking = false;  // its stream's (N1/N2 skip it)
};
// The host changes SM set `set` to `sms` at `at_ns` (before its launches of the same instant).
struct SetChange {
  uint64_t at_ns;
  uint32_t set;
  uint64_t sms;
};

class Host : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Host);
  Host(sc_core::sc_module_name n, ConcurrentDispatcher& d, std::vector<Launch> l, std::vector<SetChange> c)
      : sc_module(n), d_(d), l_(l), c_(c) {
    SC_THREAD(run);
    SC_THREAD(change_sets);
  }
  void wait_until(uint64_t ns) {
    const sc_time at(double(ns), SC_NS);
    if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
  }
  void change_sets() {
    for (auto& c : c_) {
      wait_until(c.at_ns);
      d_.set_sm_set(c.set, c.sms);
    }
  }
  void run() {
    for (auto& l : l_) {
      wait_until(l.at_ns);
      auto k = std::make_shared<KernelDesc>();
      k->launch_id = l.launch;
      k->block[0] = l.threads;
      k->grid[0] = l.grid ? l.grid : l.blocks;
      k->smem_per_block = l.smem;
      k->regs_per_thread = 16;
      Submission s;
      s.kernel = k;
      s.item.kind = WorkItem::Kernel;
      s.item.stream = l.stream;
      s.item.blocks = l.blocks;
      s.item.priority = l.level;
      s.item.non_blocking = l.non_blocking;
      s.item.tag = l.launch;
      s.sm_set = l.set;
      s.first_block = l.first;
      while (!d_.submit(s)) wait(d_.slot_freed());
    }
  }
  ConcurrentDispatcher& d_;
  std::vector<Launch> l_;
  std::vector<SetChange> c_;
};

struct Bench {
  std::map<uint64_t, uint64_t> ns_of;
  std::vector<Run> runs;
  std::vector<Done> done;
  Registry reg;
  std::unique_ptr<ConcurrentDispatcher> d;
  std::vector<std::unique_ptr<FakeSm>> sms;
  std::unique_ptr<Host> host;

  Bench(unsigned n, std::vector<Launch> launches, unsigned dispatch_cycles = 1, std::vector<SetChange> sets = {}) {
    ConcurrentDispatcherConfig c;
    c.num_sms = n;
    c.clock = Clock(sc_time(10, SC_NS));
    c.dispatch_cycles = dispatch_cycles;
    d = std::make_unique<ConcurrentDispatcher>("sched", c, reg);
    for (unsigned i = 0; i < n; ++i) {
      sms.push_back(std::make_unique<FakeSm>(fmt::format("sm{}", i).c_str(), i, *d, ns_of, runs));
      d->connect_sm(i, *sms.back());
    }
    d->on_done = [this](const WorkItem& w, uint64_t ps) { done.push_back(Done{w.kind, w.tag, ps / 1000}); };
    host = std::make_unique<Host>("host", *d, std::move(launches), std::move(sets));
  }
};

bool same(const Run& r, uint64_t launch, uint64_t block, unsigned sm, uint64_t start, uint64_t end) {
  return r.launch == launch && r.block == block && r.sm == sm && r.start_ns == start && r.end_ns == end;
}

}  // namespace

// K1 (stream 1, 4 blocks of 1024 threads, 1000 ns each) and K2 (stream 2, 2 such blocks, 500 ns)
// submitted at 0 on 2 SMs of 2048 threads. Edge 10: K1 joins the EE queue, block 0 to SM 0 (tie, lowest
// id); one block per cycle: 1 to SM 1 at 20, 2 to SM 0 at 30, 3 to SM 1 at 40. K2 waits (X1), then finds
// both SMs full. Block 0 ends at 1010, sampled at 1020: K2 block 0 to SM 0; block 1 ends 1020, sampled
// 1030: K2 block 1 to SM 1. K1's last block ends 1040, sampled 1050: K1 done at 1050. K2's blocks end
// 1520 and 1530: done at 1540.
TEST_CASE("concurrent dispatcher: X1 and R1 with a hand-worked timeline") {
  Bench b(2, {{0, 1, 1, 4, 1024, 1}, {0, 2, 2, 2, 1024, 1}});
  b.ns_of = {{1, 1000}, {2, 500}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 6);
  CHECK(same(b.runs[0], 1, 0, 0, 10, 1010));
  CHECK(same(b.runs[1], 1, 1, 1, 20, 1020));
  CHECK(same(b.runs[2], 1, 2, 0, 30, 1030));
  CHECK(same(b.runs[3], 1, 3, 1, 40, 1040));
  CHECK(same(b.runs[4], 2, 0, 0, 1020, 1520));
  CHECK(same(b.runs[5], 2, 1, 1, 1030, 1530));
  REQUIRE(b.done.size() == 2);
  CHECK((b.done[0].tag == 1 && b.done[0].ns == 1050));
  CHECK((b.done[1].tag == 2 && b.done[1].ns == 1540));
  CHECK(b.d->queues().idle());
  CHECK(b.reg.read("gpu.sched.used_threads", 0) == 0);
}

// R2 and X1: one SM of 64 KiB. K1's two blocks take 40 KiB each, so its second block waits for its
// first (10..1010, then 1020..2020); K2 (40 KiB) waits behind it, and K3 (256 bytes, would fit) waits
// behind K2: the head kernel holds back the kernels behind it. K1 completes 2020 (sampled 2030), K2
// starts 2030, K3 at the next assignment slot 2040.
TEST_CASE("concurrent dispatcher: a kernel blocked by shared memory holds back the kernels behind it") {
  Launch k1{0, 1, 1, 2, 32, 1, 40960}, k2{0, 2, 2, 1, 32, 1, 40960}, k3{0, 3, 3, 1, 32, 1, 256};
  Bench b(1, {k1, k2, k3});
  b.ns_of = {{1, 1000}, {2, 100}, {3, 100}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 4);
  CHECK(same(b.runs[0], 1, 0, 0, 10, 1010));
  CHECK(same(b.runs[1], 1, 1, 0, 1020, 2020));
  CHECK(same(b.runs[2], 2, 0, 0, 2030, 2130));
  CHECK(same(b.runs[3], 3, 0, 0, 2040, 2140));
  REQUIRE(b.done.size() == 3);
  CHECK((b.done[0].tag == 1 && b.done[0].ns == 2030));
  CHECK((b.done[1].tag == 2 && b.done[1].ns == 2140));
  CHECK((b.done[2].tag == 3 && b.done[2].ns == 2150));
}

// A1/A2 without preemption: a low-priority kernel fills the SM (two 1024-thread blocks); a
// high-priority kernel submitted at 500 takes the SM's slots as the low blocks finish (1020 and 1030)
// and the low kernel resumes only when the high one is fully assigned.
TEST_CASE("concurrent dispatcher: a high-priority kernel takes slots as low-priority blocks finish") {
  Launch low{0, 1, 1, 4, 1024, 1}, high{500, 2, 2, 2, 1024, 0};
  Bench b(1, {low, high});
  b.ns_of = {{1, 1000}, {2, 300}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 6);
  CHECK(same(b.runs[0], 1, 0, 0, 10, 1010));
  CHECK(same(b.runs[1], 1, 1, 0, 20, 1020));
  CHECK(same(b.runs[2], 2, 0, 0, 1020, 1320));
  CHECK(same(b.runs[3], 2, 1, 0, 1030, 1330));
  CHECK(same(b.runs[4], 1, 2, 0, 1330, 2330));
  CHECK(same(b.runs[5], 1, 3, 0, 1340, 2340));
  REQUIRE(b.done.size() == 2);
  CHECK((b.done[0].tag == 2 && b.done[0].ns == 1340));
  CHECK((b.done[1].tag == 1 && b.done[1].ns == 2350));
}

// With dispatch_cycles = 0 every block that fits goes at the same edge, placed one at a time by most
// room: 6 blocks of 512 threads on 2 SMs alternate 0, 1, 0, 1, 0, 1.
TEST_CASE("concurrent dispatcher: all that fit at one edge, placed by most room") {
  Bench b(2, {{0, 1, 1, 6, 512, 1}}, 0);
  b.ns_of = {{1, 100}};
  sc_core::sc_start(sc_time(1, sc_core::SC_US));
  REQUIRE(b.runs.size() == 6);
  for (unsigned i = 0; i < 6; ++i) CHECK(same(b.runs[i], 1, i, i % 2, 10, 110));
  REQUIRE(b.done.size() == 1);
  CHECK(b.done[0].ns == 120);
}

// SM sets (docs/concurrent-kernels.md, "SM sets and sub-kernels"). Two SMs of two 1024-thread blocks.
// K1 (set 1 = SM 0, 4 blocks of 1000 ns) and K2 (set 2 = SM 1, 2 blocks of 500 ns), submitted at 0:
// K1's blocks 0 and 1 go to SM 0 at 10 and 20; at 30 K1 cannot place a block on its SM, and K2, behind
// it but on other SMs, goes on: SM 1 at 30 and 40. K2 ends 540 (done 550); SM 1 is free from then but
// K1 waits for SM 0: its blocks 2 and 3 at 1020 and 1030, done 2040.
TEST_CASE("concurrent dispatcher: kernels on disjoint SM sets run side by side, each on its own SMs") {
  Launch k1{0, 1, 1, 4, 1024, 1}, k2{0, 2, 2, 2, 1024, 1};
  k1.set = 1;
  k2.set = 2;
  Bench b(2, {k1, k2}, 1, {{0, 1, 0b01}, {0, 2, 0b10}});
  b.ns_of = {{1, 1000}, {2, 500}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 6);
  CHECK(same(b.runs[0], 1, 0, 0, 10, 1010));
  CHECK(same(b.runs[1], 1, 1, 0, 20, 1020));
  CHECK(same(b.runs[2], 2, 0, 1, 30, 530));
  CHECK(same(b.runs[3], 2, 1, 1, 40, 540));
  CHECK(same(b.runs[4], 1, 2, 0, 1020, 2020));
  CHECK(same(b.runs[5], 1, 3, 0, 1030, 2030));
  REQUIRE(b.done.size() == 2);
  CHECK((b.done[0].tag == 2 && b.done[0].ns == 550));
  CHECK((b.done[1].tag == 1 && b.done[1].ns == 2040));
}

// A kernel that cannot place a block keeps the kernels behind it off its own SMs only: K1 (set 1 =
// SM 0) fills SM 0 at 10 and 20; K2 (every SM, 4 blocks of 500 ns) gets SM 1 at 30 and 40, never SM 0
// (held by K1): its blocks 2 and 3 wait for its own on SM 1 (ends 530, 540: at 540 and 550). K1's
// blocks 2 and 3 take SM 0 as its first blocks end (1020, 1030).
TEST_CASE("concurrent dispatcher: a blocked kernel on an SM set holds back later kernels on its SMs only") {
  Launch k1{0, 1, 1, 4, 1024, 1}, k2{0, 2, 2, 4, 1024, 1};
  k1.set = 1;
  Bench b(2, {k1, k2}, 1, {{0, 1, 0b01}});
  b.ns_of = {{1, 1000}, {2, 500}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 8);
  CHECK(same(b.runs[2], 2, 0, 1, 30, 530));
  CHECK(same(b.runs[3], 2, 1, 1, 40, 540));
  CHECK(same(b.runs[4], 2, 2, 1, 540, 1040));
  CHECK(same(b.runs[5], 2, 3, 1, 550, 1050));
  CHECK(same(b.runs[6], 1, 2, 0, 1020, 2020));
  CHECK(same(b.runs[7], 1, 3, 0, 1030, 2030));
}

// The set changes while its kernel runs: K1 (set 1 = SM 0, 6 blocks of 1000 ns) fills SM 0 at 10 and
// 20; at 500 set 1 becomes SM 1 (sampled at 510): blocks 2 and 3 go to SM 1 at 510 and 520. Blocks 0
// and 1 finish in place on SM 0 (1010, 1020), whose room K1 may no longer use: blocks 4 and 5 wait for
// SM 1 (its blocks end 1510, 1520: at 1520 and 1530). Done 2540.
TEST_CASE("concurrent dispatcher: a set changed while its kernel runs: running blocks finish in place, new ones go to the new SMs") {
  Launch k1{0, 1, 1, 6, 1024, 1};
  k1.set = 1;
  Bench b(2, {k1}, 1, {{0, 1, 0b01}, {500, 1, 0b10}});
  b.ns_of = {{1, 1000}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 6);
  CHECK(same(b.runs[0], 1, 0, 0, 10, 1010));
  CHECK(same(b.runs[1], 1, 1, 0, 20, 1020));
  CHECK(same(b.runs[2], 1, 2, 1, 510, 1510));
  CHECK(same(b.runs[3], 1, 3, 1, 520, 1520));
  CHECK(same(b.runs[4], 1, 4, 1, 1520, 2520));
  CHECK(same(b.runs[5], 1, 5, 1, 1530, 2530));
  REQUIRE(b.done.size() == 1);
  CHECK(b.done[0].ns == 2540);
}

// Sub-kernels: a grid of 5 blocks as launch 1 = blocks [0, 2) on SM 0 and launch 2 = [2, 5) on SM 1.
// The blocks keep their grid indices; each launch completes on its own.
TEST_CASE("concurrent dispatcher: sub-kernels run their range of the grid's blocks with the grid's indices") {
  Launch a{0, 1, 1, 2, 256, 1}, c{0, 2, 2, 3, 256, 1};
  a.set = 1, a.grid = 5;
  c.set = 2, c.first = 2, c.grid = 5;
  Bench b(2, {a, c}, 0, {{0, 1, 0b01}, {0, 2, 0b10}});
  b.ns_of = {{1, 100}, {2, 200}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == 5);
  CHECK(same(b.runs[0], 1, 0, 0, 10, 110));
  CHECK(same(b.runs[1], 1, 1, 0, 10, 110));
  CHECK(same(b.runs[2], 2, 2, 1, 10, 210));
  CHECK(same(b.runs[3], 2, 3, 1, 10, 210));
  CHECK(same(b.runs[4], 2, 4, 1, 10, 210));
  REQUIRE(b.done.size() == 2);
  CHECK((b.done[0].tag == 1 && b.done[0].ns == 120));
  CHECK((b.done[1].tag == 2 && b.done[1].ns == 220));
}

// N1/N2 and non-blocking streams. One SM of 2048 threads, blocks of 512 threads (four fit). Submitted
// at 0 in this order: K1 (stream 1, 1000 ns), KN (NULL stream, 100 ns), K2 (stream 2, 100 ns); streams 1
// and 2 blocking or not as the case says. Edge 10 promotes what the rules let go, one block per cycle:
// - both blocking: KN waits for K1 (N1), K2 for KN (N2). K1 10..1010, done 1020; KN 1020..1120, done
//   1130; K2 1130..1230, done 1240.
// - both non-blocking: nothing waits. K1 10..1010, KN 20..120, K2 30..130; done 130, 140, 1020.
// - stream 1 non-blocking, stream 2 blocking: KN passes K1, K2 waits for KN. K1 10..1010, KN 20..120
//   (done 130), K2 130..230 (done 240), K1 done 1020.
namespace {

void null_stream_case(bool nb1, bool nb2, const std::vector<Run>& runs, const std::vector<std::pair<uint64_t, uint64_t>>& done) {
  Launch k1{0, 1, 1, 1, 512, 1}, kn{0, 2, 0, 1, 512, 1}, k2{0, 3, 2, 1, 512, 1};
  k1.non_blocking = nb1;
  k2.non_blocking = nb2;
  Bench b(1, {k1, kn, k2});
  b.ns_of = {{1, 1000}, {2, 100}, {3, 100}};
  sc_core::sc_start(sc_time(5, sc_core::SC_US));
  REQUIRE(b.runs.size() == runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    CHECK(same(b.runs[i], r.launch, r.block, r.sm, r.start_ns, r.end_ns));
  }
  REQUIRE(b.done.size() == done.size());
  for (size_t i = 0; i < done.size(); ++i) CHECK((b.done[i].tag == done[i].first && b.done[i].ns == done[i].second));
}

}  // namespace

TEST_CASE("concurrent dispatcher: N1/N2: blocking streams and the NULL stream wait for each other") {
  null_stream_case(false, false, {{1, 0, 0, 10, 1010}, {2, 0, 0, 1020, 1120}, {3, 0, 0, 1130, 1230}},
                   {{1, 1020}, {2, 1130}, {3, 1240}});
}

TEST_CASE("concurrent dispatcher: non-blocking streams neither wait for the NULL stream nor hold it back") {
  null_stream_case(true, true, {{1, 0, 0, 10, 1010}, {2, 0, 0, 20, 120}, {3, 0, 0, 30, 130}},
                   {{2, 130}, {3, 140}, {1, 1020}});
}

TEST_CASE("concurrent dispatcher: the NULL stream passes a non-blocking stream and holds back a blocking one") {
  null_stream_case(true, false, {{1, 0, 0, 10, 1010}, {2, 0, 0, 20, 120}, {3, 0, 0, 130, 230}},
                   {{2, 130}, {3, 240}, {1, 1020}});
}

TEST_CASE("concurrent dispatcher: a bad SM set or mask is refused naming the set") {
  Bench b(2, {});
  CHECK_THROWS_WITH(b.d->set_sm_set(0, 1), Catch::Matchers::Contains("SM set 0"));
  CHECK_THROWS_WITH(b.d->set_sm_set(64, 1), Catch::Matchers::Contains("scheduler.sm_sets"));
  CHECK_THROWS_WITH(b.d->set_sm_set(1, 0b100), Catch::Matchers::Contains("beyond the GPU's 2"));
  CHECK_THROWS_WITH(b.d->set_sm_set(1, 0), Catch::Matchers::Contains("names no SM"));
}

// Wear balancing's rotations (docs/power.md, "Wear-balancing policies") on the dispatcher: application A
// (set 1, 10 kernels of 6 blocks of 700 ns on stream 1) and B (set 2, 12 kernels of 4 blocks of 600 ns
// on stream 2) on 5 SMs of two 1024-thread blocks, partitions 3 + 2 rotated by one SM every 1000 ns, six
// times. A fake SM starts a block at the instant it is handed out, so a run's start is its dispatch
// instant: every block must go to its application's partition of that instant, the latest change
// called strictly before it (sampled at the first edge after the call), whatever still drains
// elsewhere; the partitions were worked by hand (bit i: SM i; SM 4 wraps to SM 0).
TEST_CASE("concurrent dispatcher: rotated partitions: every block goes to its application's partition of its dispatch instant") {
  const std::vector<std::vector<uint64_t>> parts = {
      {0b00111, 0b11000}, {0b01110, 0b10001}, {0b11100, 0b00011}, {0b11001, 0b00110},
      {0b10011, 0b01100}, {0b00111, 0b11000}, {0b01110, 0b10001},
  };
  std::vector<Launch> launches;
  for (uint64_t k = 0; k < 10; ++k) launches.push_back(Launch{0, 1 + k, 1, 6, 1024, 1, 256, 1});
  for (uint64_t k = 0; k < 12; ++k) launches.push_back(Launch{0, 101 + k, 2, 4, 1024, 1, 256, 2});
  std::vector<SetChange> changes;
  for (size_t r = 0; r < parts.size(); ++r)
    for (uint32_t set : {1u, 2u}) changes.push_back(SetChange{1000 * r, set, parts[r][set - 1]});
  Bench b(5, launches, 1, changes);
  for (uint64_t k = 0; k < 12; ++k) b.ns_of[1 + k] = 700, b.ns_of[101 + k] = 600;
  sc_core::sc_start(sc_time(20, sc_core::SC_US));
  REQUIRE(b.runs.size() == 10 * 6 + 12 * 4);
  REQUIRE(b.done.size() == 22);
  std::vector<std::vector<unsigned>> handed_out(parts.size(), std::vector<unsigned>(2, 0));
  unsigned drained = 0;  // blocks running past a rotation on an SM their application left
  for (const Run& r : b.runs) {
    const size_t app = r.launch > 100 ? 1 : 0;
    const size_t k = std::min<size_t>(parts.size() - 1, (r.start_ns - 1) / 1000);  // changes at 1000 k
    INFO("launch " << r.launch << " block " << r.block << " on SM " << r.sm << " at " << r.start_ns << " ns");
    CHECK((parts[k][app] >> r.sm & 1) == 1);
    ++handed_out[k][app];
    if (k + 1 < parts.size() && r.end_ns > 1000 * (k + 1) && !(parts[k + 1][app] >> r.sm & 1)) ++drained;
  }
  // The case tests something: each partition got blocks of both applications, and blocks drained.
  for (size_t k = 0; k < parts.size(); ++k) {
    INFO("partitions after " << k << " rotations");
    CHECK(handed_out[k][0] > 0);
    CHECK(handed_out[k][1] > 0);
  }
  CHECK(drained > 0);
}
