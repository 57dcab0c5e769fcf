// ACE over a campaign's fault space (faultinj/lifetimes.h FaultSpace, docs/campaigns.md "Lifetimes, ACE
// and pruning"): the register file's ACE AVF is taken over the words the campaign draws from (the
// words the kernels allocated) and its window, the population of the injected AVF beside it, so that
// it bounds it. Hand-worked for a small kernel; checked as a bound on a drawn tx2 campaign.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>
#include <string>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "recorded_golden.h"

using namespace gpuvp;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::test::TempDir;

namespace {
const std::string kPtx = std::string(GPUVP_TEST_DATA) + "/ptx/warp_control.ptx";

// The report's row of `target` in the "Per target" ACE table: bits, ACE AVF, inj. AVF, bits whole, ACE whole.
struct AceRowText {
  uint64_t bits = 0, bits_whole = 0;
  double ace = -1, inj = -1, ace_whole = -1;
};

AceRowText ace_row(const std::string& report, const std::string& target) {
  const size_t at = report.find("Per target\n", report.find("ACE analysis"));
  REQUIRE(at != std::string::npos);
  std::smatch m;
  const std::string tail = report.substr(at);
  const std::regex row("\n  " + std::regex_replace(target, std::regex(R"([.\[\]])"), R"(\$&)") +
                       R"( +([0-9]+) +([0-9.]+) +([0-9.]+) +([0-9]+) +([0-9.]+)\n)");
  REQUIRE(std::regex_search(tail, m, row));
  return {std::stoull(m[1].str()), std::stoull(m[4].str()), std::stod(m[2].str()), std::stod(m[3].str()),
          std::stod(m[5].str())};
}

// Runs the campaign `json` (its text) into d(name.db); returns the store's path.
std::string run_campaign(const TempDir& d, const std::string& name, const std::string& json) {
  fi::test::write_file(d(name + ".json"), json);
  const auto r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} --db {} -q", d(name + ".json"), d(name + ".db")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  return d(name + ".db");
}

// `gpuvp report` of the campaign `json` (its text), run into d(name.db): the row of gpu.sm0.regs.
AceRowText regs_row(const TempDir& d, const std::string& name, const std::string& json) {
  const auto rep = gpuvp::test::run_gpuvp("report " + run_campaign(d, name, json));
  INFO(rep.out);
  REQUIRE(rep.status == 0);
  return ace_row(rep.out, "gpu.sm0.regs");
}

// div_store on tx2, one warp: it allocates %r<4> and %rd<4>, 8 slots, 2 x 8 x 32 = 512 words of the 65,536.
std::string div_store_campaign(int faults) {
  return fmt::format(R"({{"name": "ace space", "platform": {{"preset": "tx2"}},
  "exec": {{"ptx": "{}", "kernel": "div_store", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32}}}}]}},
  "targets": ["gpu.sm0.regs"], "size": {{"count": {}}}, "workers": 2}})",
                     kPtx, faults);
}
}  // namespace

TEST_CASE("ace space: ACE over a kernel's allocated register words, hand-worked over its issue instants (tx2)") {
  // warp_control.ptx `div` on tx2 (one warp, no memory access: every access at its issue instant):
  // %r<4> is slots 0-3, words [0, 256) (2 words per 64-bit slot, 32 lanes). %r1 = tid (0) is read by
  // setp (1) for all lanes, by the else add (3) for lanes 16-31 and the then add (5) for lanes 0-15;
  // %r2 is written by 3 (lanes 16-31) and 5 (lanes 0-15) and read by 6; %r3 (6) is never read.
  // Live bit-time from t0: 16 lanes x 64 bits x ((t3-t0) + (t5-t0) + (t6-t3) + (t6-t5)) = 2048 (t6-t0).
  const fi::test::Recorded r = fi::test::record_kernel("tx2", kPtx, "div");
  const std::vector<uint64_t>& t = r.t;
  REQUIRE(t.size() == 8);
  const Lifetimes lt(r.g);
  const uint64_t end = t[7] + 1'000'000;
  const fi::AceFigure alloc = lt.ace("gpu.sm0.regs", t[0], end, {{0, 256}});
  CHECK(alloc.bits == 256 * 32);
  CHECK(alloc.live_bit_ps == 2048.0 * double(t[6] - t[0]));
  CHECK(alloc.total_bit_ps == 256.0 * 32 * double(end - t[0]));
  // Over the whole file (65,536 words on tx2) the same live time is 256 times more diluted.
  const fi::AceFigure whole = lt.ace("gpu.sm0.regs", t[0], end);
  CHECK(whole.bits == 65536 * 32);
  CHECK(whole.live_bit_ps == alloc.live_bit_ps);
  CHECK(whole.ratio() * 256 == Approx(alloc.ratio()));
}

TEST_CASE("ace space: the report's register-file ACE is over the allocated words and bounds the injected failure AVF (tx2)") {
  TempDir d("ace-space");
  const AceRowText div = regs_row(d, "div", div_store_campaign(20));
  CHECK(div.bits == 512 * 32);
  CHECK(div.bits_whole == 65536 * 32);
  CHECK(div.ace == Approx(div.ace_whole * 128).margin(0.01 * 128));  // same live time, 128 times fewer bits
  // A drawn campaign on vectorAdd: the ACE AVF over the words it draws from is at least the injected
  // failure AVF, up to its sampling error (the lower end of its 95 % Wilson interval).
  const AceRowText row = regs_row(d, "va", R"({"name": "ace bound", "platform": {"preset": "tx2"},
  "workload": {"name": "vectorAdd", "launch": "fi32"}, "targets": ["gpu.sm0.regs"],
  "size": {"count": 400}, "seed": 11, "workers": 2})");
  const double n = 400, p = row.inj / 100, z = 1.96;
  const double lo = (p + z * z / (2 * n) - z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n);
  CHECK(row.inj > 0);
  CHECK(row.ace >= 100 * lo);
  CHECK(row.ace > row.ace_whole);
}

TEST_CASE("ace space: report --json gives the ACE table and the injected AVF as numbers, as the text report prints them (tx2)") {
  TempDir d("ace-json");
  const std::string db = run_campaign(d, "div", div_store_campaign(30));
  const auto rep = gpuvp::test::run_gpuvp("report " + db + " --json -");
  INFO(rep.err);
  REQUIRE(rep.status == 0);
  const nlohmann::json all = nlohmann::json::parse(rep.out);
  REQUIRE(all.size() == 1);
  const nlohmann::json& s = all[0];
  CHECK(s["db"] == db);
  CHECK(s["faults"] == 30);
  CHECK(s["injected"] == 30);
  const nlohmann::json& r = s["ace"]["targets"]["gpu.sm0.regs"];
  CHECK(r["bits"] == 512 * 32);  // the allocated words (above)
  CHECK(r["whole"]["bits"] == 65536 * 32);
  // The same live time over both populations; the ACE AVF is live over total bit-time.
  CHECK(r["live_bit_ps"].get<double>() == r["whole"]["live_bit_ps"].get<double>());
  CHECK(r["live_bit_ps"].get<double>() > 0);
  CHECK(r["ace_avf"].get<double>() == Approx(100 * r["live_bit_ps"].get<double>() / r["total_bit_ps"].get<double>()));
  CHECK(r["injected"] == 30);
  // Runs not masked over the 30 injected, from the runs themselves.
  const auto runs = nlohmann::json::parse(gpuvp::test::run_gpuvp("campaign export " + db + " --json -").out);
  const nlohmann::json& rows = runs.is_object() ? runs["runs"] : runs;
  int failed = 0;
  for (const auto& row : rows) failed += row["outcome"] != "masked" && row["outcome"] != "masked_timing";
  CHECK(r["injected_failure_avf"].get<double>() == Approx(100.0 * failed / 30));
  CHECK(s["injected_failure_avf"].get<double>() == Approx(100.0 * failed / 30));
  // The text report prints the same figures (two decimals).
  const AceRowText text = ace_row(gpuvp::test::run_gpuvp("report " + db).out, "gpu.sm0.regs");
  CHECK(text.ace == Approx(r["ace_avf"].get<double>()).margin(0.005));
  CHECK(text.ace_whole == Approx(r["whole"]["ace_avf"].get<double>()).margin(0.005));
  CHECK(text.inj == Approx(r["injected_failure_avf"].get<double>()).margin(0.005));
  // One output per run: --json and --html together are refused.
  const auto both = gpuvp::test::run_gpuvp("report " + db + " --json - --html " + d("r.html"));
  CHECK(both.status != 0);
  CHECK(both.err.find("--html and --json are exclusive") != std::string::npos);
}
