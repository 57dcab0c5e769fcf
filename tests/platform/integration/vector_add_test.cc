// Whole platform: vectorAdd end to end on every preset and SM count, and the scaling the
// FlexGripPlus study shows (execution time falls from 1 to 2 to 4 SMs).
#include <catch2/catch.hpp>

#include <sstream>

#include "common/subprocess.h"

using gpuvp::test::run_stats;

namespace {
void check_correct(const std::string& args) {
  INFO(args);
  auto j = run_stats(args);
  INFO(j["stderr"].get<std::string>());
  INFO(j["stdout"].get<std::string>());
  REQUIRE(j["exit_status"] == 0);
  CHECK(j["correct"] == true);
  CHECK(j["kernel_cycles"].get<uint64_t>() > 0);
}
}  // namespace

TEST_CASE("platform: vectorAdd is correct on flexgrip with 1, 2, 4, 8 and 16 SMs") {
  for (int n : {1, 2, 4, 8, 16})
    for (const char* launch : {"fi16", "fi32", "small"})
      check_correct(fmt::format("--preset flexgrip --set sm.count={} --workload vectorAdd --launch {}", n, launch));
}

TEST_CASE("platform: vectorAdd is correct on tk1 and tx2") {
  for (const char* preset : {"tk1", "tx2"})
    for (const char* launch : {"small", "medium", "large"})
      check_correct(fmt::format("--preset {} --workload vectorAdd --launch {}", preset, launch));
}

TEST_CASE("platform: on flexgrip the execution time of vectorAdd falls from 1 to 2 to 4 SMs") {
  for (const char* launch : {"fi16", "fi32"}) {
    uint64_t prev = 0;
    for (int n : {1, 2, 4}) {
      auto j = run_stats(fmt::format("--preset flexgrip --set sm.count={} --workload vectorAdd --launch {}", n, launch));
      REQUIRE(j["exit_status"] == 0);
      uint64_t cycles = j["kernel_cycles"];
      INFO(launch << " with " << n << " SMs: " << cycles << " cycles, previous " << prev);
      if (prev) CHECK(cycles < prev);
      prev = cycles;
    }
  }
}

TEST_CASE("platform: statistics account for every block and every SM") {
  auto j = run_stats("--preset flexgrip --set sm.count=2 --workload vectorAdd --launch fi32");
  REQUIRE(j["exit_status"] == 0);
  // fi32: 32 blocks, 8 per core, 2 SMs -> batches of 8 + 8: two batches, 16 blocks per SM.
  REQUIRE(j["sms"].size() == 2);
  for (auto& sm : j["sms"]) {
    CHECK(sm["blocks"] == 16);
    CHECK(sm["batches"] == 2);
    CHECK(sm["residency_fraction"].get<double>() > 0.5);
    CHECK(sm["residency_fraction"].get<double>() <= 1.0);
  }
  // 32 blocks x 32 threads: every thread loads a and b and stores c, lane by lane on flexgrip.
  uint64_t rd = 0, wr = 0;
  for (auto& a : j["arbiters"]) {
    uint64_t g = 0;
    for (auto& x : a["grants"]) g += x.get<uint64_t>();
    if (a["name"] == "arb_gmem_rd") rd = g;
    if (a["name"] == "arb_gmem_wr") wr = g;
  }
  CHECK(rd == 2 * 32 * 32);
  CHECK(wr == 32 * 32);
}

TEST_CASE("platform: tx2 DRAM is bandwidth-bound, not latency-serialised") {
  // vectorAdd "large": 4096 floats, 16 blocks x 256 threads; reads a and b (32 KiB) through the
  // read port. At 58.4 GB/s and 1300 MHz the port moves 44.9 bytes per cycle: at least 730 cycles.
  // With the DRAM latency (486 cycles) serialised, the 1024 32-byte reads would take over 490,000 cycles.
  auto j = run_stats("--preset tx2 --workload vectorAdd --launch large");
  REQUIRE(j["exit_status"] == 0);
  uint64_t cycles = j["kernel_cycles"];
  CHECK(cycles >= 730);
  CHECK(cycles < 20000);
  // At 5 GB/s the run is bandwidth-bound: the reads (32 KiB) cross the DRAM bus, 32768 bytes / 5 GB/s
  // = 6553.6 ns = 8520 cycles at least, and not much more than that. The writes (16 KiB of whole
  // 32-byte sectors) are allocated in the write-back L2 (512 KiB) without a fetch and stay there until
  // the host's copy of c, after the kernel, writes them back.
  auto slow = run_stats("--preset tx2 --set gmem.bandwidth_gbps=5 --workload vectorAdd --launch large");
  REQUIRE(slow["exit_status"] == 0);
  CHECK(slow["kernel_cycles"].get<uint64_t>() >= 8520);
  CHECK(slow["kernel_cycles"].get<uint64_t>() < 2 * 8520);
  CHECK(slow["l2"]["writebacks"].get<uint64_t>() == 16384 / 32);  // c, when the host reads it
}

TEST_CASE("platform: a kernel whose code fits the instruction buffer fetches each 128-byte line once") {
  // mandelbrot loops many times per pixel; with 128 instructions (16 lines of 128 bytes) of buffer
  // the whole kernel fits, so only the first touch of each code line goes to system memory. The lines are counted from the
  // disassembly: the kernel's first and last instruction addresses.
  auto d = gpuvp::test::run_gpuvp("disasm mandelbrot");
  REQUIRE(d.status == 0);
  uint64_t first = ~uint64_t{0}, last = 0;
  std::istringstream in(d.out);
  for (std::string line; std::getline(in, line);) {
    auto colon = line.find(":  ");
    if (line.empty() || line[0] == '/' || colon == std::string::npos) continue;
    uint64_t a = std::stoull(line.substr(0, colon), nullptr, 16);
    first = std::min(first, a);
    last = std::max(last, a);
  }
  uint64_t lines = last / 128 - first / 128 + 1;
  REQUIRE(lines <= 16);  // the kernel fits the buffer: otherwise this test means nothing
  // (The instruction buffer belongs to the issue timing: the flexgrip pipeline fetches every instruction.)
  auto j = run_stats("--preset flexgrip --set sm.timing=issue --set sm.ibuf_insts=128 --workload mandelbrot");
  REQUIRE(j["exit_status"] == 0);
  CHECK(j["sms"][0]["fetches"].get<uint64_t>() == lines);
  // Without a buffer every executed warp instruction is fetched.
  auto n = run_stats("--preset flexgrip --set sm.timing=issue --set sm.ibuf_insts=0 --workload mandelbrot");
  REQUIRE(n["exit_status"] == 0);
  CHECK(n["sms"][0]["fetches"].get<uint64_t>() >= n["sms"][0]["warp_insts"].get<uint64_t>());
  CHECK(n["kernel_cycles"].get<uint64_t>() > j["kernel_cycles"].get<uint64_t>());
}

TEST_CASE("platform: compute-bound mandelbrot speeds up from 1 to 2 to 4 SMs on flexgrip") {
  uint64_t prev = 0;
  for (int n : {1, 2, 4}) {
    auto j = run_stats(fmt::format("--preset flexgrip --set sm.count={} --workload mandelbrot", n));
    REQUIRE(j["exit_status"] == 0);
    uint64_t c = j["kernel_cycles"];
    // 4 blocks of 64 threads: with n SMs the slowest SM runs 4/n blocks; the time must fall by at
    // least a quarter at each doubling (memory and fetch contention take the rest).
    if (prev) CHECK(c < prev * 3 / 4);
    prev = c;
  }
}
