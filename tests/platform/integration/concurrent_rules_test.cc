// The queue rules of docs/concurrent-kernels.md on the whole tx2 platform (host runtime, launch
// latency, dispatcher, SMs, copy engine), one scenario per rule, with timerSpin kernels: each block
// spins spin_ns[blockIdx.x] of %globaltimer and records its start, end and SM id.
//
// Every expected instant is worked by hand from the rules and the tx2 preset (2 SMs of 2048 threads,
// 32 blocks and 64 KiB shared memory; placement by most room, ties to SM 0; 20 µs per launch call
// before the kernel reaches the queues; copies of B bytes take ceil(10000 + B/10) ns on the one copy
// engine), never taken from a run. Times are µs from the scenario's time 0 (the host's time at its
// first call); spins are hundreds of µs, so that every rule's alternative outcome is 50 µs or more away.
//
// Tolerance. The rules give the earliest instant each block may start; the platform only adds delays
// to it, and they are the kernel's own fixed costs, not the dispatcher's (which samples an input at the
// next clock edge, 0.77 ns, and assigns one block per cycle). In a block's life about ten of its
// instructions wait a memory round trip of 250-500 cycles (0.2-0.4 µs at 1300 MHz; docs/caches.md):
// fetches of its code from system memory through the instruction cache and the L2 (about 410 cycles
// when they miss both) before it first reads %globaltimer and after it wakes, the load of its spin
// time from DRAM (486; its sleep starts only after it: its recorded end is its start + spin + that
// load), and the three stores of its record after its end (about 250, to the L2). That is about 4 µs
// of slot time beyond the spin, more when both SMs fetch at once or an SM busy with another block's
// instructions takes an arriving block at its next synchronisation: a block holds its slot at most
// kSlotUs = 5.5 µs beyond its spin. An
// instant that follows the completions of d blocks chained one after the other (its depth d) is
// therefore checked in [expected - kEdgeUs, expected + kSlotUs * (d + 1)]: never earlier than the
// rules allow, and late by at most the fixed costs of the blocks before it. Instants without a block
// in them (copies, events, host calls) are clock edges apart only: ±kEdgeUs (13 cycles).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "sw/isa/device_error.h"
#include "sw/kernels/kernels.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

namespace {

constexpr double kSlotUs = 5.5;     // a block's fixed costs beyond its spin (see above)
constexpr double kEdgeUs = 0.01;    // a few clock edges (and globaltimer's ns truncation)
constexpr double kLaunchUs = 20.0;  // tx2 host.launch_latency_ns
// Blocks sleep through their spin (nanosleep, at most 1 ms, never past the spin's end): a block of
// hundreds of µs costs a few instructions per warp, and a sleeping SM takes an arriving block at once.
constexpr uint32_t kSleepNs = 1000000;

// One timerSpin launch: blocks of `threads` threads, block b spinning spin_us[b]; after the scenario,
// what the kernel recorded, in µs from the scenario's time 0.
struct SpinKernel {
  SpinKernel(std::string n, uint32_t t, std::vector<double> spin, uint32_t dyn = 0)
      : name(std::move(n)), threads(t), spin_us(std::move(spin)), dyn_shmem(dyn) {}
  std::string name;
  uint32_t threads;
  std::vector<double> spin_us;
  uint32_t dyn_shmem;
  rt::DevPtr start = 0, end = 0, sm = 0, spin = 0;
  std::vector<double> start_us, end_us;
  std::vector<uint32_t> smid;
};

// Sets up SpinKernels' buffers, launches them on streams and reads their records back.
class Spinner {
 public:
  Spinner(rt::Runtime& rt, const std::vector<SpinKernel*>& kernels)
      : rt_(rt), m_(rt.load_module(kernels::ptx("timerSpin"), "timerSpin.ptx")), kernels_(kernels) {
    for (SpinKernel* k : kernels_) {
      const size_t n = k->spin_us.size();
      std::vector<uint64_t> ns(n);
      for (size_t b = 0; b < n; ++b) ns[b] = uint64_t(k->spin_us[b] * 1000);
      k->start = rt.malloc(n * 8);
      k->end = rt.malloc(n * 8);
      k->sm = rt.malloc(n * 4);
      k->spin = rt.upload(ns);
    }
    zero();
  }
  // Time 0 of the scenario is now (the constructor sets it; a test with set-up of its own, after it).
  void zero() { t0_ns_ = rt_.now_ns(); }
  double now_us() const { return (rt_.now_ns() - t0_ns_) / 1000; }
  // The call returns, and the kernel reaches the queues, 20 µs later.
  uint64_t launch(SpinKernel& k, rt::Stream s) {
    return rt_.launch_async(s, m_, "timerSpin", grid(k), {k.threads}, args(k), k.dyn_shmem);
  }
  // The plain launch(): the NULL stream's.
  uint64_t launch_default(SpinKernel& k) {
    return rt_.launch(m_, "timerSpin", grid(k), {k.threads}, args(k), k.dyn_shmem);
  }
  // Reads every kernel's records (its blocks have completed).
  void read() {
    for (SpinKernel* k : kernels_) {
      const size_t n = k->spin_us.size();
      auto us = [&](const std::vector<uint64_t>& ns) {
        std::vector<double> v;
        for (uint64_t t : ns) v.push_back((double(t) - t0_ns_) / 1000);
        return v;
      };
      k->start_us = us(rt_.download<uint64_t>(k->start, n));
      k->end_us = us(rt_.download<uint64_t>(k->end, n));
      k->smid = rt_.download<uint32_t>(k->sm, n);
    }
  }

 private:
  static rt::Dim3 grid(const SpinKernel& k) { return {uint32_t(k.spin_us.size())}; }
  static rt::KernelArgs args(const SpinKernel& k) {
    rt::KernelArgs a;
    a.ptr(k.start).ptr(k.end).ptr(k.sm).ptr(k.spin).u32(kSleepNs);
    return a;
  }
  rt::Runtime& rt_;
  rt::Module m_;
  std::vector<SpinKernel*> kernels_;
  double t0_ns_ = 0;
};

// Runs `scenario` on a fresh tx2 platform with the kernels set up, then synchronizes and reads the
// kernels' records.
void run(const std::vector<SpinKernel*>& kernels, const std::function<void(rt::Runtime&, Spinner&)>& scenario) {
  Platform p(Config::preset("tx2"));
  p.run([&](rt::Runtime& rt) {
    Spinner s(rt, kernels);
    scenario(rt, s);
    rt.synchronize();
    s.read();
  });
}

// Where and when a block is expected to run (µs from time 0), and the depth of its start: how many
// block completions chain before it (its end has the same depth).
struct Expect {
  unsigned sm;
  double start, end;
  unsigned depth = 0;
};

// t in [expected - kEdgeUs, expected + kSlotUs * (depth + 1)] (see the tolerance at the top).
void check_instant(double t, double expected, unsigned depth) {
  const double lo = expected - kEdgeUs, hi = expected + kSlotUs * (depth + 1);
  INFO("measured " << t << " µs, expected " << expected << " (depth " << depth << "): window [" << lo << ", " << hi
                   << "], deviation " << t - expected);
  CHECK((lo <= t && t <= hi));
}

void check_blocks(const SpinKernel& k, const std::vector<Expect>& expected) {
  REQUIRE(k.start_us.size() == expected.size());
  for (size_t b = 0; b < expected.size(); ++b) {
    INFO(k.name << " block " << b << " (SM " << k.smid[b] << ", expected " << expected[b].sm << ")");
    CHECK(k.smid[b] == expected[b].sm);
    check_instant(k.start_us[b], expected[b].start, expected[b].depth);
    check_instant(k.end_us[b], expected[b].end, expected[b].depth);
  }
}

double first_start(const SpinKernel& k) { return *std::min_element(k.start_us.begin(), k.start_us.end()); }
double last_start(const SpinKernel& k) { return *std::max_element(k.start_us.begin(), k.start_us.end()); }
double last_end(const SpinKernel& k) { return *std::max_element(k.end_us.begin(), k.end_us.end()); }

}  // namespace

// X1/G3 with one block shape. K1 (stream 1, 6 blocks of 1024 threads) reaches the queues at 20, K2
// (stream 2, 2 blocks of 1024, 200) at 40. Two blocks fill an SM; placement by most room:
//   K1 b0 SM0 20..320, b1 SM1 20..370, b2 SM0 20..420, b3 SM1 20..470 (spins 300, 350, 400, 450).
// K2 waits: no room, and K1 heads the EE queue with blocks 4 and 5 unassigned (X1). The slots freed
// first go to K1's remaining blocks, the next ones to K2, in the order they free:
//   320: K1 b0 ends: K1 b4 SM0 320..520. 370: K1 b5 SM1 370..570; K1 leaves the EE queue (G3).
//   420: K1 b2 ends: K2 b0 SM0 420..620. 470: K2 b1 SM1 470..670.
TEST_CASE("concurrent rules: X1/G3 freed slots go to the head kernel until it is fully assigned") {
  SpinKernel k1{"K1", 1024, {300, 350, 400, 450, 200, 200}};
  SpinKernel k2{"K2", 1024, {200, 200}};
  run({&k1, &k2}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
    s.launch(k1, s1);
    s.launch(k2, s2);
  });
  check_blocks(k1, {{0, 20, 320}, {1, 20, 370}, {0, 20, 420}, {1, 20, 470}, {0, 320, 520, 1}, {1, 370, 570, 1}});
  check_blocks(k2, {{0, 420, 620, 1}, {1, 470, 670, 1}});
  CHECK(first_start(k2) > last_start(k1));
}

// X1/G3 with a later kernel that would fit. K1 (stream 1, 6 blocks of 768 threads) reaches the queues
// at 20, K2 (stream 2, 3 blocks of 512) at 40. Two K1 blocks fit an SM (1536 of 2048 threads):
//   K1 b0 SM0 20..320, b1 SM1 20..370, b2 SM0 20..520, b3 SM1 20..570 (spins 300, 350, 500, 550).
// Each SM keeps 512 free threads, room for a K2 block from 40 on, but K1 heads the EE queue with
// blocks 4 and 5 unassigned (X1): K2 waits.
//   320: b0 ends, SM0 has room for 768 (SM1 has not): b4 SM0 320..720.
//   370: b1 ends: b5 SM1 370..670. K1 fully assigned, leaves the EE queue (G3); K2 is its head:
//        K2 b0 SM0 (512 free on both, tie) and b1 SM1, 370..570. Both SMs are full again.
//   520: K1 b2 ends, SM0 frees 768: K2 b2 SM0 520..720, in the slot K1's block freed.
TEST_CASE("concurrent rules: X1/G3 a later kernel that would fit gets no block before the head kernel is fully assigned") {
  SpinKernel k1{"K1", 768, {300, 350, 500, 550, 400, 300}};
  SpinKernel k2{"K2", 512, {200, 200, 200}};
  // (The SM takes a block of another shape beside K1's: its register storage grows, warp slots and
  // shared memory are packed if the room is in pieces; it used to refuse it.)
  CHECK_NOTHROW(run({&k1, &k2}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
    s.launch(k1, s1);
    s.launch(k2, s2);
  }));
  check_blocks(k1, {{0, 20, 320}, {1, 20, 370}, {0, 20, 520}, {1, 20, 570}, {0, 320, 720, 1}, {1, 370, 670, 1}});
  check_blocks(k2, {{0, 370, 570, 1}, {1, 370, 570, 1}, {0, 520, 720, 1}});
  // K2's first block is handed out one cycle after K1's last; the starts the blocks record differ by
  // how long each SM takes to reach the first %globaltimer read (up to ~1.3 us: code fetches).
  CHECK(first_start(k2) >= last_start(k1) - 1.5);
}

// R2 + X1: a timerSpin block with 40000 bytes of dynamic shared memory takes round_up(16 + 36 bytes of
// parameters + 40000, 256) = 40192 bytes: one fits an SM of 64 KiB, two do not.
//   K1 (stream 1, 2 such blocks, spins 300 and 400) at 20: b0 SM0 20..320, b1 SM1 20..420.
//   K2 (stream 2, 2 such blocks, 200) at 40: neither SM has 40192 bytes left (R2): waits.
//   K3 (stream 3, 2 blocks of 32 threads, 256 bytes, 100) at 60 would fit either SM at once, but
//   K2 heads the EE queue (X1): K3 waits behind a kernel that shared memory holds back.
//   320: K1 b0 ends: K2 b0 SM0 320..520. 420: K1 b1 ends: K2 b1 SM1 420..620; K2 fully assigned.
//   K3 at 420: both SMs hold one K2 block, equal room (31 blocks): b0 SM0, b1 SM1, 420..520.
// (R3 for registers: no kernel of the PTX library needs more than 24 registers a thread, so 2048
// threads never run out of the 65536: shared memory is the resource shown here.)
TEST_CASE("concurrent rules: R2 a kernel blocked by shared memory holds back kernels that would fit") {
  SpinKernel k1{"K1", 32, {300, 400}, 40000};
  SpinKernel k2{"K2", 32, {200, 200}, 40000};
  SpinKernel k3{"K3", 32, {100, 100}};
  run({&k1, &k2, &k3}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream(), s3 = rt.create_stream();
    s.launch(k1, s1);
    s.launch(k2, s2);
    s.launch(k3, s3);
  });
  check_blocks(k1, {{0, 20, 320}, {1, 20, 420}});
  check_blocks(k2, {{0, 320, 520, 1}, {1, 420, 620, 1}});
  check_blocks(k3, {{0, 420, 520, 1}, {1, 420, 520, 1}});
}

// N1/N2. Launch order: K1 (stream 1) at 20, K2 (stream 2) at 40, KN (NULL stream, plain launch()) at
// 60, K3 (stream 3) at 80. Every kernel has 2 blocks of 256 threads (all four would fit at once).
//   K1 (300) and K2 (200) were launched before KN: they do not wait. K1 b0 SM0, b1 SM1 20..320;
//   K2 (7 blocks of room on each SM, tie) b0 SM0, b1 SM1 40..240.
//   KN (100) joins the EE queue only when streams 1 and 2 have nothing launched before it left (N1):
//   K2 completes at 240, K1 at 320: KN 320..420 on SM0, SM1.
//   K3 (100), launched after KN, cannot join while KN heads the NULL stream (N2): 420..520.
TEST_CASE("concurrent rules: N1/N2 the NULL stream waits for earlier work and holds back later work") {
  SpinKernel k1{"K1", 256, {300, 300}}, k2{"K2", 256, {200, 200}};
  SpinKernel kn{"KN", 256, {100, 100}}, k3{"K3", 256, {100, 100}};
  run({&k1, &k2, &kn, &k3}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream(), s3 = rt.create_stream();
    s.launch(k1, s1);
    s.launch(k2, s2);
    s.launch_default(kn);
    s.launch(k3, s3);
  });
  check_blocks(k1, {{0, 20, 320}, {1, 20, 320}});
  check_blocks(k2, {{0, 40, 240}, {1, 40, 240}});
  check_blocks(kn, {{0, 320, 420, 1}, {1, 320, 420, 1}});
  check_blocks(k3, {{0, 420, 520, 2}, {1, 420, 520, 2}});
}

// A1/A2 without preemption. L (low-priority stream, 8 blocks of 1024 threads) at 20: two per SM,
//   b0 SM0 20..320, b1 SM1 20..370, b2 SM0 20..420, b3 SM1 20..470 (spins 300, 350, 400, 450).
// H (high-priority stream, 2 blocks of 1024, 200) at 40 heads the high EE queue; no SM has room and
// running blocks are not preempted: L's first four run to their ends.
//   320: L b0 ends: H b0 SM0 320..520 (A2: the high queue is served first).
//   370: L b1 ends: H b1 SM1 370..570. H fully assigned; L's remaining blocks go on only now.
//   420: L b2 ends: L b4 SM0 420..620. 470: L b5 SM1 470..670.
//   520: H b0 ends: L b6 SM0 520..720. 570: L b7 SM1 570..770 (spins 200).
TEST_CASE("concurrent rules: A1/A2 a high-priority kernel takes slots as low-priority blocks finish") {
  SpinKernel low{"L", 1024, {300, 350, 400, 450, 200, 200, 200, 200}};
  SpinKernel high{"H", 1024, {200, 200}};
  run({&low, &high}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream sl = rt.create_stream(0), sh = rt.create_stream(-1);
    s.launch(low, sl);
    s.launch(high, sh);
  });
  check_blocks(low, {{0, 20, 320}, {1, 20, 370}, {0, 20, 420}, {1, 20, 470},
                     {0, 420, 620, 1}, {1, 470, 670, 1}, {0, 520, 720, 2}, {1, 570, 770, 2}});
  check_blocks(high, {{0, 320, 520, 1}, {1, 370, 570, 1}});
}

// C1-C4 on the one copy engine. After its set-up, at 0, the host queues without waiting: stream 1:
// event a1, a 1 MB host-to-device copy A, event b1; stream 2: event a2, a 1 MB device-to-host copy
// B, event b2. Then it launches KA (stream 1, 1 block, 100) and KB (stream 2, 1 block, 100), which
// reach the queues at 20 and 40. A copy of 1 MB takes ceil(10000 + 1000000/10) ns = 110 µs.
//   a1, a2 complete at 0. A heads the CE queue: 0..110, b1 at 110. B joined the CE queue at 0 too but
//   the engine is busy (C2, either direction): 110..220, b2 at 220.
//   KA heads stream 1 only when A has completed (C4): SM0 110..210. KB after B: SM0 220..320.
TEST_CASE("concurrent rules: C1-C4 copies take turns on the copy engine and a kernel waits for the copy before it") {
  SpinKernel ka{"KA", 32, {100}}, kb{"KB", 32, {100}};
  constexpr size_t kBytes = 1000000;
  std::vector<uint8_t> in(kBytes), out(kBytes, 0), landed;
  for (size_t i = 0; i < kBytes; ++i) in[i] = uint8_t(i * 7 + 1);
  double a1_b1 = -1, a2_b2 = -1, b1_b2 = -1;
  run({&ka, &kb}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::DevPtr da = rt.malloc(kBytes), db = rt.upload(in);
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
    const rt::Event a1 = rt.create_event(), b1 = rt.create_event(), a2 = rt.create_event(), b2 = rt.create_event();
    s.zero();
    rt.record_event(a1, s1);
    rt.memcpy_h2d_async(da, in.data(), kBytes, s1);
    rt.record_event(b1, s1);
    rt.record_event(a2, s2);
    rt.memcpy_d2h_async(out.data(), db, kBytes, s2);
    rt.record_event(b2, s2);
    s.launch(ka, s1);
    s.launch(kb, s2);
    rt.synchronize();
    a1_b1 = rt.event_elapsed_ms(a1, b1) * 1000;
    a2_b2 = rt.event_elapsed_ms(a2, b2) * 1000;
    b1_b2 = rt.event_elapsed_ms(b1, b2) * 1000;
    landed = rt.download<uint8_t>(da, kBytes);
  });
  CHECK_THAT(a1_b1, WithinAbs(110, kEdgeUs));  // A took its 110 µs
  CHECK_THAT(b1_b2, WithinAbs(110, kEdgeUs));  // B started as A ended and took its 110 µs
  CHECK_THAT(a2_b2, WithinAbs(220, kEdgeUs));  // B waited 110 µs for the engine
  check_blocks(ka, {{0, 110, 210}});
  check_blocks(kb, {{0, 220, 320}});
  CHECK(landed == in);
  CHECK(out == in);
}

// Launch order is the order launch calls complete. Host thread A (spawned first) sleeps 5 µs, then
// launches KA (stream 1); thread B launches KB (stream 2) at once. B's call completes at 20, A's at
// 25: KB reaches the queues first.
//   KB (4 blocks of 1024 threads, spins 200, 210, 220, 230) fills both SMs at 20:
//   b0 SM0 20..220, b1 SM1 20..230, b2 SM0 20..240, b3 SM1 20..250.
//   KA (4 blocks of 1024, 200) at 25 finds no room and is behind KB (X1); it takes the slots as KB's
//   blocks end: b0 SM0 220..420, b1 SM1 230..430, b2 SM0 240..440, b3 SM1 250..450.
TEST_CASE("concurrent rules: launches from two host threads reach the queues in the order their calls complete") {
  SpinKernel ka{"KA", 1024, {200, 200, 200, 200}}, kb{"KB", 1024, {200, 210, 220, 230}};
  double a_returned = -1, b_returned = -1;
  run({&ka, &kb}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
    rt.spawn([&](rt::Runtime& r) {
      r.sleep_ns(5000);
      s.launch(ka, s1);
      a_returned = s.now_us();
    });
    rt.spawn([&](rt::Runtime&) {
      s.launch(kb, s2);
      b_returned = s.now_us();
    });
    rt.join();
  });
  CHECK_THAT(b_returned, WithinAbs(kLaunchUs, kEdgeUs));
  CHECK_THAT(a_returned, WithinAbs(5 + kLaunchUs, kEdgeUs));
  check_blocks(kb, {{0, 20, 220}, {1, 20, 230}, {0, 20, 240}, {1, 20, 250}});
  check_blocks(ka, {{0, 220, 420, 1}, {1, 230, 430, 1}, {0, 240, 440, 1}, {1, 250, 450, 1}});
}

// Events around kernels in one stream: e0 (at 0), K1 (1 block of 32 threads, 300; reaches the queues
// at 20), e1, K2 (1 block, 100; at 40), e2.
//   K1 SM0 20..320; e1 completes with K1 (G4) at 320: elapsed(e0, e1) = 20 µs of launch latency + 300.
//   K2 heads the stream at 320: SM0 320..420; e2 at 420: elapsed(e1, e2) = 100, K2's span as the
//   kernel itself recorded it.
TEST_CASE("concurrent rules: the time between events around a kernel is the kernel's span") {
  SpinKernel k1{"K1", 32, {300}}, k2{"K2", 32, {100}};
  double e0_e1 = -1, e1_e2 = -1;
  run({&k1, &k2}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream();
    const rt::Event e0 = rt.create_event(), e1 = rt.create_event(), e2 = rt.create_event();
    rt.record_event(e0, s1);
    s.launch(k1, s1);
    rt.record_event(e1, s1);
    s.launch(k2, s1);
    rt.record_event(e2, s1);
    rt.event_synchronize(e2);
    e0_e1 = rt.event_elapsed_ms(e0, e1) * 1000;
    e1_e2 = rt.event_elapsed_ms(e1, e2) * 1000;
  });
  check_blocks(k1, {{0, 20, 320}});
  check_blocks(k2, {{0, 320, 420, 1}});
  // e1 is late by K1's fixed costs beyond its spin, e2 - e1 by K2's: one block's each.
  check_instant(e0_e1, kLaunchUs + 300, 0);
  check_instant(e1_e2, 100, 0);
  // Against the kernels' own records: e1 - e0 = the launch latency + K1's span, e2 - e1 = K2's span,
  // each plus the block's time before its first record and after its last (a part of kSlotUs).
  check_instant(e0_e1, kLaunchUs + last_end(k1) - first_start(k1), 0);
  check_instant(e1_e2, last_end(k2) - first_start(k2), 0);
}

// stream_wait_event: stream 1: K1 (1 block of 32 threads, 300; reaches the queues at 20), event e1;
// stream 2: wait for e1, K2 (1 block, 100; at 40). K2 would fit SM1 at 40, but stream 2 waits for e1,
// which completes with K1 at 320: K1 SM0 20..320, K2 SM0 (both empty: tie) 320..420. Then the host
// synchronizes.
TEST_CASE("concurrent rules: stream_wait_event makes a stream's kernel wait for another stream's kernel") {
  SpinKernel k1{"K1", 32, {300}}, k2{"K2", 32, {100}};
  bool synchronized = false;
  Platform p(Config::preset("tx2"));
  // (synchronize() returns: a completed wait is reported to the host like a record; it used to wait
  // for ever.)
  CHECK_NOTHROW(p.run([&](rt::Runtime& rt) {
    Spinner s(rt, {&k1, &k2});
    const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
    const rt::Event e1 = rt.create_event(), e2 = rt.create_event();
    s.launch(k1, s1);
    rt.record_event(e1, s1);
    rt.stream_wait_event(s2, e1);
    s.launch(k2, s2);
    rt.record_event(e2, s2);
    rt.event_synchronize(e2);  // K2 has completed
    s.read();
    rt.synchronize();
    synchronized = true;
  }));
  check_blocks(k1, {{0, 20, 320}});
  check_blocks(k2, {{0, 320, 420, 1}});
  CHECK(synchronized);
}

// A block that no SM can ever hold is refused at the launch call, naming the resource: 48 KiB of
// dynamic shared memory plus timerSpin's 16-byte header and 36 bytes of parameters is 49408 bytes
// (256-rounded), over the 49152 a block may have; 2048 threads are over the 1024 of a block. The
// refused launches take no time and leave nothing behind: a kernel launched after them runs at 20.
TEST_CASE("concurrent rules: a block that can never fit is refused with a RuntimeError naming the resource") {
  SpinKernel smem{"smem", 32, {100}, 48 * 1024}, threads{"threads", 2048, {100}}, ok{"ok", 32, {100}};
  run({&ok}, [&](rt::Runtime& rt, Spinner& s) {
    const rt::Stream s1 = rt.create_stream();
    CHECK_THROWS_AS(s.launch(smem, s1), rt::RuntimeError);
    CHECK_THROWS_WITH(s.launch(smem, s1), Contains("timerSpin") && Contains("49408 bytes of shared memory per block") &&
                                              Contains("limit of 49152"));
    CHECK_THROWS_AS(s.launch(threads, s1), rt::RuntimeError);
    CHECK_THROWS_WITH(s.launch(threads, s1), Contains("block of 2048 threads exceeds 1024 threads per block"));
    CHECK_THAT(s.now_us(), WithinAbs(0, kEdgeUs));
    s.launch(ok, s1);
  });
  check_blocks(ok, {{0, 20, 120}});
}

// A device error in the concurrent mode: oob (tests/data/exec/oob.cu) reads in[i * stride]; with a
// stride of 4 Mi ints its thread 1 reads 16 MiB past a 256-byte buffer. It runs in stream 2 while
// timerSpin spins in stream 1; synchronize() throws the DeviceError, naming oob, not timerSpin.
TEST_CASE("concurrent rules: a device error is thrown by synchronize() as a DeviceError naming the kernel") {
  std::ifstream f(GPUVP_TEST_DATA "/exec/oob.ptx");
  std::stringstream ptx;
  ptx << f.rdbuf();
  REQUIRE(!ptx.str().empty());
  SpinKernel spin{"spin", 32, {300}};
  std::vector<DeviceErrorInfo> errors;  // from synchronize(), then (if) from run()
  uint64_t oob_id = 0;
  Platform p(Config::preset("tx2"));
  try {
    p.run([&](rt::Runtime& rt) {
      Spinner s(rt, {&spin});
      const rt::Module m = rt.load_module(ptx.str(), "oob.ptx");
      const rt::DevPtr in = rt.malloc(256), out = rt.malloc(32 * 4);
      const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
      s.launch(spin, s1);
      rt::KernelArgs args;
      args.ptr(in).ptr(out).i32(1 << 22);
      oob_id = rt.launch_async(s2, m, "oob", {1}, {32}, args);
      try {
        rt.synchronize();
      } catch (const DeviceError& e) {
        errors.push_back(e.info());
      }
    });
  } catch (const DeviceError& e) {  // the error stays: the synchronize at the host program's end sees it again
    errors.push_back(e.info());
  }
  REQUIRE(!errors.empty());
  for (const DeviceErrorInfo& e : errors) {
    CHECK(e.kernel == "oob");
    CHECK(e.launch_id == oob_id);
    CHECK(e.kind == "address");
    CHECK_THAT(e.message, Contains("kernel oob (oob.ptx)"));
  }
}
