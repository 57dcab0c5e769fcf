// Register-file targets (docs/campaigns.md, "Register-file targets"): faults drawn over the words the
// kernel allocated, index ranges, and the warp, lane and PTX register every exported run names.
//
// The kernel, tests/data/ptx/reg_map.ptx, has 7 register slots per thread (worked out by hand from its
// declarations: %r0..%r3 slots 0-3, %rd0..%rd2 slots 4-6). One block of 64 threads on one flexgrip SM:
// warp slots 0 and 1, at the start of a register file of 65536 words (sm.registers, set). The register
// file is 64-bit slots, slot s being registry words 2s (low half) and 2s + 1 (high half); register r, lane l of warp w is slot
// (w * 7 + r) * 32 + l. So the kernel allocates slots 0..447, words 0..895.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/subprocess.h"
#include "faultinj/campaign_file.h"
#include "faultinj/engine.h"
#include "faultinj/export_csv.h"
#include "faultinj/rate_mode.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;
using gpuvp::fi::test::write_file;

namespace {

constexpr uint64_t kRegs = 7, kAllocatedWords = 2 * 2 * kRegs * 32;  // 2 warps x 7 slots x 32 lanes x 2 words
const char* const kNames[kRegs] = {"%r0", "%r1", "%r2", "%r3", "%rd0", "%rd1", "%rd2"};

std::string campaign(const std::string& how) {
  return fmt::format(R"({{
  "name": "register map",
  "platform": {{"preset": "flexgrip", "set": {{"sm.count": 1, "sm.registers": 65536}}}},
  "exec": {{"ptx": "{}/ptx/reg_map.ptx", "kernel": "regmap", "grid": [1], "block": [64],
           "args": [{{"buffer": {{"type": "u32", "count": 64}}}}]}},
  {},
  "workers": 2
}}
)",
                     GPUVP_TEST_DATA, how);
}

// The word of register r, lane l of warp w (high: its upper half), by the layout above.
uint64_t word_of(uint64_t w, uint64_t r, uint64_t l, bool high = false) { return 2 * ((w * kRegs + r) * 32 + l) + high; }

// What the export must name for word `idx`, computed back from the layout.
std::string expected_place(uint64_t idx) {
  const uint64_t slot = idx / 2;
  return fmt::format("warp {} lane {} {}{}", slot / (kRegs * 32), slot % 32, kNames[(slot / 32) % kRegs],
                     idx % 2 ? ".hi" : "");
}

std::string place(const fi::test::Row& row) {
  return fmt::format("warp {} lane {} {}", row.at("warp"), row.at("lane"), row.at("ptx_reg"));
}

}  // namespace

TEST_CASE("register map: an exported run names the warp, lane and PTX register of its word") {
  TempDir d("reg_map_listed");
  struct Case {
    uint64_t idx;
    const char* place;  // by hand
  } cases[] = {
      {word_of(1, 2, 5), "warp 1 lane 5 %r2"},       // 2 * ((1*7 + 2)*32 + 5) = 586
      {word_of(1, 2, 5, true), "warp 1 lane 5 %r2.hi"},
      {word_of(0, 5, 31), "warp 0 lane 31 %rd1"},    // 2 * (5*32 + 31) = 382
      {word_of(1, 6, 0), "warp 1 lane 0 %rd2"},      // 2 * (13*32) = 832
  };
  REQUIRE(cases[0].idx == 586);
  REQUIRE(cases[2].idx == 382);
  REQUIRE(cases[3].idx == 832);
  std::string list;
  for (const Case& c : cases)
    list += fmt::format(R"({}{{"target": "gpu.sm0.regs", "idx": {}, "bit": 0, "event": "warp_instruction:sm0", "count": 3}})",
                        list.empty() ? "" : ", ", c.idx);
  const auto t = fi::test::run_campaign_table(d("c.json"), d("c.db"), campaign(fmt::format(R"("faults": [{}])", list)));
  REQUIRE(t.rows.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(place(t.rows[i]) == cases[i].place);
  // The JSON export carries the same, warp and lane as numbers.
  const auto r = test::run_gpuvp("campaign export " + d("c.db") + " --json -");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at(0).at("warp") == 1);
  CHECK(j.at(0).at("lane") == 5);
  CHECK(j.at(0).at("ptx_reg") == "%r2");
  // A word no kernel allocated: no place, null in the JSON as warp and lane are.
  const auto u = fi::test::run_campaign_table(
      d("u.json"), d("u.db"),
      campaign(R"("faults": [{"target": "gpu.sm0.regs", "idx": 4000, "bit": 0, "event": "warp_instruction:sm0", "count": 3}])"));
  REQUIRE(u.rows.size() == 1);
  const auto uj = nlohmann::json::parse(test::run_gpuvp("campaign export " + d("u.db") + " --json -").out);
  CHECK(uj.at(0).at("warp").is_null());
  CHECK(uj.at(0).at("ptx_reg").is_null());
}

TEST_CASE("register map: a glob over every SM's register file skips the SMs that ran nothing") {
  // One block on two SMs: SM 1 allocates nothing. gpu.sm*.regs draws over SM 0's 896 words only;
  // a selection of SM 1's file alone has nothing to draw and is refused.
  TempDir d("reg_map_idle");
  auto two_sms = [](std::string c) { return c.replace(c.find("\"sm.count\": 1"), 13, "\"sm.count\": 2"); };
  write_file(d("glob.json"), two_sms(campaign(R"("targets": ["gpu.sm*.regs"], "size": {"count": 1})")));
  write_file(d("sm0.json"), two_sms(campaign(R"("targets": ["gpu.sm0.regs"], "size": {"count": 1})")));
  write_file(d("sm1.json"), two_sms(campaign(R"("targets": ["gpu.sm1.regs"], "size": {"count": 1})")));
  const auto glob = test::run_gpuvp("campaign check " + d("glob.json"));
  const auto sm0 = test::run_gpuvp("campaign check " + d("sm0.json"));
  const auto sm1 = test::run_gpuvp("campaign check " + d("sm1.json"));
  REQUIRE(glob.status == 0);
  REQUIRE(sm0.status == 0);
  CHECK_THAT(glob.out, Contains("over 1 targets"));
  auto points = [](const std::string& out) { return out.substr(out.find(" targets (")); };
  CHECK(points(glob.out) == points(sm0.out));
  CHECK(sm1.status == 2);
  CHECK_THAT(sm1.err, Contains("no word of gpu.sm1.regs"));
}

TEST_CASE("register map: drawn register-file faults fall inside the kernel's allocation, or the range given") {
  TempDir d("reg_map_drawn");
  const auto t = fi::test::run_campaign_table(
      d("c.json"), d("c.db"), campaign(R"("targets": ["gpu.sm0.regs"], "size": {"count": 24}, "seed": 5)"));
  REQUIRE(t.rows.size() == 24);
  for (const auto& row : t.rows) {
    const uint64_t idx = std::stoull(row.at("idx"));
    CHECK(idx < kAllocatedWords);
    CHECK(place(row) == expected_place(idx));
  }
  // An index range inside the allocation: every word from it.
  const auto ranged = fi::test::run_campaign_table(
      d("r.json"), d("r.db"), campaign(R"("targets": ["gpu.sm0.regs[100:131]"], "size": {"count": 12})"));
  REQUIRE(ranged.rows.size() == 12);
  for (const auto& row : ranged.rows) {
    const uint64_t idx = std::stoull(row.at("idx"));
    CHECK(idx >= 100);
    CHECK(idx <= 131);
  }
  // The whole file on request: the fault space is 65536 words, not 896 (campaign check says so).
  write_file(d("all.json"), campaign(R"("targets": ["gpu.sm0.regs"], "allocated_only": false, "size": {"count": 1})"));
  write_file(d("alloc.json"), campaign(R"("targets": ["gpu.sm0.regs"], "size": {"count": 1})"));
  const auto all = test::run_gpuvp("campaign check " + d("all.json"));
  const auto alloc = test::run_gpuvp("campaign check " + d("alloc.json"));
  REQUIRE(all.status == 0);
  REQUIRE(alloc.status == 0);
  auto points = [](const std::string& out) {
    const size_t at = out.find(" fault-space points");
    REQUIRE(at != std::string::npos);
    return std::stoull(out.substr(out.rfind('(', at) + 1, at - out.rfind('(', at) - 1));
  };
  CHECK(points(all.out) * kAllocatedWords == points(alloc.out) * 65536);
}

TEST_CASE("register map: malformed, reversed and oversized index ranges are refused naming the key") {
  auto err = [](const std::string& target) {
    try {
      fi::parse_campaign_text(campaign(fmt::format(R"("targets": ["{}"], "size": {{"count": 1}})", target)), "c.json");
    } catch (const fi::CampaignError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(err("gpu.sm0.regs[10:5]"), Contains("c.json: targets[0] = \"gpu.sm0.regs[10:5]\"") && Contains("reversed"));
  CHECK_THAT(err("gpu.sm0.regs[a:b]"), Contains("targets[0]") && Contains("malformed index range"));
  CHECK_THAT(err("gpu.sm0.regs[1:2:3]"), Contains("malformed index range"));
  CHECK_THAT(err("gpu.sm0.regs[]"), Contains("malformed index range"));
  CHECK_THAT(err("gpu.sm0.regs[012:13]"), Contains("malformed index range"));
  CHECK(err("gpu.sched.num_blocks[*]") == "accepted");  // a glob, not a range
  CHECK(err("gpu.sm0.regs[0x10:31]") == "accepted");
  CHECK(err("gpu.sm0.regs[7]") == "accepted");
  // Beyond the target's words: known after the golden run, exit 2 naming the key and the size.
  TempDir d("reg_map_ranges");
  write_file(d("c.json"), campaign(R"("targets": ["gpu.sm0.regs[0:65536]"], "size": {"count": 1})"));
  const auto r = test::run_gpuvp("campaign check " + d("c.json"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("targets[0] 'gpu.sm0.regs[0:65536]': index range [0:65536] passes the end of "
                             "gpu.sm0.regs (65536 words: 0..65535)"));
  // A range outside the allocation selects nothing.
  write_file(d("n.json"), campaign(R"("targets": ["gpu.sm0.regs[4000:4001]"], "size": {"count": 1})"));
  const auto n = test::run_gpuvp("campaign check " + d("n.json"));
  CHECK(n.status == 2);
  CHECK_THAT(n.err, Contains("\"allocated_only\": false"));
}

TEST_CASE("register map: rate-mode register faults fall inside the allocation") {
  // A golden run of two warps of a 7-slot kernel at slots 0..447 (words 0..895), as above, and one
  // more warp slot of another kernel at slot 1000 (words 2000..2000 + 2 * 3 * 32).
  fi::GoldenRun g;
  g.start_ps = 0;
  g.end_ps = 100000;
  g.period_ps = 1000;
  g.kernel_cycles = 100;
  g.targets.push_back({"gpu.sm0.regs", 32, 65536, 0, false});
  g.reg_allocs = {{0, 0, 0, 7, 0x100, 0, 1000}, {0, 1, 224, 7, 0x100, 0, 1000}, {0, 2, 1000, 3, 0x200, 0, 1000}};
  fi::RateSpec r;
  r.per_million_cycles = 1e6;
  r.components = {fi::kRateRegisters};
  fi::Fault run;
  run.target = "gpu.sm0.rate";
  run.event = fi::rate_event(r);
  run.count = 400;
  run.mask = 9;
  unsigned second = 0;
  for (const fi::Fault& f : fi::expand_rate_fault(run, g)) {
    INFO(f.index);
    CHECK((f.index < 896 || (f.index >= 2000 && f.index < 2192)));
    second += f.index >= 2000;
  }
  CHECK(second > 0);  // 192 of 1088 words: about 70 of 400
  r.whole_regfile = true;  // allocated_only false
  run.event = fi::rate_event(r);
  CHECK(run.event.substr(run.event.size() - 4) == ":all");
  REQUIRE(fi::parse_rate_event(run.event));
  CHECK(fi::parse_rate_event(run.event)->whole_regfile);
  CHECK(fi::parse_rate_event(run.event)->components == std::vector<std::string>{fi::kRateRegisters});
  bool outside = false;
  for (const fi::Fault& f : fi::expand_rate_fault(run, g)) outside |= f.index >= 2192;
  CHECK(outside);
}

TEST_CASE("register map: rate-mode runs are in the CSV export with their number of faults") {
  TempDir d("reg_map_rate");
  const auto t = fi::test::run_campaign_table(
      d("c.json"), d("c.db"),
      campaign(R"("rate": {"per_million_cycles": 20000, "components": ["registers"]}, "size": {"count": 6})"));
  REQUIRE(t.rows.size() == 6);
  for (const auto& row : t.rows) {
    CHECK(row.at("target") == "gpu.sm0.rate");
    CHECK(row.at("event").rfind("rate:", 0) == 0);
    CHECK(row.at("event").find(":all") == std::string::npos);  // allocated_only by default
    CHECK(!row.at("count").empty());
  }
  const auto rep = test::run_gpuvp("report " + d("c.db"));
  REQUIRE(rep.status == 0);
  CHECK_THAT(rep.out, Contains("mean faults per run"));
}
