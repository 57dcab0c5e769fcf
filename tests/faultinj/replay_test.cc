// `gpuvp campaign replay` and listed faults, end to end: a campaign of vectorAdd (64 elements, 2 blocks
// on one flexgrip SM) whose faults are given, not drawn; each replayed fault reproduces its recorded
// outcome; the output check decides tolerable or SDC on the output buffer c only.
//
// Where things are (from the design): the runtime allocates first fit from gmem base + 256, 256-aligned,
// with at least one byte between buffers (sw/runtime/host_runtime.cc): a (256 bytes) at +0x100, b at
// +0x300, c at +0x500; gpu.gmem words are 4 bytes from the gmem base: a[5] is word 69, c[5] word 325.
// c[5] = a[5] + b[5] = 5 + 1 = 6.0f = 0x40c00000: bit 0 flipped gives 6 + 2^-21 (error 4.77e-7), bit
// 30 flipped gives 0x00c00000 = 1.5 * 2^-126 (error 6).
#include <catch2/catch.hpp>

#include <SQLiteCpp/Database.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <regex>
#include <set>
#include <string>

#include "common/subprocess.h"
#include "faultinj/export_csv.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;
using gpuvp::fi::test::write_file;

namespace {

constexpr uint64_t kA5 = 69, kC5 = 325;

std::string campaign(const std::string& faults, const std::string& check) {
  return fmt::format(R"({{
  "name": "listed",
  "platform": {{"preset": "flexgrip", "set": {{"sm.count": 1}}}},
  "exec": {{"ptx": "{}/ptx/vectorAdd.ptx", "kernel": "vectorAdd", "grid": [2], "block": [32],
           "args": [{{"buffer": {{"type": "f32", "count": 64, "init": "iota"}}}},
                    {{"buffer": {{"type": "f32", "count": 64, "init": "const", "value": 1}}}},
                    {{"buffer": {{"type": "f32", "count": 64}}}}, {{"i32": 64}}]}},
  "faults": {},
  "check": {},
  "workers": 2
}}
)",
                     GPUVP_TEST_DATA, faults, check);
}

// The golden run's execution window (first kernel start, last kernel end, ps), as `campaign check` prints it.
std::pair<uint64_t, uint64_t> golden_window(const std::string& file) {
  const auto r = test::run_gpuvp("campaign check " + file);
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("golden run ([0-9]+) to ([0-9]+) ps")));
  return {std::stoull(m[1].str()), std::stoull(m[2].str())};
}

std::string gmem_fault(uint64_t word, unsigned bit, uint64_t time_ps) {
  return fmt::format(R"({{"target": "gpu.gmem", "idx": {}, "bit": {}, "time_ps": {}}})", word, bit, time_ps);
}

// c[5] bit 0 and bit 30 after the kernel (read back afterwards), a[5] bit 30 after the kernel (an input:
// nothing reads it again) and a[5] bit 30 as the kernel starts (a is in device memory, not yet read).
struct Instants {
  uint64_t start = 0, after = 0;
};
std::string four_faults(Instants t) {
  return fmt::format("[{}, {}, {}, {}]", gmem_fault(kC5, 0, t.after), gmem_fault(kC5, 30, t.after),
                     gmem_fault(kA5, 30, t.after), gmem_fault(kA5, 30, t.start));
}

fi::test::ExportTable run_listed(const TempDir& d, const std::string& name, const std::string& check, Instants after) {
  write_file(d(name + ".json"), campaign(four_faults(after), check));
  const auto r = test::run_gpuvp(fmt::format("campaign run {} -q --db {}", d(name + ".json"), d(name + ".db")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  return fi::test::export_table(d(name + ".db"));
}

Instants instants(const TempDir& d) {
  write_file(d("probe.json"), campaign(four_faults({1, 1}), "{}"));
  const auto [start, end] = golden_window(d("probe.json"));
  return {start, end + 10000};  // one flexgrip cycle (100 MHz) after kernel_done
}

}  // namespace

TEST_CASE("listed faults: exactly the listed faults run, tolerance decides tolerable or SDC, inputs never count") {
  TempDir d("listed");
  const Instants after = instants(d);
  const auto t = run_listed(d, "tol", R"({"abs": 0.001})", after);
  REQUIRE(t.rows.size() == 4);
  const uint64_t words[] = {kC5, kC5, kA5, kA5};
  const char* bits[] = {"0", "30", "30", "30"};
  const char* outcomes[] = {"tolerable", "sdc", "masked", "sdc"};
  for (size_t i = 0; i < 4; ++i) {
    INFO(i);
    CHECK(t.rows[i].at("target") == "gpu.gmem");
    CHECK(t.rows[i].at("idx") == std::to_string(words[i]));
    CHECK(t.rows[i].at("bit") == bits[i]);
    CHECK(t.rows[i].at("time_ps") == std::to_string(i == 3 ? after.start : after.after));
    CHECK(t.rows[i].at("outcome") == outcomes[i]);
  }
  CHECK_THAT(t.rows[0].at("detail"), Contains("first args[2][5] (golden 6, faulty 6.000000476837158)"));
  CHECK_THAT(t.rows[1].at("detail"), Contains("largest error 6 absolute, 1 relative"));
  // a[5] = 5 with bit 30 flipped is 0x40a00000 ^ 0x40000000 = 0x00a00000 (1.25 * 2^-126): c[5] = 1.
  CHECK_THAT(t.rows[3].at("detail"), Contains("(golden 6, faulty 1)"));
  // The report says what was run and how outputs were judged.
  const auto rep = test::run_gpuvp("report " + d("tol.db"));
  CHECK_THAT(rep.out, Contains("faults: 4 listed in the file"));
  CHECK_THAT(rep.out, Contains("output check: the buffers the kernel wrote, tolerable when |faulty - golden| <= 0.001 + 0 x |golden|"));
  // Exact comparison: the ulp is an SDC.
  CHECK(run_listed(d, "exact", "{}", after).rows[0].at("outcome") == "sdc");
}

TEST_CASE("listed faults: an exported CSV is a fault list that runs the same faults to the same outcomes") {
  TempDir d("listed_csv");
  const Instants after = instants(d);
  const auto first = run_listed(d, "first", R"({"abs": 0.001})", after);
  const auto csv = test::run_gpuvp(fmt::format("campaign export {} --csv {}", d("first.db"), d("runs.csv")));
  REQUIRE(csv.status == 0);
  std::string text = campaign("\"runs.csv\"", R"({"abs": 0.001})");
  write_file(d("again.json"), text);
  const auto r = test::run_gpuvp(fmt::format("campaign run {} -q --db {}", d("again.json"), d("again.db")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto again = fi::test::export_table(d("again.db"));
  REQUIRE(again.rows.size() == first.rows.size());
  for (size_t i = 0; i < first.rows.size(); ++i)
    for (const char* c : {"target", "idx", "bit", "model", "time_ps", "outcome", "detail"})
      CHECK(again.rows[i].at(c) == first.rows[i].at(c));
}

TEST_CASE("listed faults: a fault the platform cannot take is refused naming the file and the fault") {
  TempDir d("listed_bad");
  write_file(d("bad.json"), campaign(R"([{"target": "gpu.nothing", "time_ps": 0}])", "{}"));
  auto r = test::run_gpuvp("campaign run " + d("bad.json") + " --db " + d("bad.db"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("bad.json: faults: fault 0: target 'gpu.nothing' is not a registered target"));
  write_file(d("bit.json"), campaign(R"([{"target": "gpu.sched.state", "bit": 5, "time_ps": 0}])", "{}"));
  r = test::run_gpuvp("campaign run " + d("bit.json") + " --db " + d("bit.db"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("bit 5 (+0 bits) is beyond gpu.sched.state (3 bits wide)"));
  std::string both = campaign(R"([{"target": "gpu.sched.state", "time_ps": 0}])", "{}");
  both.insert(both.find("\"workers\""), "\"size\": {\"count\": 3},\n  ");
  write_file(d("both.json"), both);
  r = test::run_gpuvp("campaign run " + d("both.json") + " --db " + d("both.db"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("faults: a campaign lists its faults or draws them; remove 'size'"));
}

TEST_CASE("check command: its exit status decides, one that refuses the golden output is refused first") {
  TempDir d("check_cmd");
  const Instants after = instants(d);
  write_file(d("ok.sh"), "#!/bin/sh\nexit 0\n");
  ::chmod(d("ok.sh").c_str(), 0755);
  const auto t = run_listed(d, "cmd", fmt::format(R"({{"command": ["{}"]}})", d("ok.sh")), after);
  CHECK(t.rows[0].at("outcome") == "tolerable");
  CHECK(t.rows[1].at("outcome") == "tolerable");  // the command accepts everything: no SDC
  CHECK(t.rows[2].at("outcome") == "masked");     // identical outputs: the command is not asked
  write_file(d("cmp.sh"), "#!/bin/sh\ncmp -s \"$1\" \"$2\" || exit 1\n");  // exact, by the command
  ::chmod(d("cmp.sh").c_str(), 0755);
  CHECK(run_listed(d, "cmp", fmt::format(R"({{"command": ["{}"]}})", d("cmp.sh")), after).rows[0].at("outcome") == "sdc");
  write_file(d("no.sh"), "#!/bin/sh\necho never happy; exit 2\n");
  ::chmod(d("no.sh").c_str(), 0755);
  write_file(d("no.json"), campaign(four_faults(after), fmt::format(R"({{"command": ["{}"]}})", d("no.sh"))));
  const auto r = test::run_gpuvp("campaign run " + d("no.json") + " --db " + d("no.db"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("check.command: given the golden output twice it did not exit 0: check command failed: exit status 2: never happy"));
}

TEST_CASE("campaign replay: 50 recorded outcomes of a mixed campaign reproduce exactly") {
  TempDir d("replay");
  const Instants after = instants(d);
  // Faults just after the n-th warp instruction of SM 0, in the PC, active mask, registers and state
  // of the SM and the scheduler, plus the four gmem faults: masked, SDC, DUE, timeout and tolerable runs.
  std::string list = "[";
  const char* targets[] = {"gpu.sm0.warp[0].group_pc", "gpu.sm0.regs", "gpu.sm0.warp[0].group_mask", "gpu.sm0.state",
                           "gpu.sched.state"};
  const unsigned widths[] = {40, 32, 32, 3, 3};
  for (unsigned i = 0; i < 46; ++i) {
    const unsigned k = i % 5;
    const uint64_t idx = k == 1 ? 2 * ((i % 21) * 32 + i % 32) : 0;
    list += fmt::format(R"({{"target": "{}", "idx": {}, "bit": {}, "event": "warp_instruction:sm0", "count": {}}}, )",
                        targets[k], idx, (i * 7) % widths[k], 1 + i % 30);
  }
  list += four_faults(after).substr(1);
  write_file(d("mixed.json"), campaign(list, R"({"abs": 0.001})"));
  auto r = test::run_gpuvp(fmt::format("campaign run {} -q --db {}", d("mixed.json"), d("mixed.db")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto t = fi::test::export_table(d("mixed.db"));
  REQUIRE(t.rows.size() == 50);
  std::set<std::string> classes;
  for (auto& row : t.rows) classes.insert(row.at("outcome"));
  CHECK(classes.size() >= 5);  // a mixed campaign
  std::string ids;
  for (int i = 0; i < 50; ++i) ids += fmt::format(" {}", i);
  r = test::run_gpuvp(fmt::format("campaign replay {}{}", d("mixed.db"), ids));
  CHECK(r.status == 0);
  size_t reproduced = 0;
  for (size_t p = 0; (p = r.out.find(": reproduced\n", p)) != std::string::npos; ++p) ++reproduced;
  CHECK(reproduced == 50);
  for (int i = 0; i < 50; ++i) {
    INFO(i);
    CHECK_THAT(r.out, Contains(fmt::format("recorded {}", t.rows[size_t(i)].at("outcome"))));
  }

  // A recorded outcome the replay does not give: exit 1, named.
  {
    SQLite::Database db(d("mixed.db"), SQLite::OPEN_READWRITE);
    db.exec("UPDATE runs SET outcome = 'timeout' WHERE fault_id = 46");  // c[5] bit 0: tolerable
  }
  r = test::run_gpuvp(fmt::format("campaign replay {} 46", d("mixed.db")));
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("fault 46: gpu.gmem[325] bit 0 (bit_flip, transient)"));
  CHECK_THAT(r.out, Contains("recorded timeout, replayed tolerable: NOT reproduced"));

  // Waveforms and timeline of one replayed run.
  r = test::run_gpuvp(fmt::format("campaign replay {} 47 --vcd {} --timeline {}", d("mixed.db"), d("w"), d("t.json")));
  CHECK(r.status == 0);
  CHECK(test::slurp(d("w.vcd")).find("$enddefinitions") != std::string::npos);
  CHECK(test::slurp(d("t.json")).find("traceEvents") != std::string::npos);
  r = test::run_gpuvp(fmt::format("campaign replay {} 99", d("mixed.db")));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("no fault 99 (ids 0 to 49)"));
}
