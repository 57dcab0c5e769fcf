// Store: round trips, run bookkeeping, exports, and refusal of files that are not campaign databases.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "faultinj/store.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp::fi;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using gpuvp::fi::test::TempDir;

namespace {
CampaignInfo info() { return {"vectorAdd", "{\"name\": \"vectorAdd\"}", "abc123", 42, "build-1", ""}; }

std::vector<Fault> some_faults(uint64_t n) {
  std::vector<Fault> v;
  for (uint64_t i = 0; i < n; ++i) {
    Fault f;
    f.id = i;
    f.target = "gpu.sched.num_blocks[" + std::to_string(i % 4) + "]";
    f.bit = static_cast<unsigned>(i % 8);
    f.time_ps = 1000 * i;
    v.push_back(f);
  }
  return v;
}

RunRecord run(uint64_t id, Outcome o, const std::string& detail = "") {
  RunRecord r;
  r.fault_id = id;
  r.outcome = o;
  r.detail = detail;
  r.end_ps = 5000 + id;
  r.kernel_cycles = 77;
  r.host_ms = 1.5;
  return r;
}
}  // namespace

TEST_CASE("store: create, reopen and read the campaign back") {
  TempDir d("create");
  {
    Store s = Store::create(d("c.db"), info());
    CHECK(s.campaign().seed == 42);
  }
  CHECK_THROWS_WITH(Store::create(d("c.db"), info()), Contains("c.db: already exists"));
  Store s = Store::open(d("c.db"));
  CampaignInfo c = s.campaign();
  CHECK(c.name == "vectorAdd");
  CHECK(c.file_hash == "abc123");
  CHECK(c.build_id == "build-1");
  CHECK(c.created.size() == 20);  // 2026-01-01T00:00:00Z
  SQLite::Database raw(d("c.db"));
  CHECK(raw.execAndGet("PRAGMA journal_mode").getString() == "wal");
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == Store::kSchemaVersion);
}

TEST_CASE("store: golden run round trip") {
  TempDir d("golden");
  Store s = Store::create(d("c.db"), info());
  CHECK_FALSE(s.golden());
  GoldenRecord g{100, 900, 1000, "h", 64, 80, 0.25, 4242, "[{\"phase\":\"dispatch\"}]"};
  s.set_golden(g);
  g.output_hash = "h2";
  s.set_golden(g);  // replaces
  auto back = s.golden();
  REQUIRE(back);
  CHECK(back->start_ps == 100);
  CHECK(back->end_ps == 900);
  CHECK(back->output_hash == "h2");
  CHECK(back->state_bits == 4242);
  CHECK(back->host_seconds == 0.25);
  CHECK(back->phases_json == g.phases_json);
}

TEST_CASE("store: faults round trip with every field") {
  TempDir d("faults");
  Store s = Store::create(d("c.db"), info());
  Fault f;
  f.id = 0;
  f.target = "gpu.gmem";
  f.index = 12345;
  f.bit = 63;
  f.nbits = 3;
  f.mask = ~uint64_t{0};
  f.model = FaultModel::XorMask;
  f.duration = Duration::Intermittent;
  f.hold_ps = 777;
  f.trigger = TriggerKind::Event;
  f.time_ps = uint64_t{1} << 62;
  f.event = "gpu.arb_gmem_rd.grant";
  f.count = 9;
  s.add_faults({f});
  auto back = s.faults();
  REQUIRE(back.size() == 1);
  const Fault& b = back[0];
  CHECK(b.target == f.target);
  CHECK(b.index == f.index);
  CHECK(b.bit == 63);
  CHECK(b.nbits == 3);
  CHECK(b.mask == f.mask);
  CHECK(b.model == FaultModel::XorMask);
  CHECK(b.duration == Duration::Intermittent);
  CHECK(b.hold_ps == 777);
  CHECK(b.trigger == TriggerKind::Event);
  CHECK(b.time_ps == f.time_ps);
  CHECK(b.event == f.event);
  CHECK(b.count == 9);
  CHECK_THROWS_AS(s.add_faults({f}), StoreError);  // repeated id
  CHECK(s.fault_count() == 1);                     // and nothing of that batch stored
}

TEST_CASE("store: runs, pending faults and duplicates") {
  TempDir d("runs");
  Store s = Store::create(d("c.db"), info());
  s.add_faults(some_faults(5));
  CHECK(s.pending_fault_ids() == std::vector<uint64_t>{0, 1, 2, 3, 4});
  RunRecord due = run(3, Outcome::DUE, "tlm error");
  due.due_kind = DueKind::Tlm;
  due.early_stop = true;
  due.shard = 2;
  s.add_run(due);
  s.add_run(run(1, Outcome::SDC));
  CHECK(s.pending_fault_ids() == std::vector<uint64_t>{0, 2, 4});
  CHECK_THROWS_WITH(s.add_run(run(1, Outcome::Masked)), Contains("fault 1 already has a run"));
  CHECK_THROWS_WITH(s.add_run(run(99, Outcome::Masked)), Contains("fault 99, which is not in the fault list"));
  auto runs = s.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].fault_id == 1);
  CHECK(runs[1].outcome == Outcome::DUE);
  CHECK(runs[1].due_kind == DueKind::Tlm);
  CHECK(runs[1].detail == "tlm error");
  CHECK(runs[1].early_stop);
  CHECK(runs[1].shard == 2);
  CHECK(runs[1].host_ms == 1.5);
  CHECK(runs[1].end_ps == 5003);
  // Committed at once: a second connection sees the runs while the first is still open.
  Store other = Store::open(d("c.db"));
  CHECK(other.run_count() == 2);
  other.add_run(run(0, Outcome::Masked));
  CHECK(s.pending_fault_ids() == std::vector<uint64_t>{2, 4});
}

TEST_CASE("store: close before fork, then every call is refused") {
  TempDir d("close");
  Store s = Store::create(d("c.db"), info());
  s.close();
  CHECK_FALSE(s.is_open());
  CHECK_THROWS_WITH(s.faults(), Contains("closed"));
  s.close();  // twice is fine
  CHECK(Store::open(d("c.db")).campaign().name == "vectorAdd");
}

TEST_CASE("store: CSV and JSON exports join faults and runs") {
  TempDir d("export");
  Store s = Store::create(d("c.db"), info());
  s.add_faults(some_faults(3));
  s.add_run(run(2, Outcome::SDC, "word 3: \"7\", expected 8"));
  s.add_run(run(0, Outcome::Masked));
  std::ostringstream csv;
  s.export_csv(csv);
  std::istringstream lines(csv.str());
  std::string header, row0, row2, extra;
  std::getline(lines, header);
  std::getline(lines, row0);
  std::getline(lines, row2);
  CHECK_FALSE(std::getline(lines, extra));
  CHECK(header.rfind("id,target,idx,bit,", 0) == 0);
  CHECK(row0 == "0,gpu.sched.num_blocks[0],0,0,1,0,bit_flip,transient,0,time,0,,0,masked,none,,5000,77,0,1.5,0,block scheduler,,,,,");  // no kernel, class, warp, lane, PTX register
  CHECK_THAT(row2, Contains("sdc,none,\"word 3: \"\"7\"\", expected 8\",5002"));
  std::ostringstream js;
  s.export_json(js);
  auto j = nlohmann::json::parse(js.str());
  REQUIRE(j.size() == 2);
  CHECK(j[1]["id"] == 2);
  CHECK(j[1]["time_ps"] == 2000);
  CHECK(j[1]["outcome"] == "sdc");
  CHECK(j[1]["detail"] == "word 3: \"7\", expected 8");
}

TEST_CASE("store: files that are not campaign databases are refused") {
  TempDir d("bad");
  CHECK_THROWS_WITH(Store::open(d("missing.db")), Contains("missing.db: no such file"));
  std::ofstream(d("text.db")) << "this is not a database, just some text that is long enough to matter\n";
  CHECK_THROWS_WITH(Store::open(d("text.db")), Contains("text.db: not a readable SQLite database"));
  std::ofstream(d("empty.db")).flush();
  CHECK_THROWS_WITH(Store::open(d("empty.db")), Contains("empty.db: not a gpuvp campaign database"));
  {
    SQLite::Database other(d("other.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE t (x INTEGER)");
  }
  CHECK_THROWS_WITH(Store::open(d("other.db")), Contains("other.db: not a gpuvp campaign database"));
  {
    Store s = Store::create(d("v2.db"), info());
  }
  {
    SQLite::Database raw(d("v2.db"), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA user_version=2");
  }
  CHECK_THROWS_WITH(Store::open(d("v2.db")), Contains("v2.db: schema version 2; this build reads version 1"));
}

TEST_CASE("store: a truncated copy is refused, not a crash") {
  TempDir d("truncated");
  {
    Store s = Store::create(d("c.db"), info());
    s.add_faults(some_faults(3000));
    for (uint64_t i = 0; i < 3000; i += 2) s.add_run(run(i, Outcome::Masked, std::string(40, 'x')));
    s.close();  // the last connection checkpoints the WAL into the file
  }
  const auto size = fs::file_size(d("c.db"));
  REQUIRE(size > 64 * 1024);
  fs::copy_file(d("c.db"), d("cut.db"));
  fs::resize_file(d("cut.db"), size / 2);
  CHECK_THROWS_AS(Store::open(d("cut.db")), StoreError);
  CHECK_THROWS_WITH(Store::open(d("cut.db")), Contains("cut.db: "));
}

TEST_CASE("store: a writer killed with SIGKILL loses nothing it added") {
  TempDir d("kill");
  Store s = Store::create(d("c.db"), info());
  s.add_faults(some_faults(10));
  s.close();  // no connection crosses the fork
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      Store child = Store::open(d("c.db"));
      for (uint64_t i = 0; i < 6; ++i) child.add_run(run(i, Outcome::Masked));
    } catch (...) {
      _exit(1);  // never run the parent's remaining tests in the child
    }
    raise(SIGKILL);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  Store after = Store::open(d("c.db"));
  CHECK(after.run_count() == 6);
  CHECK(after.pending_fault_ids() == std::vector<uint64_t>{6, 7, 8, 9});
}

TEST_CASE("store: a new store where a killed campaign's file was deleted ignores its leftover WAL") {
  // What a user does after kill -9: rm c.db, run again. The -wal and -shm files left beside it belong to
  // the deleted database (a test doing this met "corrupt" once); the new store starts without them.
  TempDir d("stale");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      Store child = Store::create(d("c.db"), info());
      child.add_faults(some_faults(400));
      for (uint64_t i = 0; i < 300; ++i) child.add_run(run(i, Outcome::Masked));
      raise(SIGKILL);  // with the connection open: the WAL stays
    } catch (...) {
    }
    _exit(1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(fs::exists(d("c.db-wal")));
  fs::remove(d("c.db"));
  {
    Store s = Store::create(d("c.db"), info());
    s.add_faults(some_faults(3));
    s.add_run(run(0, Outcome::SDC));
  }
  CHECK_FALSE(fs::exists(d("c.db-wal")));  // closed cleanly: checkpointed, and none of the old one left
  Store again = Store::open(d("c.db"));
  CHECK(again.run_count() == 1);
  CHECK(again.pending_fault_ids() == std::vector<uint64_t>{1, 2});
}
