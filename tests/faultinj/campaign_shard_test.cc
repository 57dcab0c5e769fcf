// `gpuvp campaign run --shard`, `gpuvp campaign merge` and `gpuvp report --html` end to end: shards
// merged equal a single-process run run by run; merges of foreign, overlapping, missing and
// unfinished shards are refused naming them; the HTML page, opened in a real browser (chromium),
// shows the AVF figures of the text report.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/subprocess.h"
#include "faultinj/store.h"
#include "export_csv.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;
namespace fs = std::filesystem;

namespace {

using fi::test::Row;
using fi::test::write_file;

// `gpuvp campaign export DB --csv -`: every row, by column name, in id order.
std::vector<Row> export_rows(const std::string& db) { return fi::test::export_table(db).rows; }

Row without(Row r, std::initializer_list<const char*> columns) {
  for (const char* c : columns) r.erase(c);
  return r;
}

std::string campaign_text(const std::string& name, int sms, const std::string& workload, uint64_t count,
                          uint64_t seed) {
  return fmt::format(R"({{
  "name": "{}",
  "platform": {{"preset": "flexgrip", "set": {{"sm.count": {}}}}},
  "workload": {{{}}},
  "targets": ["gpu.sched.*"],
  "fault": {{"model": "bit_flip", "duration": "transient"}},
  "size": {{"count": {}}},
  "seed": {},
  "workers": 2
}}
)",
                     name, sms, workload, count, seed);
}

void run_ok(const std::string& args) {
  test::RunResult r = test::run_gpuvp(args);
  INFO("gpuvp " << args << "\n" << r.err);
  REQUIRE(r.status == 0);
}

// The lines of `gpuvp report DB` from "Outcomes" up to the blank line after the class table.
std::string outcome_section(const std::string& report) {
  const size_t a = report.find("Outcomes (");
  REQUIRE(a != std::string::npos);
  return report.substr(a, report.find("\n\n", a) - a);
}

pid_t spawn_gpuvp(const std::vector<std::string>& args) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    FILE* null = std::fopen("/dev/null", "w");
    if (null) {
      ::dup2(fileno(null), STDOUT_FILENO);
      ::dup2(fileno(null), STDERR_FILENO);
    }
    std::vector<char*> argv;
    std::string bin = GPUVP_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  return pid;
}

}  // namespace

TEST_CASE("campaign shard: 4 shards merged equal a single-process run, run by run, a killed shard resumes") {
  TempDir d("shard_merge");
  const std::string file = d("vadd.json");
  write_file(file, campaign_text("shard vs single", 2, R"("name": "vectorAdd", "launch": "fi32")", 200, 11));
  run_ok(fmt::format("campaign run {} --db {} -q", file, d("single.db")));

  // Shard 2 is killed once it has committed some of its runs, then resumed.
  {
    const pid_t pid = spawn_gpuvp({"campaign", "run", file, "--shard", "2/4", "--db", d("s2.db"), "-q"});
    bool killed = false;
    int status = 0;
    for (int k = 0; k < 60000; ++k) {
      if (::waitpid(pid, &status, WNOHANG) == pid) break;
      uint64_t runs = 0, total = 0;
      try {
        if (fs::exists(d("s2.db"))) {
          fi::Store st = fi::Store::open(d("s2.db"));
          runs = st.run_count();
          total = st.fault_count();
        }
      } catch (const fi::StoreError&) {  // being created
      }
      if (runs > 0 && runs < total) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ::kill(-pid, SIGKILL);
        killed = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!killed) WARN("shard 2 finished before it could be killed: its resume is not exercised");
    if (killed) {
      fi::Store st = fi::Store::open(d("s2.db"));
      CHECK(st.pending_fault_ids().size() > 0);
    }
    run_ok(fmt::format("campaign resume {} -q", d("s2.db")));
  }
  run_ok(fmt::format("campaign run {} --shard 1/4 --db {} -q", file, d("s1.db")));
  run_ok(fmt::format("campaign run {} --shard 3/4 --db {} --workers 1 -q", file, d("s3.db")));
  // The default store name: the file's stem + .shardI-of-N.db in the working directory.
  {
    test::RunResult r = test::run_cmd(fmt::format("cd {} && {} campaign run vadd.json --shard 4/4 -q",
                                                  d.dir.string(), GPUVP_BINARY));
    INFO(r.err);
    REQUIRE(r.status == 0);
    REQUIRE(fs::exists(d("vadd.shard4-of-4.db")));
  }

  // Each shard holds the faults with id % 4 = I - 1, committed with shard = I.
  for (int i = 1; i <= 4; ++i) {
    const std::string db = i == 4 ? d("vadd.shard4-of-4.db") : d(fmt::format("s{}.db", i));
    fi::Store st = fi::Store::open(db);
    auto sh = st.shard();
    REQUIRE(sh);
    CHECK(sh->index == unsigned(i));
    CHECK(sh->count == 4u);
    CHECK(sh->full_fault_count == 200u);
    CHECK(st.fault_count() == 50u);
    CHECK(st.pending_fault_ids().empty());
    for (const Row& r : export_rows(db)) {
      CHECK(std::stoull(r.at("id")) % 4 == uint64_t(i - 1));
      CHECK(r.at("shard") == std::to_string(i));
    }
  }
  {
    test::RunResult r = test::run_gpuvp(fmt::format("campaign merge {} {} {} {} {}", d("merged.db"), d("s3.db"),
                                                    d("s1.db"), d("vadd.shard4-of-4.db"), d("s2.db")));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  const std::vector<Row> single = export_rows(d("single.db")), merged = export_rows(d("merged.db"));
  REQUIRE(single.size() == 200);
  REQUIRE(merged.size() == 200);
  std::set<std::string> classes;
  for (size_t i = 0; i < single.size(); ++i) {
    INFO("row " << i);
    CHECK(merged[i].at("id") == std::to_string(i));
    CHECK(merged[i].at("shard") == std::to_string(i % 4 + 1));
    // Every column but the host time and the shard. Note: whether a masked run stops early may depend
    // on the leader's earlier stops, which differ between a shard and one process (docs/campaigns.md,
    // "Merge"); this campaign has none that differ, and the outcome columns never may. A fault that
    // shares the run of another fault of its live interval (pruning) says so in its detail, and may
    // share in one store and run in the other (shards prune their own faults): its outcome is the same.
    CHECK(without(merged[i], {"host_ms", "shard", "early_stop", "detail"}) ==
          without(single[i], {"host_ms", "shard", "early_stop", "detail"}));
    auto shares = [](const Row& r) { return r.at("detail").rfind("pruned: same live interval", 0) == 0; };
    if (!shares(merged[i]) && !shares(single[i]))
      CHECK(without(merged[i], {"host_ms", "shard"}) == without(single[i], {"host_ms", "shard"}));
    classes.insert(single[i].at("outcome"));
  }
  CHECK(classes.size() >= 3);  // not a trivial campaign

  // The merged store reports the same figures as the single run.
  test::RunResult a = test::run_gpuvp("report " + d("single.db")), b = test::run_gpuvp("report " + d("merged.db"));
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(outcome_section(a.out) == outcome_section(b.out));
  CHECK_THAT(b.out, Contains("Merged from 4 shards (200 faults in the campaign"));
  fi::Store ms = fi::Store::open(d("merged.db")), ss = fi::Store::open(d("single.db"));
  CHECK(ms.shard()->fault_list_hash == ss.shard()->fault_list_hash);
  CHECK(ms.campaign().file_hash == ss.campaign().file_hash);
  CHECK(ms.golden()->output_hash == ss.golden()->output_hash);
}

namespace {

// The shards the refusal sections merge, run once per process: Catch2 enters the test case again for
// each of its sections, and running the six campaigns each time was most of the test's time.
struct RefusalShards {
  TempDir d{"shard_refuse"};
  RefusalShards() {
    const std::string a = d("a.json"), b = d("b.json");
    const std::string wl = R"("name": "vectorAdd", "launch": "fi16")";
    write_file(a, campaign_text("merge refusals", 1, wl, 24, 1));
    write_file(b, campaign_text("merge refusals", 1, wl, 24, 2));  // another seed
    run_ok(fmt::format("campaign run {} --shard 1/4 --db {} -q", a, d("a1.db")));
    run_ok(fmt::format("campaign run {} --shard 2/4 --db {} -q", a, d("a2.db")));
    run_ok(fmt::format("campaign run {} --shard 3/4 --db {} -q", a, d("a3.db")));
    run_ok(fmt::format("campaign run {} --shard 2/4 --db {} -q", b, d("b2.db")));
    run_ok(fmt::format("campaign run {} --shard 1/2 --db {} -q", a, d("a1of2.db")));
    run_ok(fmt::format("campaign run {} --db {} -q", a, d("whole.db")));
  }
};

}  // namespace

TEST_CASE("campaign merge: foreign, overlapping, missing and unfinished shards are refused, naming them") {
  static const RefusalShards shards;
  const TempDir& d = shards.d;
  const std::string a = d("a.json");
  fs::remove(d("out.db"));  // a section's merge output
  auto merge = [&](const std::string& args) { return test::run_gpuvp("campaign merge " + d("out.db") + " " + args); };

  SECTION("shards of different campaigns") {
    test::RunResult r = merge(d("a1.db") + " " + d("b2.db"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("a1.db (shard 1 of 4) and ") && Contains("b2.db (shard 2 of 4) are shards of different "
                                                                         "campaigns") &&
                          Contains("seed 1 vs 2") && Contains("campaign file hash") && Contains("fault list hash"));
    CHECK_FALSE(fs::exists(d("out.db")));
  }
  SECTION("the same shard twice") {
    test::RunResult r = merge(d("a1.db") + " " + d("a2.db") + " " + d("a1.db"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("overlapping shards") && Contains("are both shard 1 of 4"));
    CHECK_FALSE(fs::exists(d("out.db")));
  }
  SECTION("shards of different counts") {
    test::RunResult r = merge(d("a1.db") + " " + d("a1of2.db"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("overlapping shards") && Contains("(4 vs 2 shards)") && Contains("a1of2.db"));
  }
  SECTION("missing shards, by number; --allow-missing merges what is there and says so") {
    test::RunResult r = merge(d("a1.db") + " " + d("a3.db"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("missing shards: 2, 4 of 4"));
    CHECK_FALSE(fs::exists(d("out.db")));
    r = merge(d("a1.db") + " " + d("a3.db") + " --allow-missing");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Contains("missing shards: 2, 4 of 4"));
    const std::vector<Row> rows = export_rows(d("out.db"));
    CHECK(rows.size() == 12);  // 6 + 6 of 24
    for (const Row& row : rows) CHECK(std::stoull(row.at("id")) % 2 == 0);
    test::RunResult rep = test::run_gpuvp("report " + d("out.db"));
    CHECK_THAT(rep.out, Contains("Merged from 4 shards, missing shards 2, 4"));
    // An existing output is refused.
    r = merge(d("a2.db") + " --allow-missing");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("out.db: exists"));
  }
  SECTION("an unfinished shard: which one and how many runs pending") {
    // a2 with only 2 of its 6 runs, as a shard killed half-way leaves it.
    {
      fi::Store src = fi::Store::open(d("a2.db"));
      fi::Store part = fi::Store::create(d("a2part.db"), src.campaign());
      part.set_shard(*src.shard());
      part.set_golden(*src.golden());
      part.add_faults(src.faults());
      auto runs = src.runs();
      REQUIRE(runs.size() == 6);
      runs.resize(2);
      part.add_runs(runs);
    }
    test::RunResult r = merge(d("a1.db") + " " + d("a2part.db") + " " + d("a3.db"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("a2part.db (shard 2 of 4): 4 of 6 runs pending") && Contains("missing shards: 4 of 4"));
  }
  SECTION("a whole campaign is not a shard") {
    test::RunResult r = merge(d("whole.db"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("whole.db: not a shard"));
  }
  SECTION("malformed --shard values exit 2 naming --shard") {
    for (const char* v : {"0/4", "5/4", "1/0", "x", "1/", "/4", "1/4/2", "1.5/4", "01x/4"}) {
      INFO(v);
      test::RunResult r = test::run_gpuvp(fmt::format("campaign run {} --shard '{}' --db {} -q", a, v, d("bad.db")));
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Contains("--shard"));
      CHECK_FALSE(fs::exists(d("bad.db")));
    }
  }
}

namespace {

// The 95 % Wilson score interval, written out here from the formula (not the library's).
std::pair<double, double> wilson95(double k, double n) {
  if (n == 0) return {0, 1};
  const double z = 1.96, p = k / n, den = 1 + z * z / n;
  const double centre = (p + z * z / (2 * n)) / den;
  const double half = z / den * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

const char* const kClasses[] = {"masked", "masked_timing", "sdc", "due", "timeout", "tool_error", "tolerable"};

// "AVF % [lo, hi]" per class, from the export's outcome counts.
std::map<std::string, std::string> expected_avf(const std::vector<Row>& rows) {
  std::map<std::string, double> count;
  for (const Row& r : rows) count[r.at("outcome")] += 1;
  const double runs = double(rows.size()), injected = runs - count["tool_error"];
  std::map<std::string, std::string> out;
  for (const std::string c : kClasses) {
    const double n = c == "tool_error" ? runs : injected;
    const auto [lo, hi] = wilson95(count[c], n);
    out[c] = fmt::format("{:.2f} % [{:.2f}, {:.2f}]", n ? 100 * count[c] / n : 0.0, 100 * lo, 100 * hi);
  }
  return out;
}

// The class table of `gpuvp report DB`: class -> "AVF % [lo, hi]" with the padding removed.
std::map<std::string, std::string> report_avf(const std::string& text) {
  std::map<std::string, std::string> out;
  static const std::regex line(R"(^  (\w+) +\d+ +([0-9.]+) % \[ *([0-9.]+), *([0-9.]+)\]$)");
  std::istringstream in(outcome_section(text));
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_match(l, m, line)) out[m[1]] = fmt::format("{} % [{}, {}]", m[2].str(), m[3].str(), m[4].str());
  return out;
}

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(p)) return p;
  return "";
}

}  // namespace

TEST_CASE("report --html: a self-contained page that chromium renders without console errors, AVF as the text "
          "report") {
  const std::string browser = chromium();
  if (browser.empty()) {
    WARN("chromium is not installed (scripts/setup installs it): the HTML report is not tested in a browser");
    return;
  }
  TempDir d("report_html");
  write_file(d("two.json"), campaign_text("vectorAdd, 2 SMs", 2, R"("name": "vectorAdd", "launch": "fi32")", 120, 5));
  write_file(d("one.json"), campaign_text("vectorAdd, 1 SM", 1, R"("name": "vectorAdd", "launch": "fi32")", 120, 5));
  run_ok(fmt::format("campaign run {} --db {} -q", d("two.json"), d("two.db")));
  run_ok(fmt::format("campaign run {} --db {} -q", d("one.json"), d("one.db")));
  // A store with its fault list and no run at all: zero runs of every class.
  {
    fi::Store src = fi::Store::open(d("one.db"));
    fi::CampaignInfo info = src.campaign();
    info.name = "not started <yet> & empty";  // escaped in the page
    fi::Store e = fi::Store::create(d("empty.db"), info);
    e.set_golden(*src.golden());
    e.add_faults(src.faults());
  }
  const std::vector<std::string> dbs = {d("two.db"), d("one.db"), d("empty.db")};
  std::string list;
  for (auto& db : dbs) list += " " + db;
  const std::string html = d("report.html");
  {
    test::RunResult r = test::run_gpuvp(fmt::format("report{} --raw-fit 0.001 --html {}", list, html));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  const std::string page = test::slurp(html);
  // Self-contained: nothing fetched from anywhere.
  CHECK(page.find("http://") == std::string::npos);
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK_THAT(page, Contains("not started &lt;yet&gt; &amp; empty"));

  // Without --html: the text report of each store.
  test::RunResult text = test::run_gpuvp("report" + list);
  REQUIRE(text.status == 0);
  for (auto& db : dbs) CHECK_THAT(text.out, Contains("== " + db + " =="));

  const std::string flags = fmt::format(
      "{} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --user-data-dir={} --enable-logging=stderr --v=0",
      browser, d("profile"));
  const std::string png = d("report.png");
  test::RunResult shot = test::run_cmd(
      fmt::format("{} --screenshot={} --window-size=1400,3000 file://{}", flags, png, html));
  test::RunResult dom = test::run_cmd(fmt::format("{} --dump-dom file://{}", flags, html));
  INFO(shot.err);
  REQUIRE(shot.status == 0);
  REQUIRE(dom.status == 0);
  for (const std::string& log : {shot.err, dom.err}) {
    std::istringstream in(log);
    std::string l;
    while (std::getline(in, l)) {
      INFO(l);
      CHECK(l.find("CONSOLE") == std::string::npos);
      CHECK(l.find("Uncaught") == std::string::npos);
    }
  }
  // A real picture: a PNG of the window's size, well beyond a blank page's bytes.
  REQUIRE(fs::exists(png));
  const std::string bytes = test::slurp(png);
  REQUIRE(bytes.size() > 24);
  CHECK(bytes.substr(1, 3) == "PNG");
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(bytes[at])) << 24 | uint32_t(uint8_t(bytes[at + 1])) << 16 |
           uint32_t(uint8_t(bytes[at + 2])) << 8 | uint32_t(uint8_t(bytes[at + 3]));
  };
  CHECK(be32(16) == 1400);
  CHECK(be32(20) == 3000);
  CHECK(bytes.size() > 60000);

  // The DOM as the browser built it: every AVF cell equals the text report's and the figures
  // computed here from the exported outcomes.
  std::map<std::pair<int, std::string>, std::string> cells;
  static const std::regex cell(R"re(data-db="(\d+)" data-class="(\w+)">([^<]*)<)re");
  for (std::sregex_iterator it(dom.out.begin(), dom.out.end(), cell), end; it != end; ++it)
    cells[{std::stoi((*it)[1]), (*it)[2]}] = (*it)[3];
  CHECK(cells.size() == 3 * 7);
  for (int k = 0; k < 3; ++k) {
    INFO("store " << dbs[k]);
    test::RunResult rep = test::run_gpuvp("report " + dbs[k]);
    REQUIRE(rep.status == 0);
    const auto printed = report_avf(rep.out);
    const auto expected = expected_avf(export_rows(dbs[k]));
    REQUIRE(printed.size() == 7);
    for (const std::string c : kClasses) {
      INFO("class " << c);
      CHECK(cells[{k, c}] == printed.at(c));
      CHECK(cells[{k, c}] == expected.at(c));
    }
  }
  for (const std::string c : kClasses) CHECK(cells[{2, c}] == "0.00 % [0.00, 100.00]");
  // The figures: the profiles of the two campaigns with their phases, none for the empty store.
  CHECK_THAT(dom.out, Contains("aria-label=\"fault profile\"") && Contains("No runs: no fault profile to draw.") &&
                          Contains("<title>dispatch</title>") && Contains("MTBF and FIT") &&
                          Contains("sdc FIT = 0.001 FIT/bit"));
  // Keep the page and its picture for a person to look at when asked to.
  if (const char* keep = std::getenv("GPUVP_KEEP_REPORT")) {
    fs::copy_file(html, fs::path(keep) / "report.html", fs::copy_options::overwrite_existing);
    fs::copy_file(png, fs::path(keep) / "report.png", fs::copy_options::overwrite_existing);
  }
}
