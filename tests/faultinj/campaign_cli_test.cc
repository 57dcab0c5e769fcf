// `gpuvp campaign run/resume/export` end to end: determinism, kill -9 and resume, the model and the
// RTL scheduler driven by one fault list, and malformed campaign files and databases.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <cstdlib>
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

using fi::test::slurp_file;
using fi::test::split_csv;
using fi::test::write_file;

struct Export {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;  // in id order
};

// `gpuvp campaign export DB --csv -`, every column but the host time.
Export export_runs(const std::string& db) {
  fi::test::ExportTable t = fi::test::export_table(db);
  Export e{t.header, {}};
  for (auto& row : t.rows) {
    e.rows.push_back(row);
    e.rows.back().erase("host_ms");
  }
  return e;
}

const char* const kFaultColumns[] = {"id",      "target", "idx",     "bit",   "nbits", "mask", "model",
                                     "duration", "hold_ps", "trigger", "time_ps", "event", "count"};

std::map<std::string, std::string> fault_part(const std::map<std::string, std::string>& row) {
  std::map<std::string, std::string> f;
  for (const char* c : kFaultColumns) f[c] = row.at(c);
  return f;
}

std::string campaign_text(const std::string& name, const std::string& set, const std::string& workload,
                          const std::string& targets, const std::string& exclude, uint64_t count, uint64_t seed,
                          unsigned workers) {
  return fmt::format(R"({{
  "name": "{}",
  "platform": {{"preset": "flexgrip", "set": {{{}}}}},
  "workload": {{{}}},
  "targets": [{}],
  "exclude": [{}],
  "fault": {{"model": "bit_flip", "duration": "transient"}},
  "size": {{"count": {}}},
  "seed": {},
  "workers": {}
}}
)",
                     name, set, workload, targets, exclude, count, seed, workers);
}

}  // namespace

TEST_CASE("campaign cli: the same file and seed give the same fault list and the same outcomes") {
  TempDir d("cli_determinism");
  const std::string file = d("det.json");
  write_file(file, campaign_text("determinism", R"("sm.count": 2)", R"("name": "vectorAdd", "launch": "fi32")",
                                 R"("gpu.sched.*")", "", 200, 11, 2));
  for (const char* db : {"a.db", "b.db"}) {
    test::RunResult r = test::run_gpuvp(fmt::format("campaign run {} --db {} -q", file, d(db)));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  Export a = export_runs(d("a.db")), b = export_runs(d("b.db"));
  REQUIRE(a.rows.size() == 200);
  REQUIRE(b.rows.size() == 200);
  std::set<std::string> classes;
  for (size_t i = 0; i < a.rows.size(); ++i) {
    INFO("row " << i);
    CHECK(a.rows[i].at("id") == std::to_string(i));
    CHECK(fault_part(a.rows[i]) == fault_part(b.rows[i]));
    CHECK(a.rows[i] == b.rows[i]);
    classes.insert(a.rows[i].at("outcome"));
  }
  // Not a trivial campaign: more than one class came out.
  CHECK(classes.size() >= 3);
}

namespace {

// Starts gpuvp with `args` in its own process group, stdout and stderr to /dev/null.
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

// Live (not zombie) processes of process group `pgid`.
std::vector<pid_t> live_in_group(pid_t pgid) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* e = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::string stat = slurp_file(fmt::format("/proc/{}/stat", pid));
    const size_t rp = stat.rfind(')');
    if (rp == std::string::npos) continue;
    std::istringstream in(stat.substr(rp + 2));
    char state = 0;
    long ppid = 0, pgrp = 0;
    in >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != 'Z' && state != 'X') out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

}  // namespace

TEST_CASE("campaign cli: kill -9 at random instants, resume each time: one run per fault, as an uninterrupted run") {
  TempDir d("cli_kill");
  const std::string file = d("kill.json");
  write_file(file, campaign_text("kill", R"("sm.count": 2)", R"("name": "scalarProd", "launch": "fi16")",
                                 R"("gpu.sched.*")", "", 300, 3, 2));
  const auto t0 = std::chrono::steady_clock::now();
  {
    test::RunResult r = test::run_gpuvp(fmt::format("campaign run {} --db {} -q", file, d("ref.db")));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  // Kill instants spread over the uninterrupted campaign's own duration (5 % to 110 % of it), so that
  // kills land before, in and after the golden run on a fast machine as on a sanitizer build.
  const int whole_ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
  const std::string db = d("killed.db");
  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> delay_ms(std::max(20, whole_ms / 20), std::max(200, whole_ms * 11 / 10));
  int kills = 0, kills_mid_campaign = 0;
  bool done = false;
  for (int attempt = 0; attempt < 100 && !done; ++attempt) {
    const bool fresh = !fs::exists(db);
    const pid_t pid = fresh ? spawn_gpuvp({"campaign", "run", file, "--db", db, "-q"})
                            : spawn_gpuvp({"campaign", "resume", db, "-q"});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms(rng));
    int status = 0;
    pid_t w = 0;
    while ((w = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (w == pid && !fresh && WIFEXITED(status) && WEXITSTATUS(status) == 2) {
      // Killed before the campaign had started (golden run and fault list committed): resume
      // refuses it, and the documented way on is to remove the file and run again.
      bool started = false;
      try {
        fi::Store st = fi::Store::open(db);
        started = st.golden() && st.fault_count() > 0;
      } catch (const fi::StoreError&) {  // killed inside Store::create
      }
      REQUIRE_FALSE(started);
      fs::remove(db);
      continue;
    }
    if (w == pid) {
      INFO("gpuvp campaign " << (fresh ? "run" : "resume") << " ended by itself");
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 0);
      done = true;
      break;
    }
    ::kill(pid, SIGKILL);  // the campaign process only: its leader and runs must follow by themselves
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    ++kills;
    // Nothing of the campaign is left running (PR_SET_PDEATHSIG in the leader and its children).
    std::vector<pid_t> left = live_in_group(pid);
    for (int k = 0; k < 500 && !left.empty(); ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      left = live_in_group(pid);
    }
    INFO("kill " << kills << ": processes of the campaign still running 5 s after kill -9");
    CHECK(left.empty());
    ::kill(-pid, SIGKILL);  // whatever the check found, do not leave it behind
    try {
      if (fs::exists(db)) {
        fi::Store st = fi::Store::open(db);
        const uint64_t runs = st.run_count(), total = st.fault_count();
        if (runs > 0 && runs < total) ++kills_mid_campaign;
      }
    } catch (const fi::StoreError&) {  // killed inside Store::create: resume says so (above)
    }
  }
  REQUIRE(done);
  WARN(kills << " kill -9 (" << kills_mid_campaign << " with the campaign part-way), then resumed to the end");
  INFO(kills << " kills, " << kills_mid_campaign << " with the campaign part-way");
  CHECK(kills >= 2);
  CHECK(kills_mid_campaign >= 1);
  {
    fi::Store st = fi::Store::open(db);
    CHECK(st.fault_count() == 300);
    CHECK(st.run_count() == 300);
    CHECK(st.pending_fault_ids().empty());
  }
  Export ref = export_runs(d("ref.db")), got = export_runs(db);
  REQUIRE(ref.rows.size() == 300);
  REQUIRE(got.rows.size() == 300);
  for (size_t i = 0; i < ref.rows.size(); ++i) {
    INFO("row " << i);
    CHECK(got.rows[i].at("id") == std::to_string(i));  // every fault exactly once, in order
    CHECK(got.rows[i] == ref.rows[i]);
  }
}

namespace {

// name -> width of the registry targets matching `glob`, from `gpuvp targets`.
std::map<std::string, unsigned> targets_of(const std::string& set_args, const std::string& glob) {
  test::RunResult r = test::run_gpuvp(fmt::format("targets --preset flexgrip {} --match '{}'", set_args, glob));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, unsigned> out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string name, kind;
    unsigned width = 0;
    if (l >> name >> kind >> width && (kind == "register" || kind == "memory")) out[name] = width;
  }
  return out;
}

// One fault list (one file and seed; only scheduler.impl differs) run on the model and on the RTL
// scheduler: the lists must be identical, every fault must be in state both register with the same
// width, and the outcomes must agree fault by fault. `set` is the rest of platform.set (JSON members),
// `set_args` the same as --set options; `exclude` the globs left out; `only_expected` the targets
// one implementation has and the other has not ("rtl NAME" / "model NAME").
void model_vs_rtl(const std::string& tag, const std::string& set, const std::string& set_args,
                  const std::string& exclude, const std::vector<std::string>& only_expected, uint64_t n, uint64_t seed) {
  TempDir d("cli_model_rtl_" + tag);
  const auto model_targets = targets_of(set_args + " --set scheduler.impl=model", "gpu.sched.*");
  const auto rtl_targets = targets_of(set_args + " --set scheduler.impl=rtl", "gpu.sched.*");
  std::map<std::string, unsigned> shared;
  for (auto& [name, width] : model_targets)
    if (rtl_targets.count(name) && rtl_targets.at(name) == width) shared[name] = width;
  std::vector<std::string> only;
  for (auto& [name, width] : rtl_targets)
    if (!shared.count(name)) only.push_back("rtl " + name);
  for (auto& [name, width] : model_targets)
    if (!shared.count(name)) only.push_back("model " + name);
  INFO("not shared: " << fmt::format("{}", fmt::join(only, ", ")));
  CHECK(only == only_expected);

  for (const char* impl : {"model", "rtl"})
    write_file(d(std::string(impl) + ".json"),
               campaign_text("model vs rtl", fmt::format(R"({}, "scheduler.impl": "{}")", set, impl),
                             R"("name": "vectorAdd", "launch": "fi32")", R"("gpu.sched.*")", exclude, n, seed, 2));
  for (const char* impl : {"model", "rtl"}) {
    test::RunResult r = test::run_gpuvp(
        fmt::format("campaign run {} --db {} -q", d(std::string(impl) + ".json"), d(std::string(impl) + ".db")));
    INFO(impl << ": " << r.err);
    REQUIRE(r.status == 0);
  }
  Export m = export_runs(d("model.db")), r = export_runs(d("rtl.db"));
  REQUIRE(m.rows.size() == n);
  REQUIRE(r.rows.size() == n);
  uint64_t agree = 0, compared = 0;
  std::map<std::string, uint64_t> per_outcome;
  std::set<std::string> targets_hit;
  std::vector<std::string> differing;
  for (size_t i = 0; i < n; ++i) {
    INFO("fault " << i);
    REQUIRE(fault_part(m.rows[i]) == fault_part(r.rows[i]));  // one fault list
    CHECK(shared.count(m.rows[i].at("target")) == 1);
    targets_hit.insert(m.rows[i].at("target"));
    ++compared;
    ++per_outcome[m.rows[i].at("outcome")];
    const bool same = m.rows[i].at("outcome") == r.rows[i].at("outcome") &&
                      m.rows[i].at("due_kind") == r.rows[i].at("due_kind");
    if (same) {
      ++agree;
    } else if (differing.size() < 20) {
      differing.push_back(fmt::format("{} {} bit {} at {} ps: model {} ({}), rtl {} ({})", m.rows[i].at("id"),
                                      m.rows[i].at("target"), m.rows[i].at("bit"), m.rows[i].at("time_ps"),
                                      m.rows[i].at("outcome"), m.rows[i].at("detail"), r.rows[i].at("outcome"),
                                      r.rows[i].at("detail")));
    }
  }
  std::string classes;
  for (auto& [o, k] : per_outcome) classes += fmt::format(" {} {}", o, k);
  WARN(fmt::format("model vs RTL scheduler ({}): {} of {} faults agree ({:.2f} %) over {} targets; model outcomes:{}",
                   tag, agree, compared, 100.0 * double(agree) / double(compared), targets_hit.size(), classes));
  INFO(fmt::format("{}", fmt::join(differing, "\n")));
  CHECK(agree == compared);
  CHECK(per_outcome.size() >= 3);  // not a trivial campaign
}

}  // namespace

TEST_CASE("campaign cli: model and RTL scheduler agree on every fault of one fault list (round robin, 2 SMs)") {
  // The RTL registers its prng register whatever the policy, the model only with the Random policy
  // (block_scheduler.h): with round robin every other gpu.sched target is shared.
  model_vs_rtl("round_robin", R"("sm.count": 2)", "--set sm.count=2", R"("gpu.sched.prng")", {"rtl gpu.sched.prng"},
               1000, 5);
}

TEST_CASE("campaign cli: model and RTL scheduler agree on every fault of one fault list (random policy, 3 SMs)") {
  model_vs_rtl("random", R"("sm.count": 3, "scheduler.policy": "random")",
               "--set sm.count=3 --set scheduler.policy=random", "", {}, 1000, 9);
}

TEST_CASE("campaign cli: malformed campaign files and databases: exit 2, naming the key or the file") {
  TempDir d("cli_malformed");
  const std::string good_run = R"("workload": {"name": "vectorAdd", "launch": "fi16"})";
  auto campaign = [&](const std::string& file, const std::string& body) {
    write_file(d(file), "{\"name\": \"bad\", \"platform\": {\"preset\": \"flexgrip\"}, " + body + "}\n");
    return d(file);
  };
  auto expect_refused = [&](const std::string& args, const std::vector<std::string>& named) {
    test::RunResult r = test::run_gpuvp(args);
    INFO(args << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    for (auto& s : named) CHECK_THAT(r.err, Contains(s));
  };
  SECTION("an unknown key") {
    const std::string f = campaign("unknown.json", good_run + R"(, "targets": ["gpu.sched.*"], "size": {"count": 5, "cnt": 1})");
    expect_refused(fmt::format("campaign run {} --db {}", f, d("u.db")), {f, "size: unknown key 'cnt'"});
    CHECK_FALSE(fs::exists(d("u.db")));
  }
  SECTION("a bad fault model") {
    const std::string f = campaign(
        "model.json", good_run + R"(, "targets": ["gpu.sched.*"], "fault": {"model": "flip"}, "size": {"count": 5})");
    expect_refused(fmt::format("campaign run {} --db {}", f, d("m.db")), {f, "fault.model", "flip"});
    CHECK_FALSE(fs::exists(d("m.db")));
  }
  SECTION("no targets") {
    const std::string f = campaign("notargets.json", good_run + R"(, "size": {"count": 5})");
    expect_refused(fmt::format("campaign run {} --db {}", f, d("n.db")), {f, "targets"});
    CHECK_FALSE(fs::exists(d("n.db")));
  }
  SECTION("no target matching the globs") {
    const std::string f =
        campaign("nomatch.json", good_run + R"(, "targets": ["gpu.schedd.*"], "size": {"count": 5})");
    expect_refused(fmt::format("campaign run {} --db {}", f, d("x.db")), {f, "targets", "gpu.schedd.*"});
    CHECK_FALSE(fs::exists(d("x.db")));
  }
  // Found by scripts/fuzz.py: internal errors and refusals that did not name the file.
  SECTION("a preset name no file system could hold") {
    const std::string f = campaign("longpreset.json", "\"x\": 0}");
    write_file(f, "{\"name\": \"bad\", \"platform\": {\"preset\": \"" + std::string(5000, 'f') + "\"}, " + good_run +
                      R"(, "targets": ["gpu.sched.*"], "size": {"count": 5}})");
    expect_refused(fmt::format("campaign check {}", f), {"unknown preset"});
  }
  SECTION("more faults than a fault list may hold") {
    const std::string f = campaign("huge.json", good_run + R"(, "targets": ["gpu.sm0.smem"], "size": {"count": 2147483648})");
    expect_refused(fmt::format("campaign check {}", f), {f, "size", "at most 10000000"});
  }
  SECTION("an unknown workload") {
    const std::string f = campaign("nowl.json", R"("workload": {"name": "vectorA"}, "targets": ["gpu.sched.*"], "size": {"count": 5})");
    expect_refused(fmt::format("campaign check {}", f), {f, "workload", "vectorA", "unknown workload"});
  }
  SECTION("a missing campaign file") {
    expect_refused(fmt::format("campaign run {} --db {}", d("absent.json"), d("y.db")), {d("absent.json")});
    CHECK_FALSE(fs::exists(d("y.db")));
  }
  SECTION("a text file as the database") {
    write_file(d("notes.db"), "not a database\n");
    for (const char* cmd : {"campaign resume {}", "campaign export {} --csv -", "report {}"})
      expect_refused(fmt::format(cmd, d("notes.db")), {d("notes.db")});
    CHECK(slurp_file(d("notes.db")) == "not a database\n");
  }
  SECTION("a missing database") {
    for (const char* cmd : {"campaign resume {}", "campaign export {} --csv -", "report {}"})
      expect_refused(fmt::format(cmd, d("missing.db")), {d("missing.db")});
    CHECK_FALSE(fs::exists(d("missing.db")));
  }
  SECTION("campaign run onto an existing database") {
    const std::string f = campaign("ok.json", good_run + R"(, "targets": ["gpu.sched.state"], "size": {"count": 3})");
    {
      test::RunResult r = test::run_gpuvp(fmt::format("campaign run {} --db {} -q", f, d("ok.db")));
      INFO(r.err);
      REQUIRE(r.status == 0);
    }
    expect_refused(fmt::format("campaign run {} --db {} -q", f, d("ok.db")), {d("ok.db"), "exists"});
    CHECK(export_runs(d("ok.db")).rows.size() == 3);
    write_file(d("text.db"), "hello\n");
    expect_refused(fmt::format("campaign run {} --db {} -q", f, d("text.db")), {d("text.db"), "exists"});
    CHECK(slurp_file(d("text.db")) == "hello\n");
  }
}

TEST_CASE("campaign cli: check says what a campaign file would run and stores nothing") {
  TempDir d("cli_check");
  const std::string f = d("c.json");
  write_file(f, R"({"name": "check me", "platform": {"preset": "flexgrip", "set": {"sm.count": 2}},
                   "workload": {"name": "vectorAdd", "launch": "fi16"}, "targets": ["gpu.sched.state"],
                   "size": {"count": 40}, "seed": 3})");
  test::RunResult r = test::run_gpuvp(fmt::format("campaign check {}", f));
  INFO(r.err);
  REQUIRE(r.status == 0);
  // One target of 3 bits (the scheduler's FSM state), 40 faults asked for.
  CHECK_THAT(r.out, Contains("'check me' is valid") && Contains("40 faults over 1 targets"));
  for (auto& e : fs::directory_iterator(d.dir)) CHECK(e.path().extension() != ".db");
  CHECK_FALSE(fs::exists("c.db"));
  write_file(f, R"({"name": "check me", "platform": {"preset": "flexgrip"}, "targets": ["gpu.sched.state"]})");
  r = test::run_gpuvp(fmt::format("campaign check {}", f));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f));
}

TEST_CASE("campaign cli: a database killed between its golden run and its fault list is not resumed as finished") {
  // campaign run commits the campaign, then the golden run, then the fault list (one transaction):
  // kill -9 between the last two leaves a golden run and no faults. Resuming it must not report a
  // finished campaign of zero runs.
  TempDir d("cli_no_faults");
  const std::string file = d("c.json");
  write_file(file, campaign_text("no faults", R"("sm.count": 1)", R"("name": "vectorAdd", "launch": "fi16")",
                                 R"("gpu.sched.state")", "", 3, 1, 1));
  {
    test::RunResult r = test::run_gpuvp(fmt::format("campaign run {} --db {} -q", file, d("full.db")));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  {
    fi::Store full = fi::Store::open(d("full.db"));
    fi::Store cut = fi::Store::create(d("cut.db"), full.campaign());
    cut.set_golden(*full.golden());
  }
  test::RunResult r = test::run_gpuvp(fmt::format("campaign resume {} -q", d("cut.db")));
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(d("cut.db")));
  CHECK_THAT(r.err, Contains("fault list"));
}

TEST_CASE("campaign cli: kill -9 during a long golden run leaves nothing running") {
  // A golden run of a few seconds of host time (vectorAdd over 2^20 elements): kill -9 the campaign
  // while its golden-run child simulates; that child must not go on by itself.
  TempDir d("cli_kill_golden");
  const std::string file = d("long.json");
  write_file(file, fmt::format(R"({{
  "name": "long golden run",
  "platform": {{"preset": "flexgrip"}},
  "exec": {{"ptx": "{}/ptx/vectorAdd.ptx", "kernel": "vectorAdd", "grid": [4096], "block": [256],
           "args": [{{"buffer": {{"type": "f32", "count": 1048576, "init": "iota"}}}},
                    {{"buffer": {{"type": "f32", "count": 1048576, "init": "iota"}}}},
                    {{"buffer": {{"type": "f32", "count": 1048576}}}}, {{"i32": 1048576}}]}},
  "targets": ["gpu.sched.state"],
  "size": {{"count": 2}},
  "workers": 1
}}
)",
                               GPUVP_TEST_DATA));
  const pid_t pid = spawn_gpuvp({"campaign", "run", file, "--db", d("long.db"), "-q"});
  // Wait (up to 10 s: a loaded machine, a sanitizer build) for the golden-run child to exist.
  int status = 0;
  for (int k = 0; k < 1000 && live_in_group(pid).size() < 2; ++k) {
    REQUIRE(::waitpid(pid, &status, WNOHANG) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(::waitpid(pid, &status, WNOHANG) == 0);  // still in its golden run
  REQUIRE(live_in_group(pid).size() >= 2);         // the campaign and its golden-run child
  ::kill(pid, SIGKILL);
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  std::vector<pid_t> left = live_in_group(pid);
  for (int k = 0; k < 50 && !left.empty(); ++k) {  // 0.5 s: far less than the golden run has left
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    left = live_in_group(pid);
  }
  CHECK(left.empty());
  ::kill(-pid, SIGKILL);
}

TEST_CASE("campaign cli: outputs never overwrite a store, write errors and broken stores exit 2 naming the file") {
  TempDir d("cli_outputs");
  const std::string file = d("c.json"), db = d("c.db");
  write_file(file, campaign_text("outputs", R"("sm.count": 1)", R"("name": "vectorAdd", "launch": "fi16")",
                                 R"("gpu.sched.*")", "", 20, 3, 1));
  REQUIRE(test::run_gpuvp(fmt::format("campaign run {} --db {} -q", file, db)).status == 0);
  const std::string before = slurp_file(db);
  for (const std::string& cmd : {fmt::format("campaign export {} --csv {}", db, db),
                                 fmt::format("campaign export {} --json {}", db, db),
                                 fmt::format("report {} --html {}", db, db)}) {
    INFO(cmd);
    auto r = test::run_gpuvp(cmd);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("would overwrite the store"));
  }
  CHECK(slurp_file(db) == before);
  auto full = test::run_gpuvp(fmt::format("campaign export {} --csv /dev/full", db));
  CHECK(full.status == 2);
  CHECK_THAT(full.err, Contains("/dev/full: cannot write"));
  auto nan = test::run_gpuvp(fmt::format("report {} --raw-fit nan", db));
  CHECK(nan.status == 2);
  // A store missing a table: an error of that store.
  const std::string broken = d("broken.db");
  fs::copy_file(db, broken);
  REQUIRE(std::system(fmt::format("/usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect('{}'); "
                                  "c.execute('drop table runs'); c.commit()\"", broken).c_str()) == 0);
  for (const std::string& cmd : {fmt::format("report {}", broken), fmt::format("campaign export {} --csv -", broken)}) {
    INFO(cmd);
    auto r = test::run_gpuvp(cmd);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(broken + ": not a readable campaign store"));
  }
  // A campaign the platform cannot run (an unknown link) and a number beyond a double: the file's errors.
  const std::string bus = d("bus.json");
  write_file(bus, R"({"name": "b", "platform": {"preset": "flexgrip"}, "workload": {"name": "vectorAdd"},
    "bus": {"link": "gpu.nope", "field": "data"}, "size": {"count": 5}})");
  auto r = test::run_gpuvp(fmt::format("campaign run {} --db {}", bus, d("bus.db")));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(bus + ": golden run: bus.link 'gpu.nope' is not a link"));
  const std::string big = d("big.json");
  write_file(big, R"({"name": "x", "seed": 1e400})");
  r = test::run_gpuvp(fmt::format("campaign run {}", big));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(big));
  r = test::run_gpuvp(fmt::format("campaign run {} --db {}", d(""), d("dir.db")));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("a directory; expected a regular file"));
}
