// Stores as the CLI makes and reads them: created whole or not at all (empty shards are finished, a
// fault list of 0 faults is refused before any store exists, a full disk names the store), paths of
// the campaign file resolved against its folder on resume, read-only reading (report, export, merge's
// inputs) of stores the reader cannot write, crafted shard rows and runs without their fault, and one
// owner per store.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/store.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;
using gpuvp::fi::test::slurp_file;
using gpuvp::fi::test::write_file;
namespace fs = std::filesystem;

namespace {

// A small campaign: `count` faults on the block scheduler of vectorAdd on one flexgrip SM; `extra`
// adds keys.
std::string campaign(uint64_t count, const std::string& extra = "") {
  return fmt::format(R"({{"name": "store cli", "platform": {{"preset": "flexgrip", "set": {{"sm.count": 1}}}},
  "workload": {{"name": "vectorAdd", "launch": "fi16"}}, "targets": ["gpu.sched.*"],
  "size": {{"count": {}}}, "seed": 5, "workers": 2{}}})",
                     count, extra);
}

void ok(const std::string& args) {
  test::RunResult r = test::run_gpuvp(args);
  INFO("gpuvp " << args << "\n" << r.out << r.err);
  REQUIRE(r.status == 0);
}

// Files of `dir` whose name contains `part` (a store, its WAL files, a store being created).
int files_with(const fs::path& dir, const std::string& part) {
  int n = 0;
  for (auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(part) != std::string::npos;
  return n;
}

// d("c.db"): a finished campaign of `faults` faults (campaign file d("c.json")).
std::string finished_store(const TempDir& d, uint64_t faults) {
  write_file(d("c.json"), campaign(faults));
  ok(fmt::format("campaign run {} --db {} -q", d("c.json"), d("c.db")));
  return d("c.db");
}

void sql(const std::string& db, const std::string& statements) {
  SQLite::Database d(db, SQLite::OPEN_READWRITE);
  d.exec(statements);
}

}  // namespace

TEST_CASE("campaign store: a shard with no faults is finished: resume has nothing to do, merge accepts it") {
  TempDir d("store_empty_shard");
  write_file(d("c.json"), campaign(3));  // fault ids 0, 1, 2: shard 4 of 4 has none
  for (int i = 1; i <= 4; ++i) ok(fmt::format("campaign run {} --shard {}/4 --db {} -q", d("c.json"), i, d(fmt::format("s{}.db", i))));
  test::RunResult r = test::run_gpuvp(fmt::format("campaign resume {}", d("s4.db")));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.err, Contains("nothing to do"));
  ok(fmt::format("campaign merge {} {} {} {} {}", d("all.db"), d("s1.db"), d("s2.db"), d("s3.db"), d("s4.db")));
  CHECK(fi::test::export_table(d("all.db")).rows.size() == 3);
  ok(fmt::format("campaign merge {} {} {} --allow-missing", d("part.db"), d("s4.db"), d("s1.db")));
  CHECK(fi::test::export_table(d("part.db")).rows.size() == 1);
}

TEST_CASE("campaign store: a window with no clock edge is an error naming it, before any store exists") {
  TempDir d("store_no_edge");
  // flexgrip's clock: 100 MHz, an edge every 10 ns; none in [1001, 1005) ns.
  write_file(d("c.json"), campaign(3, R"(, "window": {"from_ns": 1001, "to_ns": 1005})"));
  for (const std::string& cmd : {fmt::format("campaign run {} --db {} -q", d("c.json"), d("c.db")),
                                 fmt::format("campaign run {} --shard 2/4 --db {} -q", d("c.json"), d("c.db")),
                                 fmt::format("campaign check {}", d("c.json"))}) {
    test::RunResult r = test::run_gpuvp(cmd);
    INFO(cmd << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(d("c.json")) && Contains("window.from_ns = 1001") && Contains("window.to_ns = 1005"));
    CHECK(files_with(d.dir, ".db") == 0);
  }
}

TEST_CASE("campaign store: a full disk while the store is set up exits 2 naming it and leaves no store") {
  TempDir d("store_full");
  write_file(d("c.json"), campaign(3000));
  // Files above 64 KiB cannot grow (EFBIG, as a full disk: SQLite's write fails); the fault list of
  // 3000 faults is larger.
  test::RunResult r = test::run_cmd(fmt::format("trap '' XFSZ; ulimit -f 64; {} campaign run {} --db {} -q",
                                                GPUVP_BINARY, d("c.json"), d("c.db")));
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(d("c.db")));
  CHECK_FALSE(fs::exists(d("c.db")));
  CHECK(files_with(d.dir, ".tmp-") == 0);
}

TEST_CASE("campaign store: resume resolves the relative ptx of an exec campaign against the campaign file's folder") {
  TempDir d("store_base_dir");
  fs::create_directories(d.dir / "camp");
  fs::create_directories(d.dir / "stores");
  fs::copy_file(std::string(GPUVP_TEST_DATA) + "/ptx/vectorAdd.ptx", d.dir / "camp" / "vectorAdd.ptx");
  write_file(d("camp/e.json"), R"({"name": "relative ptx", "platform": {"preset": "flexgrip", "set": {"sm.count": 1}},
  "exec": {"ptx": "vectorAdd.ptx", "kernel": "vectorAdd", "grid": [2], "block": [32],
           "args": [{"buffer": {"type": "f32", "count": 64, "init": "iota"}},
                    {"buffer": {"type": "f32", "count": 64, "init": "iota"}},
                    {"buffer": {"type": "f32", "count": 64}}, {"i32": 64}]},
  "targets": ["gpu.sched.*"], "size": {"count": 6}, "seed": 2, "workers": 2})");
  const std::string db = d("stores/e.db");
  ok(fmt::format("campaign run {} --db {} -q", d("camp/e.json"), db));
  sql(db, "DELETE FROM runs WHERE fault_id IN (1, 4)");  // as a campaign killed before them leaves it
  test::RunResult r = test::run_gpuvp(fmt::format("campaign resume {} -q", db));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(fi::test::export_table(db).rows.size() == 6);
}

namespace {

// Runs `args` as a user who can write neither the store nor its folder: user nobody when this runs as
// root (who may write anything), with `bin` a copy of gpuvp nobody can run (the build folder may be
// closed to it), else this user after chmod.
test::RunResult as_reader(const std::string& bin, const std::string& args) {
  if (::geteuid() == 0)
    return test::run_cmd(fmt::format("setpriv --reuid=65534 --regid=65534 --clear-groups {} {}", bin, args));
  return test::run_gpuvp(args);
}

}  // namespace

TEST_CASE("campaign store: report, export and merge read stores whose file and folder the reader cannot write, "
          "and change nothing") {
  TempDir d("store_read_only");
  fs::create_directories(d.dir / "ro");
  fs::create_directories(d.dir / "out");
  write_file(d("c.json"), campaign(8));
  const std::string db = d("ro/c.db"), s1 = d("ro/s1.db"), s2 = d("ro/s2.db");
  ok(fmt::format("campaign run {} --db {} -q", d("c.json"), db));
  ok(fmt::format("campaign run {} --shard 1/2 --db {} -q", d("c.json"), s1));
  ok(fmt::format("campaign run {} --shard 2/2 --db {} -q", d("c.json"), s2));
  for (auto& e : fs::directory_iterator(d.dir / "ro"))
    if (e.path().extension() == ".lock") fs::remove(e.path());
  const std::string before = slurp_file(db);
  const bool root = ::geteuid() == 0;
  // As root: folder root 0755, files 0644 (what nobody may read, not write); else read-only modes.
  fs::permissions(d.dir / "ro", root ? fs::perms(0755) : fs::perms(0555));
  for (const std::string& f : {db, s1, s2}) fs::permissions(f, root ? fs::perms(0644) : fs::perms(0444));
  fs::permissions(d.dir / "out", fs::perms(0777));
  fs::permissions(d.dir, fs::perms(0755));
  fs::copy_file(GPUVP_BINARY, d("gpuvp"));
  fs::permissions(d("gpuvp"), fs::perms(0755));
  for (const std::string& cmd : {fmt::format("report {}", db), fmt::format("campaign export {} --csv -", db),
                                 fmt::format("campaign export {} --json -", db),
                                 fmt::format("campaign merge {} {} {}", d("out/m.db"), s1, s2)}) {
    test::RunResult r = as_reader(d("gpuvp"), cmd);
    INFO(cmd << "\n" << r.err);
    CHECK(r.status == 0);
  }
  fs::permissions(d.dir / "ro", fs::perms(0755));
  CHECK(slurp_file(db) == before);
  CHECK(files_with(d.dir / "ro", "-wal") == 0);
  CHECK(files_with(d.dir / "ro", "-shm") == 0);
  // Where the reader may write, it still leaves nothing beside the store.
  for (const std::string& cmd : {fmt::format("report {}", db), fmt::format("campaign export {} --csv -", db)})
    CHECK(test::run_gpuvp(cmd).status == 0);
  CHECK(slurp_file(db) == before);
  CHECK(files_with(d.dir / "ro", "-wal") == 0);
  CHECK(files_with(d.dir / "ro", "-shm") == 0);
  CHECK(fi::test::export_table(d("out/m.db")).rows.size() == 8);
}

TEST_CASE("campaign store: crafted shard rows and a run without its fault are refused, naming the store") {
  TempDir d("store_crafted");
  write_file(d("c.json"), campaign(6));
  ok(fmt::format("campaign run {} --shard 1/2 --db {} -q", d("c.json"), d("s1.db")));
  ok(fmt::format("campaign run {} --shard 2/2 --db {} -q", d("c.json"), d("s2.db")));
  struct Case {
    const char* edit;
    const char* says;
  };
  for (const Case& c : {Case{"UPDATE shard SET count = 0", "shard.count = 0"},
                        Case{"UPDATE shard SET count = 4000000000", "shard.count = 4000000000"},
                        Case{"UPDATE shard SET count = -1", "shard.count = -1"},
                        Case{"UPDATE shard SET idx = 3", "shard.idx = 3"}}) {
    fs::copy_file(d("s1.db"), d("x.db"), fs::copy_options::overwrite_existing);
    sql(d("x.db"), c.edit);
    for (const std::string& cmd : {fmt::format("campaign merge {} {} {}", d("m.db"), d("x.db"), d("s2.db")),
                                   fmt::format("report {}", d("x.db"))}) {
      test::RunResult r = test::run_gpuvp(cmd);
      INFO(c.edit << ": " << cmd << "\n" << r.err);
      CHECK(r.status == 2);
      CHECK_THAT(r.err, Contains(d("x.db")) && Contains(c.says));
      CHECK_FALSE(fs::exists(d("m.db")));
    }
  }
  fs::copy_file(d("s1.db"), d("y.db"));
  sql(d("y.db"), "PRAGMA foreign_keys = OFF; DELETE FROM faults WHERE id = (SELECT min(fault_id) FROM runs)");
  for (const std::string& cmd : {fmt::format("report {} --html {}", d("y.db"), d("y.html")), fmt::format("report {}", d("y.db")),
                                 fmt::format("campaign export {} --csv -", d("y.db")),
                                 fmt::format("campaign merge {} {} {}", d("m.db"), d("y.db"), d("s2.db"))}) {
    test::RunResult r = test::run_gpuvp(cmd);
    INFO(cmd << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(d("y.db")) && Contains("has no fault row"));
  }
}

TEST_CASE("campaign store: a store another process owns is refused, naming it and the owner's pid") {
  TempDir d("store_owner");
  const std::string db = finished_store(d, 4);
  sql(db, "DELETE FROM runs");
  // This process owns both stores as a running `campaign resume` or `run` does.
  auto own = [](const std::string& store) {
    const int fd = ::open((store + ".lock").c_str(), O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    REQUIRE(::fcntl(fd, F_SETLK, &whole) == 0);  // a POSIX record lock, as the owner takes it
    return fd;
  };
  const int fd = own(db), fd_new = own(d("new.db"));
  for (const std::string& cmd : {fmt::format("campaign resume {} -q", db),
                                 fmt::format("campaign run {} --db {} -q", d("c.json"), d("new.db"))}) {
    test::RunResult r = test::run_gpuvp(cmd);
    INFO(cmd << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("another process") && Contains("owns the store"));
  }
  test::RunResult r = test::run_gpuvp(fmt::format("campaign resume {} -q", db));
  CHECK_THAT(r.err, Contains(db) && Contains(fmt::format("pid {}", ::getpid())));
  CHECK_FALSE(fs::exists(d("new.db")));
  ::close(fd);
  ::close(fd_new);
  ok(fmt::format("campaign resume {} -q", db));  // once the owner is gone
  CHECK(fi::test::export_table(db).rows.size() == 4);
}

TEST_CASE("campaign store: the moment its owner is killed with -9, a resume takes the store") {
  // The owner's lock is a POSIX record lock: its forked leader and faulty runs, which die a moment
  // after it, never hold it, so a resume started at once is not refused.
  TempDir d("store_owner_killed");
  write_file(d("c.json"), campaign(400));
  const std::string db = d("c.db");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(GPUVP_BINARY, GPUVP_BINARY, "campaign", "run", d("c.json").c_str(), "--db", db.c_str(), "-q", nullptr);
    ::_exit(127);
  }
  REQUIRE(pid > 0);
  bool killed = false;
  for (int k = 0; k < 20000 && !killed; ++k) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    try {
      if (fs::exists(db) && fi::Store::open_read_only(db).run_count() > 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        killed = true;
      }
    } catch (const fi::StoreError&) {
    }
    ::usleep(1000);
  }
  if (!killed) WARN("the campaign finished before it could be killed");
  ok(fmt::format("campaign resume {} -q", db));  // at once: no wait for the dying runs
  CHECK(fi::test::export_table(db).rows.size() == 400);
}

TEST_CASE("campaign store: an unknown preset and SMs beyond the platform's are errors naming the campaign file") {
  TempDir d("store_messages");
  struct Case {
    std::string text, says;
  };
  const std::string wl = R"("workload": {"name": "vectorAdd", "launch": "fi16"}, "size": {"count": 2})";
  for (const Case& c : {Case{R"({"name": "x", "platform": {"preset": "nope"}, "targets": ["gpu.sched.*"], )" + wl + "}",
                             "platform.preset"},
                        Case{R"({"name": "x", "platform": {"preset": "flexgrip", "set": {"sm.count": 2}},
                                 "targets": ["gpu.sched.*", "gpu.sm5.regs"], )" + wl + "}",
                             "targets: gpu.sm5.regs: the platform has 2 SMs"}}) {
    write_file(d("c.json"), c.text);
    test::RunResult r = test::run_gpuvp(fmt::format("campaign check {}", d("c.json")));
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(d("c.json")) && Contains(c.says));
  }
}

TEST_CASE("campaign store: a fault list that cannot fit in the memory available is refused before it is drawn") {
  // /proc/meminfo saying 1000 kB available, in a mount namespace of its own (root only).
  if (::geteuid() != 0 || test::run_cmd("unshare -m true").status != 0) {
    WARN("needs root and unshare -m: skipped");
    return;
  }
  TempDir d("store_memory");
  write_file(d("meminfo"), "MemTotal: 2000 kB\nMemFree: 1000 kB\nMemAvailable: 1000 kB\n");
  write_file(d("c.json"), R"({"name": "big", "platform": {"preset": "flexgrip", "set": {"sm.count": 1}},
  "workload": {"name": "vectorAdd", "launch": "fi16"}, "targets": ["gpu.sm0.regs"], "size": {"count": 6000}})");
  // 6000 faults at about 200 bytes each: 1.2 MB, more than 1000 kB.
  test::RunResult r = test::run_cmd(fmt::format(
      "unshare -m sh -c 'mount --bind {} /proc/meminfo && exec {} campaign run {} --db {} -q'", d("meminfo"),
      GPUVP_BINARY, d("c.json"), d("c.db")));
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(d("c.json")) && Contains("size.count = 6000") && Contains("MemAvailable") &&
                        Contains("0 MB available"));
  CHECK_FALSE(fs::exists(d("c.db")));
}

TEST_CASE("campaign store: report and export of a store whose writer is at work see the runs still in its WAL") {
  TempDir d("store_live_wal");
  const std::string db = finished_store(d, 4);
  sql(db, "DELETE FROM runs WHERE fault_id = 3");
  // A writer that has committed a run to the WAL and not yet into the file (still connected).
  SQLite::Database writer(db, SQLite::OPEN_READWRITE);
  writer.exec("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0");
  writer.exec("INSERT INTO runs (fault_id, outcome, due_kind, detail, end_ps, kernel_cycles, early_stop, host_ms, shard) VALUES (3, 'sdc', 'none', 'written by a live writer', 0, 0, 0, 0.0, 0)");
  REQUIRE(fs::exists(db + "-wal"));
  const auto rows = fi::test::export_table(db).rows;
  REQUIRE(rows.size() == 4);
  CHECK(rows.back().at("detail") == "written by a live writer");
  test::RunResult r = test::run_gpuvp("report " + db);
  CHECK_THAT(r.out, Contains("Runs: 4 of 4 done"));
}
