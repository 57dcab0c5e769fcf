// Power accounting of a whole run (docs/power.md) against energies summed by hand for a small kernel,
// and its outputs: the power trace CSV, the counter tracks, the aging sensor in the registry.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include "common/subprocess.h"

using namespace gpuvp::test;
using nlohmann::json;

namespace {

json read_json(const std::string& path) {
  const std::string text = slurp(path);
  std::remove(path.c_str());
  REQUIRE(!text.empty());
  return json::parse(text);
}

// tests/data/power/small.ptx: one block of 32 threads, 5 warp instructions; the instruction cache's
// energy is set to 0 (its accesses depend on the fetch width, not on the kernel).
RunResult run_small(const std::string& outputs) {
  return run_gpuvp(fmt::format(
      "exec --preset gtx480 --set sm.count=1 --set power.enabled=true --set power.energy_pj.icache=0 --ptx {}/power/small.ptx -k small "
      "--grid 1 --block 32 --arg buf:f32:1 {}",
      GPUVP_TEST_DATA, outputs));
}

}  // namespace

TEST_CASE("power: the energy of a small kernel summed by hand") {
  const std::string s = temp_path("power_small.json");
  RunResult r = run_small("--stats " + s);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json j = read_json(s);
  const json& e = j["sms"][0]["energy"];
  // ld.param.u64 (param: load-store lanes, one shared access, 1 register write), mov.f32 with an
  // immediate (integer lanes, 1 write), add.f32 and mul.f32 (fp32 lanes, 2 reads and 1 write each),
  // exit (control lanes); 32 active lanes each.
  const json& ev = e["events"];
  CHECK(ev["warp_inst"] == 5);
  CHECK(ev["ldst"] == 32);
  CHECK(ev["shared"] == 1);
  CHECK(ev["int"] == 32);
  CHECK(ev["fp32"] == 64);
  CHECK(ev["control"] == 32);
  CHECK(ev["reg_read"] == 4 * 32);
  CHECK(ev["reg_write"] == 4 * 32);
  CHECK(ev["fp64"] == 0);
  CHECK(ev["sfu"] == 0);
  // GTX480 McPAT figures (pJ, 0.96 V = v0): 5 x 13.81 + 32 x 0.57 (ldst) + 301 + 32 x 0.57 (int)
  // + 64 x 46.2 + 32 x 0.57 (control) + 128 x 26.0 + 128 x 14.3 = 8539.97 pJ.
  const double hand = (5 * 13.81 + 3 * 32 * 0.57 + 301 + 64 * 46.2 + 128 * 26.0 + 128 * 14.3) * 1e-12;
  CHECK(e["dynamic_j"].get<double>() == Approx(8539.97e-12).epsilon(1e-9));
  CHECK(e["dynamic_j"].get<double>() == Approx(hand).epsilon(1e-9));
  CHECK(j["launches"][0]["dynamic_energy_j"].get<double>() == Approx(hand).epsilon(1e-9));
  // Static: 0.28 W while the block is resident (the 700 MHz clock: a period of 1429 ps, to the picosecond).
  const double powered = e["powered_cycles"].get<double>();
  CHECK(powered > 0);
  CHECK(e["static_j"].get<double>() == Approx(0.28 * powered * 1429e-12).epsilon(1e-9));
  CHECK(e["total_j"].get<double>() == Approx(hand + 0.28 * powered * 1429e-12).epsilon(1e-9));
  // The run's total adds the chip's constant power over the whole simulated time (10 W).
  const json& t = j["energy"];
  CHECK(t["chip_constant_j"].get<double>() == Approx(10 * j["sim_seconds"].get<double>()).epsilon(1e-9));
  CHECK(j["em"]["cr"].size() == 1);
  CHECK(j["em"]["gpu_cr"].get<double>() == Approx(e["em_cr"].get<double>()));
}

TEST_CASE("power: trace CSV and counter tracks of the same run") {
  const std::string csv = temp_path("power_small.csv"), tl = temp_path("power_small_timeline.json");
  RunResult r = run_small(fmt::format("--power-trace {} --timeline {}", csv, tl));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const std::string text = slurp(csv);
  std::remove(csv.c_str());
  REQUIRE(text.rfind("interval,start_ps,end_ps,sm,dynamic_w,static_w,power_w,temp_k,em_rate,idle_fraction\n", 0) == 0);
  // One SM: the idle stretch before the kernel is one row from 0; then one row per interval of 500
  // cycles at 700 MHz (a period of 1429 ps, to the picosecond: 714500 ps) while the block is resident.
  CHECK(text.find("\n0,0,") != std::string::npos);
  bool one_interval = false;
  for (size_t at = text.find('\n'); at != std::string::npos && at + 1 < text.size(); at = text.find('\n', at + 1)) {
    unsigned long long idx = 0, start = 0, end = 0;
    if (std::sscanf(text.c_str() + at + 1, "%llu,%llu,%llu,", &idx, &start, &end) == 3)
      one_interval |= start == idx * 714500 && end - start == 714500;
  }
  CHECK(one_interval);
  const json trace = read_json(tl);
  bool power_track = false, temp_track = false;
  for (const json& ev : trace["traceEvents"]) {
    if (ev["ph"] != "C") continue;
    power_track |= ev["name"] == "SM 0 power (W)";
    temp_track |= ev["name"] == "SM 0 temperature (K)";
  }
  CHECK(power_track);
  CHECK(temp_track);
}

namespace {
// Two blocks on tx2's two SMs, each asleep between wake-ups every 1 ms for 40 ms: the thermal warm-up's
// steady stretches (wear by Simpson's rule), then waits near the steady state (wear in closed form),
// each wake-up an active interval.
json timer_spin_stats(const std::string& outputs) {
  const std::string s = temp_path("power_spin.json");
  RunResult r = run_gpuvp(fmt::format(
      "exec --preset tx2 --ptx {}/sw/kernels/timerSpin.ptx --kernel timerSpin --grid 2 --block 32 --arg buf:u64:2 "
      "--arg buf:u64:2 --arg buf:u32:2 --arg buf:u64:2:const=40000000 --arg u32:1000000 --stats {} {}",
      GPUVP_SOURCE_DIR, s, outputs));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return read_json(s);
}
}  // namespace

TEST_CASE("power: a run that keeps no trace has the same energy, temperatures and wear as one writing the CSV") {
  const std::string csv = temp_path("power_spin.csv");
  const json with_trace = timer_spin_stats("--power-trace " + csv);
  const std::string text = slurp(csv);
  std::remove(csv.c_str());
  const json without = timer_spin_stats("");
  REQUIRE(with_trace["sms"].size() == 2);
  // The trace has the warm-up's stretches and a row per SM per wake-up at least (40 wake-ups).
  CHECK(std::count(text.begin(), text.end(), '\n') > 1 + 2 * 40);
  CHECK(without["energy"] == with_trace["energy"]);  // to the bit: the same computation, only no rows kept
  CHECK(without["em"] == with_trace["em"]);
  for (size_t k = 0; k < 2; ++k) CHECK(without["sms"][k]["energy"] == with_trace["sms"][k]["energy"]);
  CHECK(without["energy"]["sm_static_j"].get<double>() > 0);
  CHECK(without["em"]["gpu_cr"].get<double>() > 0);
}

TEST_CASE("power: off, the statistics say null and the trace is refused") {
  const std::string s = temp_path("power_off.json");
  RunResult r = run_small("--set power.enabled=false --stats " + s);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json j = read_json(s);
  CHECK(j["energy"].is_null());
  CHECK(j["sms"][0]["energy"].is_null());
  CHECK(j["launches"][0]["dynamic_energy_j"].is_null());
  const std::string csv = temp_path("power_off.csv");
  RunResult t = run_small("--set power.enabled=false --power-trace " + csv);
  CHECK(t.status != 0);
  CHECK(t.err.find("--power-trace: power accounting is off (power.enabled = false)") != std::string::npos);
}

TEST_CASE("power: the aging sensor is registered state") {
  RunResult r = run_gpuvp("targets --preset gtx480 --set power.enabled=true");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("gpu.sm14.em_sensor") != std::string::npos);
}

namespace {
// The largest dynamic power of an SM over a kernel's window (W), from its energy and the launch's cycles.
double peak_sm_dynamic_w(const std::string& kernel_args) {
  const std::string s = temp_path("power_mix.json");
  RunResult r = run_gpuvp(fmt::format("exec --preset gtx480 --set power.enabled=true --ptx {}/experiments/wear/wear_kernels.ptx {} --stats {}",
                                      GPUVP_SOURCE_DIR, kernel_args, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json j = read_json(s);
  const double seconds = j["launches"][0]["cycles"].get<double>() / 700e6;
  double peak = 0;
  for (const json& sm : j["sms"]) peak = std::max(peak, sm["energy"]["dynamic_j"].get<double>() / seconds);
  return peak;
}
}  // namespace

TEST_CASE("power: the compute-heavy kernel draws far more than the memory-heavy one (a high/low mix)") {
  const double high = peak_sm_dynamic_w("-k compute_heavy --grid 30 --block 128 --arg buf:f32:3840 --arg i32:200");
  const double low = peak_sm_dynamic_w(
      "-k memory_heavy --grid 30 --block 128 --arg buf:f32:65536:iota --arg buf:f32:65536 --arg i32:65536");
  INFO("compute_heavy " << high << " W, memory_heavy " << low << " W per SM");
  // Every SM issues 4 fp32 FMAs of 32 lanes per loop iteration (over 1.7 W at 700 MHz on gtx480); the
  // copy mostly waits for DRAM.
  CHECK(high > 1.0);
  CHECK(high > 10 * low);
}
