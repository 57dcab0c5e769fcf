// Text with control characters and invalid UTF-8 through every output path: names from user files
// (campaign, experiment, rta kernel, file names) and from stores (a crafted run detail or campaign name
// that is not UTF-8) never reach a terminal raw (an ESC would set the reader's title and colours), and
// every JSON output stays valid JSON.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "common/subprocess.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using gpuvp::fi::test::TempDir;
namespace fs = std::filesystem;

namespace {

// An escape sequence that sets a terminal's title, a C1 control and the right-to-left override.
const std::string kHostile = "\x1b]0;pwned\x07 \xc2\x9b" "31m \xe2\x80\xae";

// No byte or character a terminal acts on: ESC, BEL, the C1 controls, the bidirectional overrides.
void check_terminal_safe(const std::string& text, const std::string& what) {
  INFO(what << ": " << text.substr(0, 400));
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  CHECK(text.find("\xc2\x9b") == std::string::npos);
  CHECK(text.find("\xe2\x80\xae") == std::string::npos);
}

void check_output(const test::RunResult& r, const std::string& what) {
  check_terminal_safe(r.out, what + " (stdout)");
  check_terminal_safe(r.err, what + " (stderr)");
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_CASE("hostile text: a campaign's name reaches no terminal raw, through run, report, export and merge") {
  TempDir t("hostile_campaign");
  const nlohmann::json c = {{"name", "evil " + kHostile},
                            {"platform", {{"preset", "flexgrip"}, {"set", {{"sm.count", 1}}}}},
                            {"workload", {{"name", "vectorAdd"}, {"launch", "fi32"}}},
                            {"targets", {"gpu.sched.*"}},
                            {"size", {{"count", 6}}},
                            {"workers", 2}};
  const std::string file = t("c.json");
  std::ofstream(file) << c.dump();
  auto r = test::run_gpuvp(fmt::format("campaign run {} --db {} --shard 1/1", file, t("s.db")));
  REQUIRE(r.status == 0);
  check_output(r, "campaign run");
  r = test::run_gpuvp("report " + t("s.db"));
  REQUIRE(r.status == 0);
  check_output(r, "report");
  CHECK_THAT(r.out, Catch::Matchers::Contains("\\x1b]0;pwned\\x07"));  // shown, escaped
  r = test::run_gpuvp(fmt::format("campaign export {} --json -", t("s.db")));
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out).size() == 6);
  r = test::run_gpuvp(fmt::format("campaign merge {} {}", t("m.db"), t("s.db")));
  REQUIRE(r.status == 0);
  check_output(r, "campaign merge");
}

TEST_CASE("hostile text: a store holding text that is not UTF-8 reports and exports") {
  TempDir t("hostile_store");
  const nlohmann::json c = {{"name", "plain"},
                            {"platform", {{"preset", "flexgrip"}, {"set", {{"sm.count", 1}}}}},
                            {"workload", {{"name", "vectorAdd"}, {"launch", "fi32"}}},
                            {"targets", {"gpu.sched.*"}},
                            {"size", {{"count", 4}}},
                            {"workers", 2}};
  std::ofstream(t("c.json")) << c.dump();
  REQUIRE(test::run_gpuvp(fmt::format("campaign run {} --db {} -q", t("c.json"), t("s.db"))).status == 0);
  {
    SQLite::Database db(t("s.db"), SQLite::OPEN_READWRITE);
    db.exec("UPDATE runs SET detail = CAST(X'63616fe9201b5b33316d' AS TEXT)");   // "cao" and a Latin-1 byte, ESC[31m
    db.exec("UPDATE campaign SET name = CAST(X'6e61fe6d651b5d303b07' AS TEXT)");  // an invalid byte, ESC]0;BEL
  }
  auto r = test::run_gpuvp(fmt::format("campaign export {} --json -", t("s.db")));
  REQUIRE(r.status == 0);
  const nlohmann::json rows = nlohmann::json::parse(r.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]["detail"] == "cao\\xe9 \x1b[31m");  // valid UTF-8; JSON escapes the ESC itself
  r = test::run_gpuvp(fmt::format("campaign export {} --csv -", t("s.db")));
  REQUIRE(r.status == 0);
  r = test::run_gpuvp("report " + t("s.db"));
  REQUIRE(r.status == 0);
  check_output(r, "report");
  r = test::run_gpuvp(fmt::format("report {} --html {}", t("s.db"), t("r.html")));
  REQUIRE(r.status == 0);
  const std::string page = test::slurp(t("r.html"));
  CHECK(page.find('\x1b') == std::string::npos);
}

TEST_CASE("hostile text: names in experiment, kernel-set and campaign files and file names are escaped") {
  TempDir t("hostile_files");
  // A kernel-set file with a hostile kernel name.
  const nlohmann::json set = {{"kernels", {{{"name", "k" + kHostile}, {"blocks", 2}, {"threads", 64}, {"time_ns", 100}}}}};
  std::ofstream(t("set.json")) << set.dump();
  auto r = test::run_gpuvp("rta " + t("set.json"));
  REQUIRE(r.status == 0);
  check_output(r, "rta");
  // An experiment with a hostile name and label, checked and run.
  nlohmann::json e = nlohmann::json::parse(test::slurp(std::string(GPUVP_SOURCE_DIR) + "/experiments/tx2_priorities.json"));
  e["name"] = "x" + kHostile;
  e["benchmarks"][0]["label"] = "l" + kHostile;
  std::ofstream(t("e.json")) << e.dump();
  r = test::run_gpuvp("experiment check " + t("e.json"));
  REQUIRE(r.status == 0);
  check_output(r, "experiment check");
  r = test::run_gpuvp(fmt::format("experiment {} --out {}", t("e.json"), t("out")));
  REQUIRE(r.status == 0);
  check_output(r, "experiment");
  // A file whose name holds an escape sequence: the error message names it, escaped.
  const std::string odd = t("odd\x1b]0;t\x07.json");
  std::ofstream(odd) << "{";
  for (const std::string& cmd : {"rta " + quoted(odd), "campaign check " + quoted(odd), "experiment check " + quoted(odd),
                                 "exec --launch-file " + quoted(odd), "config --config " + quoted(odd)}) {
    r = test::run_gpuvp(cmd);
    CHECK(r.status == 2);
    check_output(r, cmd);
  }
}
