// The tk1/tx2 DRAM data bus on the whole platform (docs/validation.md, "DRAM model"): streaming time
// follows 1/bandwidth without a staircase while the bus is the bottleneck, never beats the configured
// bandwidth, and host copies contend with kernels for it (docs/concurrent-kernels.md, "Copies and
// DRAM"). Every expected figure is worked by hand from the bytes moved and the bandwidth. The first
// runs have no L2 (l2.size_kib=0), so that every byte a kernel moves crosses the bus while it runs,
// and no L1 (sm.l1d.size_kib=0), so that each transfer is one 32-byte segment (through an L1, a
// coalesced warp's 128 bytes are one transfer, and the hand-worked shares below assume 32 bytes);
// the copy below runs with tx2's caches, where the write-back L2 keeps the stores on chip until the
// host reads them, so only the loads cross the bus during the kernel.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "platform/platform.h"
#include "sw/kernels/kernels.h"

using gpuvp::test::run_stats;

namespace {

// vectorAdd "large" moves 4096 floats of a and b in and 4096 of c out: 49152 bytes; tx2 runs at
// 1300 MHz, so at bw GB/s (bytes per ns) the bytes alone need 49152 / bw * 1.3 cycles.
constexpr double kBytes = 49152, kMhz = 1300;
double bus_cycles(double bw) { return kBytes / bw * kMhz / 1000; }

uint64_t vector_add_cycles(double bw) {
  auto j = run_stats(
      fmt::format("--preset tx2 --set l2.size_kib=0 --set sm.l1d.size_kib=0 --set gmem.bandwidth_gbps={} --workload "
                  "vectorAdd --launch large",
                  bw));
  INFO(j["stderr"].get<std::string>());
  REQUIRE(j["exit_status"] == 0);
  REQUIRE(j["correct"] == true);
  return j["kernel_cycles"].get<uint64_t>();
}

}  // namespace

// Up to about 4 GB/s the DRAM bus is vectorAdd's bottleneck on tx2: the time is the bytes at the
// bandwidth plus fixed costs (a load's latency, blocks' set-up, code fetches: about 1800
// cycles), so doubling the bandwidth takes exactly half the bus time off. Tolerance 1 % of that half
// (the fixed costs cancel; what is left is where the last warps' latencies fall). From 8 GB/s on,
// a load's latency (L2 and DRAM, 486 cycles on tx2) starts to show beside the bus time: 4 -> 8 GB/s
// saves about 1 % less than half, so the pairs stop at 2 -> 4.
TEST_CASE("dram bandwidth: streaming time scales as 1/bandwidth and never beats it") {
  std::map<double, uint64_t> t;
  for (double bw : {0.5, 1.0, 2.0, 4.0, 8.0, 29.2, 41.6, 58.4}) {
    t[bw] = vector_add_cycles(bw);
    INFO(bw << " GB/s: " << t[bw] << " cycles, the bytes alone " << bus_cycles(bw));
    // Achieved bandwidth 49152 bytes / time <= the configured one.
    CHECK(double(t[bw]) >= bus_cycles(bw));
  }
  for (double bw : {0.5, 1.0, 2.0}) {
    const double saved = double(t[bw]) - double(t[2 * bw]), half = bus_cycles(bw) / 2;
    INFO(bw << " -> " << 2 * bw << " GB/s saves " << saved << " cycles; half the bus time is " << half);
    CHECK(std::abs(saved - half) <= 0.01 * half);
  }
}

// Bandwidths that took the same whole cycles per 32-byte transfer before (rounded up: 32 / 0.4975 =
// 64.32 ns and 32 / 0.5 = 64 ns are both 84 cycles of 0.769 ns; 32 / 4.8 = 6.67 ns and 32 / 5.1 =
// 6.27 ns both 9) now differ by the bytes' time: 49152 * 1.3 * (1/0.4975 - 1/0.5) = 642.2 cycles and
// 49152 * 1.3 * (1/4.8 - 1/5.1) = 783.1 cycles. Tolerance 2 %.
TEST_CASE("dram bandwidth: no staircase, bandwidths one cycle per transfer could not tell apart differ") {
  const struct {
    double lo, hi;
  } pairs[] = {{0.4975, 0.5}, {4.8, 5.1}};
  for (const auto& p : pairs) {
    const double diff = double(vector_add_cycles(p.lo)) - double(vector_add_cycles(p.hi));
    const double expect = bus_cycles(p.lo) - bus_cycles(p.hi);
    INFO(p.lo << " vs " << p.hi << " GB/s: " << diff << " cycles apart, expected " << expect);
    CHECK(std::abs(diff - expect) <= 0.02 * expect);
  }
}

namespace {

// copy4 (tests/data/exec/stream.ptx) of 49152 floats on tx2 with its L1 and L2: 48 blocks of 256
// threads, each thread copying 4 floats. The source (192 KiB) was uploaded before the launch, so
// every load misses the L2 and its sectors cross the DRAM bus: 196608 bytes. The destination's
// whole sectors are allocated in the L2 without a fetch (write-back), and the two buffers (384 KiB)
// fit its 512 KiB of 16 ways (12 lines per set): nothing is evicted, nothing written back during
// the kernel.
constexpr double kCopyReadBytes = 196608;
double copy_bus_cycles(double bw) { return kCopyReadBytes / bw * kMhz / 1000; }

// The statistics of `gpuvp exec ARGS`, which must succeed.
nlohmann::json exec_stats(const std::string& args) {
  const std::string stats = gpuvp::test::temp_path("exec_stats.json");
  const auto r = gpuvp::test::run_gpuvp(fmt::format("exec {} --stats {}", args, stats));
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(gpuvp::test::slurp(stats));
  std::remove(stats.c_str());
  return j;
}

uint64_t l2_copy_cycles(double bw) {
  const auto j = exec_stats(fmt::format(
      "--preset tx2 --set gmem.bandwidth_gbps={} --ptx {}/exec/stream.ptx --kernel copy4 --grid 48 --block 256 "
      "--arg i32:49152 --arg buf:f32:49152 --arg buf:f32:49152",
      bw, GPUVP_TEST_DATA));
  CHECK(j["l2"]["evictions"] == 0);
  return j["kernel_cycles"].get<uint64_t>();
}

}  // namespace

// With the caches on, the loads' DRAM latency behind the L2's misses overlaps as without them: up to
// 8 GB/s the bus is the copy's bottleneck and each doubling of the bandwidth takes half the bus time
// off (1 %, as above); 4.8 and 5.1 GB/s differ by the bytes' time (2 %); at every bandwidth, up to
// tx2's 58.4 where issue and latency limit it, the bytes never cross faster than configured.
TEST_CASE("dram bandwidth with the L2: streaming copy scales as 1/bandwidth and never beats it") {
  std::map<double, uint64_t> t;
  for (double bw : {1.0, 2.0, 4.0, 4.8, 5.1, 8.0, 16.0, 58.4}) {
    t[bw] = l2_copy_cycles(bw);
    INFO(bw << " GB/s: " << t[bw] << " cycles, the loads' bytes alone " << copy_bus_cycles(bw));
    CHECK(double(t[bw]) >= copy_bus_cycles(bw));
  }
  for (double bw : {1.0, 2.0, 4.0}) {
    const double saved = double(t[bw]) - double(t[2 * bw]), half = copy_bus_cycles(bw) / 2;
    INFO(bw << " -> " << 2 * bw << " GB/s saves " << saved << " cycles; half the bus time is " << half);
    CHECK(std::abs(saved - half) <= 0.01 * half);
  }
  const double diff = double(t[4.8]) - double(t[5.1]), expect = copy_bus_cycles(4.8) - copy_bus_cycles(5.1);
  INFO("4.8 vs 5.1 GB/s: " << diff << " cycles apart, expected " << expect);
  CHECK(std::abs(diff - expect) <= 0.02 * expect);
}

namespace {

// copy4 of 2 x 4 MiB on gtx480 (15 SMs at 700 MHz, 177.4 GB/s: 253.4 bytes per cycle): 480 blocks of
// 256 threads, 4 floats each. Returns the kernel's cycles and the DRAM bytes (reads and write-backs)
// its launch moved; the stores the 768 KiB write-back L2 still holds at the end cross the bus only
// when the host reads them, so the copy's 8 MiB over its time may exceed what the bus carried.
struct Copy {
  double cycles = 0, dram_bytes = 0;
};
constexpr double kFermiMhz = 700, kFermiCopyBytes = 2.0 * 4 * 1048576;

Copy gtx480_copy(const std::string& sets) {
  const auto j = exec_stats(fmt::format(
      "--preset gtx480 {} --ptx {}/exec/stream.ptx --kernel copy4 --grid 480 --block 256 --arg i32:1048576 "
      "--arg buf:f32:1048576:iota --arg buf:f32:1048576",
      sets, GPUVP_TEST_DATA));
  REQUIRE(j["launches"].size() == 1);
  const auto& d = j["launches"][0]["dram"];
  return {j["kernel_cycles"].get<double>(), d["read_bytes"].get<double>() + d["write_bytes"].get<double>()};
}

double gbps(double bytes, double cycles) { return bytes / (cycles / kFermiMhz * 1000); }  // bytes per ns

}  // namespace

// A Fermi reaches its memory partitions through a crossbar (l2.slice_ports: one port of the global
// read and write arbiters per L2 slice, 6 on gtx480): the 15 SMs' copy reaches at least 80 % of the
// configured bandwidth at every point of a sweep up to the preset's 177.4 GB/s, and the bytes the bus
// carried never cross faster than configured. Through one port of each shared by all slices the
// arbiters' handshake (3 to 4 cycles per 128-byte transaction, two ports: about 70 bytes per cycle)
// holds it below half of 177.4.
TEST_CASE("dram bandwidth with the L2: gtx480 copy reaches its bandwidth through a port per L2 slice") {
  for (double bw : {44.35, 88.7, 177.4}) {
    const Copy c = gtx480_copy(fmt::format("--set gmem.bandwidth_gbps={}", bw));
    INFO(bw << " GB/s: " << c.cycles << " cycles, copy " << gbps(kFermiCopyBytes, c.cycles) << " GB/s, bus "
            << gbps(c.dram_bytes, c.cycles) << " GB/s");
    CHECK(gbps(kFermiCopyBytes, c.cycles) >= 0.8 * bw);
    CHECK(gbps(c.dram_bytes, c.cycles) <= bw * 1.001);
  }
  const Copy one = gtx480_copy("--set l2.slice_ports=false");
  INFO("one port: " << gbps(kFermiCopyBytes, one.cycles) << " GB/s");
  CHECK(gbps(kFermiCopyBytes, one.cycles) < 0.5 * 177.4);
}

namespace {

using namespace gpuvp;

// A vectorAdd of 16384 floats (64 blocks of 256 threads: 196608 bytes through DRAM) on stream 1,
// a host-to-device copy of 196608 bytes on stream 2, or both, on tx2 with DRAM and the copy link at
// 1 GB/s (1 byte per ns) and no copy set-up time. The kernel is launched first (it reaches the
// queues 20 µs later, when the launch call returns); the copy is queued as that call returns, so both
// start at that instant, c0. Returns the copy's and the kernel's ends, µs after c0. (One platform per
// process: the three scenarios run one after the other on it, each from an idle GPU.)
struct Ends {
  double copy = 0, kernel = 0;
};
constexpr uint32_t kN = 16384;
constexpr size_t kCopyBytes = 196608;

Ends scenario(rt::Runtime& rt, const rt::Module& m, bool kernel, bool copy) {
  std::vector<float> a(kN), b(kN);
  for (uint32_t i = 0; i < kN; ++i) a[i] = float(i), b[i] = 2.0f * float(i);
  const rt::DevPtr da = rt.upload(a), db = rt.upload(b), dc = rt.malloc(kN * 4), dst = rt.malloc(kCopyBytes);
  std::vector<uint8_t> host(kCopyBytes, 7);
  const rt::Stream s1 = rt.create_stream(), s2 = rt.create_stream();
  const rt::Event c0 = rt.create_event(), c1 = rt.create_event(), k1 = rt.create_event();
  rt.synchronize();
  if (kernel) {
    rt::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).i32(int32_t(kN));
    rt.launch_async(s1, m, "vectorAdd", {kN / 256}, {256}, args);
  }
  rt.record_event(c0, s2);
  if (copy) rt.memcpy_h2d_async(dst, host.data(), kCopyBytes, s2);
  rt.record_event(c1, s2);
  rt.record_event(k1, s1);
  rt.synchronize();
  Ends e;
  e.copy = rt.event_elapsed_ms(c0, c1) * 1000;
  e.kernel = rt.event_elapsed_ms(c0, k1) * 1000;
  if (kernel) {
    const auto c = rt.download<float>(dc, kN);
    for (uint32_t i = 0; i < kN; i += 1021) REQUIRE(c[i] == 3.0f * float(i));
  }
  if (copy) REQUIRE(rt.download<uint8_t>(dst, kCopyBytes) == host);
  return e;
}

}  // namespace

// Worked by hand (1 byte per ns on the bus and the link):
//   copy alone: its link time, 196608 ns = 196.608 µs; each 256-byte burst, offered as its link slot
//     begins, ends on the idle bus as the slot does: the bus adds nothing;
//   kernel alone: at least its 196608 bytes on the bus, 196.608 µs, plus fixed costs (latency,
//     set-up, fetches: about 2 µs, at most 5 µs);
//   both: the bus carries 196608 + 196608 bytes from c0, so the later end is at least 393.216 µs and
//     at most that plus the kernel's fixed costs (5 µs). The copy offers each burst as the previous
//     one ends (its slots are never later: the link is no faster than the bus), and ahead of it wait
//     at most the two SM ports' transfers, 2 x 32 bytes: the copy gets at least 256 / 320 = 80 % of
//     the bus while it runs, so it ends by 196.608 / 0.8 = 245.76 µs, and the kernel moves at most a
//     quarter of the copy's bytes (49152) meanwhile, so it ends at least (196608 - 49152) bytes =
//     147.456 µs after the copy. The copy still takes longer than alone (by more than 1 µs).
TEST_CASE("dram sharing: a copy and a memory-bound kernel at once share the DRAM bus") {
  Config cfg = Config::preset("tx2");
  cfg.set("l2.size_kib=0");      // every byte of the kernel on the bus (see the top)
  cfg.set("sm.l1d.size_kib=0");  // and in 32-byte transfers (see the top)
  cfg.set("gmem.bandwidth_gbps=1");
  cfg.set("copy.bytes_per_ns=1");
  cfg.set("copy.latency_ns=0");
  Platform p(cfg);
  Ends copy, kernel, both;
  p.run([&](rt::Runtime& rt) {
    const rt::Module m = rt.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
    copy = scenario(rt, m, false, true);
    kernel = scenario(rt, m, true, false);
    both = scenario(rt, m, true, true);
  });
  INFO("copy alone " << copy.copy << " µs, kernel alone " << kernel.kernel << " µs, together copy " << both.copy
                     << " kernel " << both.kernel);
  CHECK_THAT(copy.copy, Catch::Matchers::WithinAbs(196.608, 0.01));
  CHECK(kernel.kernel >= 196.608);
  CHECK(kernel.kernel <= 196.608 + 5);
  const double last = std::max(both.copy, both.kernel);
  CHECK(last >= 393.216);
  CHECK(last <= 393.216 + 5);
  CHECK(both.copy > copy.copy + 1);
  CHECK(both.copy <= 245.76 + 0.01);
  CHECK(both.kernel >= both.copy + 147.456);
}
