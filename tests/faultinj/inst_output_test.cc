// Fault model instruction_output, end to end, on the hand-written kernel tests/data/ptx/inst_output.ptx
// (one warp of 32 threads on one flexgrip SM, so the n-th instruction of a group is read off the code).
//
// The warp executes, in order (NVBitFI group / functional unit worked out from the PTX by hand):
//   1-3  ld.param            G_LD      U_LDST      12 setp.lt.u32      G_PR      U_INT
//   4    mov %tid.x          G_OTHERS  U_INT       13 selp.u32         G_OTHERS  U_INT
//   5    mul.wide.u32        G_OTHERS  U_INT       14 cvt.rn.f32.u32   G_FP32    U_FP32
//   6    add.s64             G_OTHERS  U_INT       15 add.f32          G_FP32    U_FP32
//   7    ld.global.u32 %r2   G_LD      U_LDST      16 cvt.rzi.u32.f32  G_FP32    U_FP32
//   8    add.s32 %r3         G_OTHERS  U_INT       17 add.s32 %r7      G_OTHERS  U_INT
//   9    add.s32 %r4         G_OTHERS  U_INT       18 add.s64          G_OTHERS  U_INT
//   10   add.s64             G_OTHERS  U_INT       19 st.global, 20 ret: G_NODEST
//   11   st.global           G_NODEST
// so G_LD 4, G_OTHERS 9, G_PR 1, G_FP32 3, G_GPPR 17 (all but G_NODEST), G_GP 16 (G_GPPR but the
// predicate-writing setp), U_LDST 4, U_INT 10, U_FP32 3, and none of G_FP64, U_FP64, U_SFU.
// With in[t] = t: out[t] = 2t + 100, flag[t] = (t < 16) + 2t.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <regex>
#include <string>

#include "common/subprocess.h"
#include "faultinj/export_csv.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;
using gpuvp::fi::test::write_file;

namespace {

std::string campaign(const std::string& how, const std::string& preset = "flexgrip") {
  return fmt::format(R"({{
  "name": "instruction outputs",
  "platform": {{"preset": "{}", "set": {{"sm.count": 1}}}},
  "exec": {{"ptx": "{}/ptx/inst_output.ptx", "kernel": "iokernel", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32, "init": "iota"}}}},
                    {{"buffer": {{"type": "u32", "count": 32}}}},
                    {{"buffer": {{"type": "u32", "count": 32}}}}]}},
  {},
  "workers": 2
}}
)",
                     preset, GPUVP_TEST_DATA, how);
}

// Fault-space points `campaign check` reports for a warp-level campaign of `group`: 64 bits x the
// golden run's instructions of the group.
uint64_t space_of(const TempDir& d, const std::string& group) {
  write_file(d(group + ".json"),
             campaign(fmt::format(R"("instruction_output": {{"group": "{}", "lanes": "warp"}}, "size": {{"count": 1}})",
                                  group)));
  const auto r = test::run_gpuvp("campaign check " + d(group + ".json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("\\(([0-9]+) fault-space points\\)")));
  return std::stoull(m[1].str());
}

std::string io_fault(const std::string& group, uint64_t n, uint64_t idx, unsigned bit, const std::string& model) {
  return fmt::format(R"({{"target": "gpu.sm0.inst_output.{}", "event": "inst_output", "count": {}, "idx": {},
                         "bit": {}, "model": "{}"}})",
                     group, n, idx, bit, model);
}

// Runs the campaign `text` to a store and reads its export back.
fi::test::ExportTable run_table(const TempDir& d, const std::string& text) {
  return fi::test::run_campaign_table(d("c.json"), d("c.db"), text);
}

}  // namespace

TEST_CASE("instruction_output: a group selects exactly its dynamic instructions of the golden run") {
  TempDir d("io_groups");
  const std::map<std::string, uint64_t> hand = {{"G_LD", 4},   {"G_OTHERS", 9}, {"G_PR", 1},   {"G_FP32", 3},
                                                {"G_GPPR", 17}, {"G_GP", 16},    {"U_LDST", 4}, {"U_INT", 10},
                                                {"U_FP32", 3}};
  for (const auto& [group, count] : hand) {
    INFO(group);
    CHECK(space_of(d, group) == 64 * count);
  }
  // A group the kernel never executes is an error naming it, before any store exists.
  write_file(d("fp64.json"), campaign(R"("instruction_output": {"group": "G_FP64"}, "size": {"count": 1})"));
  const auto r = test::run_gpuvp("campaign check " + d("fp64.json"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("SM 0 executed no G_FP64 instruction in the golden run"));
}

TEST_CASE("instruction_output: a corrupted destination gives the output difference worked out by hand") {
  TempDir d("io_faults");
  // 0: G_OTHERS #5 is add.s32 %r4 (= 2t + 100); lane 5: 110 = 0b1101110, bit 3 flipped: 102.
  // 1: G_LD #4 is ld.global %r2 (= t), zeroed in every lane: out[t] = t + 100, lane 0 unchanged.
  // 2: G_PR #1 is setp %p1; lane 20 (false) flipped: flag[20] = 1 + 40 = 41 instead of 40.
  // 3: G_FP32 #2 is add.f32 %f2 (= 2t); lane 3: 6.0f = 0x40c00000, bit 55 mod 32 = 23 flipped is
  //    0x40400000 = 3.0f: flag[3] = 1 + 3 = 4 instead of 7.
  // 4: U_INT #10 is add.s64 %rd7 (the flag address); random value 0: a store to address 0 in every lane.
  const std::string faults =
      fmt::format("[{}, {}, {}, {}, {}]", io_fault("G_OTHERS", 5, 5, 3, "bit_flip"), io_fault("G_LD", 4, 32, 0, "zero_value"),
                  io_fault("G_PR", 1, 20, 0, "bit_flip"), io_fault("G_FP32", 2, 3, 55, "bit_flip"),
                  io_fault("U_INT", 10, 32, 0, "random_value"));
  const auto t = run_table(d, campaign(R"("faults": )" + faults));
  REQUIRE(t.rows.size() == 5);
  CHECK(t.rows[0].at("outcome") == "sdc");
  CHECK_THAT(t.rows[0].at("detail"), Contains("warp 0 lane 5"));
  CHECK_THAT(t.rows[0].at("detail"), Contains("0x6e -> 0x66"));
  CHECK_THAT(t.rows[0].at("detail"), Contains("1 of 64 output elements differ"));
  CHECK_THAT(t.rows[0].at("detail"), Contains("first args[1][5] (golden 110, faulty 102)"));
  CHECK(t.rows[1].at("outcome") == "sdc");
  CHECK_THAT(t.rows[1].at("detail"), Contains("31 of 64 output elements differ"));
  CHECK_THAT(t.rows[1].at("detail"), Contains("first args[1][1] (golden 102, faulty 101)"));
  CHECK(t.rows[2].at("outcome") == "sdc");
  CHECK_THAT(t.rows[2].at("detail"), Contains("first args[2][20] (golden 40, faulty 41)"));
  CHECK(t.rows[3].at("outcome") == "sdc");
  CHECK_THAT(t.rows[3].at("detail"), Contains("0x40c00000 -> 0x40400000"));
  CHECK_THAT(t.rows[3].at("detail"), Contains("first args[2][3] (golden 7, faulty 4)"));
  CHECK(t.rows[4].at("outcome") == "due");
  for (const auto& row : t.rows) CHECK(row.at("structure") == (row.at("target").find(".U_") != std::string::npos
                                                                   ? "functional units"
                                                                   : "instruction outputs"));
}

TEST_CASE("instruction_output: a drawn campaign strikes every fault (none is a tool error)") {
  TempDir d("io_drawn");
  const auto t = run_table(d, campaign(R"("instruction_output": {"group": "G_GP"}, "size": {"count": 40}, "seed": 3)"));
  REQUIRE(t.rows.size() == 40);
  for (const auto& row : t.rows) {
    INFO(row.at("detail"));
    CHECK(row.at("outcome") != "tool_error");
    CHECK(std::stoull(row.at("count")) >= 1);
    CHECK(std::stoull(row.at("count")) <= 16);
    CHECK(std::stoull(row.at("idx")) < 32);
  }
}

TEST_CASE("rate mode: the faults per run follow the rate, a run without fault is masked by construction") {
  TempDir d("rate");
  // The golden run's kernel cycles, to choose a rate giving a mean of 1.5 faults per run.
  write_file(d("probe.json"),
             campaign(R"("rate": {"per_million_cycles": 1000, "components": ["registers", "U_INT"]}, "size": {"count": 1})"));
  const auto probe = test::run_gpuvp("campaign check " + d("probe.json"));
  INFO(probe.err);
  REQUIRE(probe.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(probe.out, m, std::regex("\\(([0-9]+) kernel cycles\\)")));
  const double cycles = std::stod(m[1].str()), mean = 1.5, runs = 400;
  const auto t = run_table(d, campaign(fmt::format(R"("rate": {{"per_million_cycles": {:.17g}, "components": ["registers",
             "U_INT", "U_LDST"]}}, "size": {{"count": {}}}, "seed": 7)",
                                               mean * 1e6 / cycles, runs)));
  REQUIRE(t.rows.size() == size_t(runs));
  double total = 0, zero = 0;
  for (const auto& row : t.rows) {
    INFO(row.at("detail"));
    const double k = std::stod(row.at("count"));
    total += k;
    CHECK(row.at("outcome") != "tool_error");
    if (k > 0) continue;
    ++zero;
    CHECK(row.at("outcome") == "masked");
    CHECK_THAT(row.at("detail"), Contains("masked by construction"));
  }
  // Poisson: the mean within 3.29 standard errors (99.9 %), the share of runs without fault e^-1.5 likewise.
  CHECK(std::abs(total / runs - mean) <= 3.29 * std::sqrt(mean / runs));
  const double p0 = std::exp(-mean);
  CHECK(std::abs(zero - runs * p0) <= 3.29 * std::sqrt(runs * p0 * (1 - p0)));
}

TEST_CASE("instruction_output: a global load's value in flight is corrupted before it is written (tx2)") {
  // On tx2 the data of ld.global (G_LD #4) comes back after the instruction issued: the fault changes
  // the value the load will write. Zeroed in every lane: out[t] = t + 100, lane 0 unchanged.
  TempDir d("io_tx2");
  const auto t = run_table(d, campaign(R"("faults": [)" + io_fault("G_LD", 4, 32, 0, "zero_value") + "]", "tx2"));
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].at("outcome") == "sdc");
  CHECK_THAT(t.rows[0].at("detail"), Contains("31 of 64 output elements differ"));
  CHECK_THAT(t.rows[0].at("detail"), Contains("first args[1][1] (golden 102, faulty 101)"));
}

TEST_CASE("instruction_output and rate: campaign file errors name the key") {
  TempDir d("io_errors");
  const std::pair<std::string, std::string> cases[] = {
      {R"("instruction_output": {"group": "G_XX"}, "size": {"count": 1})", "instruction_output.group"},
      {R"("instruction_output": {"group": "G_NODEST"}, "size": {"count": 1})", "no destination to corrupt"},
      {R"("instruction_output": {}, "targets": ["gpu.sm0.regs"], "size": {"count": 1})", "remove 'targets'"},
      {R"("instruction_output": {"lanes": "all"}, "size": {"count": 1})", "instruction_output.lanes"},
      {R"("instruction_output": {}, "fault": {"model": "stuck_at_0"}, "size": {"count": 1})", "fault.model"},
      {R"("targets": ["gpu.sm0.regs"], "fault": {"model": "random_value"}, "size": {"count": 1})",
       "only with instruction_output"},
      {R"("instruction_output": {"sm": 3}, "size": {"count": 1})", "instruction_output.sm = 3: the platform has 1 SM"},
      {R"("rate": {"per_million_cycles": 0}, "size": {"count": 1})", "rate.per_million_cycles"},
      {R"("rate": {"per_million_cycles": 5, "components": ["alu"]}, "size": {"count": 1})", "rate.components[0]"},
      {R"("rate": {"per_million_cycles": 5}, "size": {"margin": 0.1, "confidence": 0.95})", "size.count"},
  };
  for (const auto& [how, says] : cases) {
    INFO(how);
    write_file(d("c.json"), campaign(how));
    const auto r = test::run_gpuvp("campaign check " + d("c.json"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(says));
  }
}
