#include "faultinj/store.h"

#include "faultinj/metrics.h"

#include "platform/config/json_text.h"
#include "platform/text.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>
#include <cstring>
#include <ctime>
#include <iterator>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

namespace gpuvp::fi {

namespace {

constexpr int kApplicationId = 0x47504649;  // "GPFI": a gpuvp fault-injection campaign

constexpr const char* kSchema = R"(
CREATE TABLE campaign (name TEXT NOT NULL, file TEXT NOT NULL, file_hash TEXT NOT NULL, seed INTEGER NOT NULL,
                       build_id TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE golden (id INTEGER PRIMARY KEY CHECK (id = 1), start_ps INTEGER NOT NULL, end_ps INTEGER NOT NULL,
                     sim_end_ps INTEGER NOT NULL, output_hash TEXT NOT NULL, output_bytes INTEGER NOT NULL,
                     kernel_cycles INTEGER NOT NULL, host_seconds REAL NOT NULL, state_bits INTEGER NOT NULL,
                     phases TEXT NOT NULL);
CREATE TABLE faults (id INTEGER PRIMARY KEY, target TEXT NOT NULL, idx INTEGER NOT NULL, bit INTEGER NOT NULL,
                     nbits INTEGER NOT NULL, mask INTEGER NOT NULL, model TEXT NOT NULL, duration TEXT NOT NULL,
                     hold_ps INTEGER NOT NULL, "trigger" TEXT NOT NULL, time_ps INTEGER NOT NULL,
                     event TEXT NOT NULL, count INTEGER NOT NULL);
CREATE TABLE runs (fault_id INTEGER PRIMARY KEY REFERENCES faults(id), outcome TEXT NOT NULL,
                   due_kind TEXT NOT NULL, detail TEXT NOT NULL, end_ps INTEGER NOT NULL,
                   kernel_cycles INTEGER NOT NULL, early_stop INTEGER NOT NULL, host_ms REAL NOT NULL,
                   shard INTEGER NOT NULL DEFAULT 0, kernel TEXT NOT NULL DEFAULT '',
                   inst_class TEXT NOT NULL DEFAULT '', reg_warp INTEGER NOT NULL DEFAULT -1,
                   reg_lane INTEGER NOT NULL DEFAULT -1, reg_name TEXT NOT NULL DEFAULT '');
CREATE TABLE shard (id INTEGER PRIMARY KEY CHECK (id = 1), idx INTEGER NOT NULL, count INTEGER NOT NULL,
                    full_fault_count INTEGER NOT NULL, fault_list_hash TEXT NOT NULL, missing TEXT NOT NULL);
)";

constexpr const char* kFaultColumns =
    R"(f.id, f.target, f.idx, f.bit, f.nbits, f.mask, f.model, f.duration, f.hold_ps, f."trigger", f.time_ps,
       f.event, f.count)";
#define GPUVP_RUN_COLUMNS "r.fault_id, r.outcome, r.due_kind, r.detail, r.end_ps, r.kernel_cycles, r.early_stop, r.host_ms, r.shard, "
constexpr const char* kRunColumns = GPUVP_RUN_COLUMNS "r.kernel, r.inst_class, r.reg_warp, r.reg_lane, r.reg_name";
// Stores written before the register columns, and before the per-kernel columns: read with them empty.
constexpr const char* kKernelRunColumns = GPUVP_RUN_COLUMNS "r.kernel, r.inst_class, -1, -1, ''";
constexpr const char* kOldRunColumns = GPUVP_RUN_COLUMNS "'', '', -1, -1, ''";
#undef GPUVP_RUN_COLUMNS

bool has_run_column(SQLite::Database& db, const char* name) {
  SQLite::Statement q(db, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = ?");
  q.bind(1, name);
  return q.executeStep() && q.getColumn(0).getInt() > 0;
}
bool has_run_context(SQLite::Database& db) { return has_run_column(db, "kernel"); }
const char* run_columns(SQLite::Database& db) {
  if (has_run_column(db, "reg_name")) return kRunColumns;
  return has_run_context(db) ? kKernelRunColumns : kOldRunColumns;
}

int64_t i64(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t u64(const SQLite::Column& c) { return static_cast<uint64_t>(c.getInt64()); }
// Text read back is valid UTF-8 whatever the file holds (a crafted or damaged store): it goes on to
// JSON, CSV, HTML and terminals.
std::string text(const SQLite::Column& c) { return valid_utf8(c.getString()); }

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void configure(SQLite::Database& db) {
  db.setBusyTimeout(10000);
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("PRAGMA synchronous=NORMAL");
  db.exec("PRAGMA foreign_keys=ON");
}

// What is wrong with an opened file, or "" if it is a campaign database this build reads.
std::string check_database(SQLite::Database& db) {
  const std::string integrity = db.execAndGet("PRAGMA quick_check(1)").getString();
  if (integrity != "ok") return "corrupt (" + integrity + ")";
  const int app = db.execAndGet("PRAGMA application_id").getInt();
  if (app != kApplicationId) return "not a gpuvp campaign database";
  const int version = db.execAndGet("PRAGMA user_version").getInt();
  if (version != Store::kSchemaVersion)
    return fmt::format("schema version {}; this build reads version {}", version, Store::kSchemaVersion);
  return "";
}

Fault fault_of(SQLite::Statement& q, int c) {
  Fault f;
  f.id = u64(q.getColumn(c));
  f.target = text(q.getColumn(c + 1));
  f.index = u64(q.getColumn(c + 2));
  f.bit = static_cast<unsigned>(q.getColumn(c + 3).getInt());
  f.nbits = static_cast<unsigned>(q.getColumn(c + 4).getInt());
  f.mask = u64(q.getColumn(c + 5));
  f.model = parse_fault_model(q.getColumn(c + 6).getString());
  f.duration = parse_duration(q.getColumn(c + 7).getString());
  f.hold_ps = u64(q.getColumn(c + 8));
  f.trigger = q.getColumn(c + 9).getString() == "event" ? TriggerKind::Event : TriggerKind::Time;
  f.time_ps = u64(q.getColumn(c + 10));
  f.event = text(q.getColumn(c + 11));
  f.count = u64(q.getColumn(c + 12));
  return f;
}

RunRecord run_of(SQLite::Statement& q, int c) {
  RunRecord r;
  r.fault_id = u64(q.getColumn(c));
  r.outcome = parse_outcome(q.getColumn(c + 1).getString());
  r.due_kind = parse_due_kind(q.getColumn(c + 2).getString());
  r.detail = text(q.getColumn(c + 3));
  r.end_ps = u64(q.getColumn(c + 4));
  r.kernel_cycles = u64(q.getColumn(c + 5));
  r.early_stop = q.getColumn(c + 6).getInt() != 0;
  r.host_ms = q.getColumn(c + 7).getDouble();
  r.shard = q.getColumn(c + 8).getInt();
  r.kernel = text(q.getColumn(c + 9));
  r.inst_class = text(q.getColumn(c + 10));
  r.reg_warp = q.getColumn(c + 11).getInt();
  r.reg_lane = q.getColumn(c + 12).getInt();
  r.reg_name = text(q.getColumn(c + 13));
  return r;
}

void bind_fault(SQLite::Statement& q, const Fault& f) {
  SQLite::bind(q, i64(f.id), f.target, i64(f.index), static_cast<int64_t>(f.bit), static_cast<int64_t>(f.nbits),
               i64(f.mask), to_string(f.model), to_string(f.duration), i64(f.hold_ps),
               f.trigger == TriggerKind::Event ? "event" : "time", i64(f.time_ps), f.event, i64(f.count));
}

constexpr const char* kInsertRun =
    "INSERT INTO runs (fault_id, outcome, due_kind, detail, end_ps, kernel_cycles, early_stop, "
    "host_ms, shard, kernel, inst_class, reg_warp, reg_lane, reg_name) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

void exec_insert_run(SQLite::Statement& q, const std::string& path, const RunRecord& r) {
  q.tryReset();  // its result is the last step's error (a refused run before this one), already reported
  SQLite::bind(q, i64(r.fault_id), to_string(r.outcome), to_string(r.due_kind), r.detail, i64(r.end_ps),
               i64(r.kernel_cycles), r.early_stop ? 1 : 0, r.host_ms, r.shard, r.kernel, r.inst_class, r.reg_warp,
               r.reg_lane, r.reg_name);
  try {
    q.exec();
  } catch (const SQLite::Exception& e) {
    const int code = e.getExtendedErrorCode();
    if (code == SQLITE_CONSTRAINT_PRIMARYKEY)
      throw StoreError(fmt::format("{}: fault {} already has a run", path, r.fault_id));
    if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
      throw StoreError(fmt::format("{}: run of fault {}, which is not in the fault list", path, r.fault_id));
    throw StoreError(fmt::format("{}: cannot add the run of fault {}: {}", path, r.fault_id, e.what()));
  }
}

bool has_table(SQLite::Database& db, const char* name) {
  SQLite::Statement q(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  q.bind(1, name);
  return q.executeStep();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

}  // namespace

Store::Store(std::string path, std::unique_ptr<SQLite::Database> db) : path_(std::move(path)), db_(std::move(db)) {}
Store::Store(Store&&) noexcept = default;
// The statement must be finalized before its connection closes, whatever the order of the members.
Store& Store::operator=(Store&& o) noexcept {
  if (this == &o) return *this;
  close();
  path_ = std::move(o.path_);
  db_ = std::move(o.db_);
  insert_run_ = std::move(o.insert_run_);
  return *this;
}
Store::~Store() = default;

void Store::close() {
  insert_run_.reset();
  db_.reset();
}

SQLite::Database& Store::db() const {
  if (!db_) throw StoreError(path_ + ": store is closed");
  return *db_;
}

Store Store::create(const std::string& path, const CampaignInfo& info) {
  if (std::filesystem::exists(path)) throw StoreError(path + ": already exists; a new campaign needs a new file");
  // A -wal or -shm file without its database is what a killed campaign leaves when its store is deleted;
  // it belongs to no database any more and must not be opened with the new one.
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    std::error_code ec;
    std::filesystem::remove(path + suffix, ec);
  }
  try {
    auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    configure(*db);
    SQLite::Transaction tx(*db);
    db->exec(kSchema);
    db->exec(fmt::format("PRAGMA application_id={}; PRAGMA user_version={}", kApplicationId, kSchemaVersion));
    SQLite::Statement q(*db, "INSERT INTO campaign VALUES (?, ?, ?, ?, ?, ?)");
    SQLite::bind(q, info.name, info.file_text, info.file_hash, i64(info.seed), info.build_id,
                 info.created.empty() ? now_utc() : info.created);
    q.exec();
    tx.commit();
    return Store(path, std::move(db));
  } catch (const SQLite::Exception& e) {
    throw StoreError(fmt::format("{}: cannot create: {}", path, e.what()));
  }
}

namespace {

// Opens `name` (a path or a URI) with `flags` (SQLite::OPEN_*): "" when it is a
// campaign database this build reads, else what is wrong.
std::string try_open(const std::string& name, int flags, std::unique_ptr<SQLite::Database>& db) {
  try {
    db = std::make_unique<SQLite::Database>(name, flags);
    db->setBusyTimeout(10000);
    return check_database(*db);
  } catch (const SQLite::Exception& e) {
    db.reset();
    return fmt::format("not a readable SQLite database ({})", e.what());
  }
}

void require_regular_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw StoreError(path + ": no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw StoreError(path + ": not a regular file");
}

// A URI naming `path` for SQLite (percent-encoding what a URI cannot hold as is).
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string())
    uri += std::isalnum(c) || std::strchr("/-_.~", c) ? std::string(1, char(c)) : fmt::format("%{:02X}", c);
  return uri;
}

}  // namespace

Store Store::open(const std::string& path) {
  require_regular_file(path);
  std::unique_ptr<SQLite::Database> db;
  std::string wrong = try_open(path, SQLite::OPEN_READWRITE, db);
  if (!wrong.empty()) throw StoreError(path + ": " + wrong);
  try {
    configure(*db);
    // Stores written before the per-kernel columns get them (empty for the runs they hold).
    if (!has_run_context(*db))
      db->exec("ALTER TABLE runs ADD COLUMN kernel TEXT NOT NULL DEFAULT ''; "
               "ALTER TABLE runs ADD COLUMN inst_class TEXT NOT NULL DEFAULT ''");
    if (!has_run_column(*db, "reg_name"))
      db->exec("ALTER TABLE runs ADD COLUMN reg_warp INTEGER NOT NULL DEFAULT -1; "
               "ALTER TABLE runs ADD COLUMN reg_lane INTEGER NOT NULL DEFAULT -1; "
               "ALTER TABLE runs ADD COLUMN reg_name TEXT NOT NULL DEFAULT ''");
  } catch (const SQLite::Exception& e) {
    throw StoreError(fmt::format("{}: cannot open for writing ({})", path, e.what()));
  }
  return Store(path, std::move(db));
}

// A WAL-mode database is read through its -shm file, which a read-only connection creates (with a
// -wal file) and leaves behind, and cannot create in a read-only folder. Without a -wal file no writer
// is at work and everything is in the file itself: read it as immutable, touching nothing. With one, a
// writer may be running: read through the WAL, or as immutable (its last runs unseen) where the -shm
// file cannot be made.
Store Store::open_read_only(const std::string& path) {
  require_regular_file(path);
  const std::string immutable = file_uri(path) + "?immutable=1";
  std::unique_ptr<SQLite::Database> db;
  std::error_code ec;
  std::string wrong;
  if (!std::filesystem::exists(path + "-wal", ec)) {
    wrong = try_open(immutable, SQLite::OPEN_READONLY | SQLite::OPEN_URI, db);
  } else {
    wrong = try_open(path, SQLite::OPEN_READONLY, db);
    if (!wrong.empty() && !db) wrong = try_open(immutable, SQLite::OPEN_READONLY | SQLite::OPEN_URI, db);
  }
  if (!wrong.empty()) throw StoreError(path + ": " + wrong);
  return Store(path, std::move(db));
}

CampaignInfo Store::campaign() const {
  SQLite::Statement q(db(), "SELECT name, file, file_hash, seed, build_id, created FROM campaign");
  if (!q.executeStep()) throw StoreError(path_ + ": no campaign row");
  return {text(q.getColumn(0)), text(q.getColumn(1)), text(q.getColumn(2)),
          u64(q.getColumn(3)),   text(q.getColumn(4)), text(q.getColumn(5))};
}

void Store::set_golden(const GoldenRecord& g) {
  SQLite::Statement q(db(), "INSERT OR REPLACE INTO golden VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  SQLite::bind(q, i64(g.start_ps), i64(g.end_ps), i64(g.sim_end_ps), g.output_hash, i64(g.output_bytes),
               i64(g.kernel_cycles), g.host_seconds, i64(g.state_bits), g.phases_json);
  q.exec();
}

std::optional<GoldenRecord> Store::golden() const {
  SQLite::Statement q(db(), "SELECT start_ps, end_ps, sim_end_ps, output_hash, output_bytes, kernel_cycles, "
                            "host_seconds, state_bits, phases FROM golden");
  if (!q.executeStep()) return std::nullopt;
  return GoldenRecord{u64(q.getColumn(0)),        u64(q.getColumn(1)),     u64(q.getColumn(2)),
                      text(q.getColumn(3)),       u64(q.getColumn(4)),     u64(q.getColumn(5)),
                      q.getColumn(6).getDouble(), u64(q.getColumn(7)),     text(q.getColumn(8))};
}

void Store::add_faults(const std::vector<Fault>& faults) {
  try {
    SQLite::Transaction tx(db());
    SQLite::Statement q(db(), "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const Fault& f : faults) {
      bind_fault(q, f);
      q.exec();
      q.reset();
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw StoreError(fmt::format("{}: cannot add the fault list: {}", path_, e.what()));
  }
}

std::vector<Fault> Store::faults() const {
  SQLite::Statement q(db(), fmt::format("SELECT {} FROM faults f ORDER BY f.id", kFaultColumns));
  std::vector<Fault> out;
  out.reserve(fault_count());
  while (q.executeStep()) out.push_back(fault_of(q, 0));
  return out;
}

uint64_t Store::fault_count() const { return u64(db().execAndGet("SELECT count(*) FROM faults")); }

// A single statement in autocommit mode is its own transaction: it is durable when add_run returns.
void Store::add_run(const RunRecord& r) { insert_run(r); }

void Store::add_runs(const std::vector<RunRecord>& runs) {
  SQLite::Transaction tx(db());
  for (const RunRecord& r : runs) insert_run(r);
  tx.commit();
}

void Store::insert_run(const RunRecord& r) {
  if (!insert_run_) insert_run_ = std::make_unique<SQLite::Statement>(db(), kInsertRun);
  exec_insert_run(*insert_run_, path_, r);
}

// Version 1 stores written before sharding have no shard table: it is created when first set.
void Store::set_shard(const ShardInfo& s) {
  db().exec("CREATE TABLE IF NOT EXISTS shard (id INTEGER PRIMARY KEY CHECK (id = 1), idx INTEGER NOT NULL, "
            "count INTEGER NOT NULL, full_fault_count INTEGER NOT NULL, fault_list_hash TEXT NOT NULL, "
            "missing TEXT NOT NULL)");
  SQLite::Statement q(db(), "INSERT OR REPLACE INTO shard VALUES (1, ?, ?, ?, ?, ?)");
  SQLite::bind(q, static_cast<int64_t>(s.index), static_cast<int64_t>(s.count), i64(s.full_fault_count),
               s.fault_list_hash, s.missing);
  q.exec();
}

std::optional<ShardInfo> Store::shard() const {
  if (!has_table(db(), "shard")) return std::nullopt;
  SQLite::Statement q(db(), "SELECT idx, count, full_fault_count, fault_list_hash, missing FROM shard");
  if (!q.executeStep()) return std::nullopt;
  const int64_t index = q.getColumn(0).getInt64(), count = q.getColumn(1).getInt64();
  if (count < 1 || count > kMaxShards)
    throw StoreError(fmt::format("{}: shard.count = {}: expected 1 to {}", path_, count, kMaxShards));
  if (index < 0 || index > count)
    throw StoreError(fmt::format("{}: shard.idx = {}: expected 0 to shard.count = {}", path_, index, count));
  return ShardInfo{static_cast<unsigned>(index), static_cast<unsigned>(count), u64(q.getColumn(2)),
                   text(q.getColumn(3)), text(q.getColumn(4))};
}

void Store::set_meta(const std::string& key, const std::string& value) {
  db().exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  SQLite::Statement q(db(), "INSERT OR REPLACE INTO meta VALUES (?, ?)");
  SQLite::bind(q, key, value);
  q.exec();
}

std::optional<std::string> Store::meta(const std::string& key) const {
  if (!has_table(db(), "meta")) return std::nullopt;
  SQLite::Statement q(db(), "SELECT value FROM meta WHERE key = ?");
  q.bind(1, key);
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getString();
}

// FNV-1a, 64 bits, over one text line per fault: the same on every machine. Line by line, never the
// whole text at once (10 M faults would make it 600 MB).
std::string fault_list_hash(const std::vector<Fault>& faults) {
  uint64_t h = 0xcbf29ce484222325ull;
  fmt::memory_buffer line;
  for (const Fault& f : faults) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", f.id, f.target, f.index, f.bit,
                   f.nbits, f.mask, to_string(f.model), to_string(f.duration), f.hold_ps,
                   f.trigger == TriggerKind::Event ? "event" : "time", f.time_ps, f.event, f.count);
    for (char c : line) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

std::vector<RunRecord> Store::runs() const {
  SQLite::Statement q(db(), fmt::format("SELECT {} FROM runs r ORDER BY r.fault_id", run_columns(db())));
  std::vector<RunRecord> out;
  out.reserve(run_count());
  while (q.executeStep()) out.push_back(run_of(q, 0));
  return out;
}

uint64_t Store::run_count() const { return u64(db().execAndGet("SELECT count(*) FROM runs")); }

std::optional<uint64_t> Store::run_without_fault() const {
  SQLite::Statement q(db(), "SELECT r.fault_id FROM runs r LEFT JOIN faults f ON f.id = r.fault_id "
                            "WHERE f.id IS NULL LIMIT 1");
  if (!q.executeStep()) return std::nullopt;
  return u64(q.getColumn(0));
}

std::vector<Fault> Store::pending_faults() const {
  SQLite::Statement q(db(), fmt::format("SELECT {} FROM faults f LEFT JOIN runs r ON r.fault_id = f.id "
                                        "WHERE r.fault_id IS NULL ORDER BY f.id", kFaultColumns));
  std::vector<Fault> out;
  out.reserve(pending_count());  // growing by doubling would hold two lists at once
  while (q.executeStep()) out.push_back(fault_of(q, 0));
  return out;
}

uint64_t Store::pending_count() const {
  return u64(db().execAndGet("SELECT count(*) FROM faults f LEFT JOIN runs r ON r.fault_id = f.id "
                             "WHERE r.fault_id IS NULL"));
}

std::vector<uint64_t> Store::pending_fault_ids() const {
  SQLite::Statement q(db(), "SELECT f.id FROM faults f LEFT JOIN runs r ON r.fault_id = f.id "
                            "WHERE r.fault_id IS NULL ORDER BY f.id");
  std::vector<uint64_t> out;
  while (q.executeStep()) out.push_back(u64(q.getColumn(0)));
  return out;
}

std::vector<std::pair<Fault, RunRecord>> Store::joined() const {
  SQLite::Statement q(db(), fmt::format("SELECT {}, {} FROM faults f JOIN runs r ON r.fault_id = f.id ORDER BY f.id",
                                        kFaultColumns, run_columns(db())));
  std::vector<std::pair<Fault, RunRecord>> out;
  while (q.executeStep()) out.emplace_back(fault_of(q, 0), run_of(q, 13));
  return out;
}

void Store::export_csv(std::ostream& out) const {
  out << "id,target,idx,bit,nbits,mask,model,duration,hold_ps,trigger,time_ps,event,count,"
         "outcome,due_kind,detail,end_ps,kernel_cycles,early_stop,host_ms,shard,structure,kernel,inst_class,"
         "warp,lane,ptx_reg\n";
  auto num = [](int v) { return v < 0 ? std::string() : std::to_string(v); };  // empty: not a register word
  for (const auto& [f, r] : joined())
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", f.id,
                       csv_field(f.target),
                       f.index, f.bit, f.nbits, f.mask, to_string(f.model), to_string(f.duration), f.hold_ps,
                       f.trigger == TriggerKind::Event ? "event" : "time", f.time_ps, csv_field(f.event), f.count,
                       to_string(r.outcome), to_string(r.due_kind), csv_field(r.detail), r.end_ps,
                       r.kernel_cycles, r.early_stop ? 1 : 0, r.host_ms, r.shard, csv_field(structure_of(f.target)),
                       csv_field(r.kernel), csv_field(r.inst_class), num(r.reg_warp), num(r.reg_lane),
                       csv_field(r.reg_name));
}

void Store::export_json(std::ostream& out, bool ascii) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [f, r] : joined())
    rows.push_back({{"id", f.id},
                    {"target", f.target},
                    {"idx", f.index},
                    {"bit", f.bit},
                    {"nbits", f.nbits},
                    {"mask", f.mask},
                    {"model", to_string(f.model)},
                    {"duration", to_string(f.duration)},
                    {"hold_ps", f.hold_ps},
                    {"trigger", f.trigger == TriggerKind::Event ? "event" : "time"},
                    {"time_ps", f.time_ps},
                    {"event", f.event},
                    {"count", f.count},
                    {"outcome", to_string(r.outcome)},
                    {"due_kind", to_string(r.due_kind)},
                    {"detail", r.detail},
                    {"end_ps", r.end_ps},
                    {"kernel_cycles", r.kernel_cycles},
                    {"early_stop", r.early_stop},
                    {"host_ms", r.host_ms},
                    {"shard", r.shard},
                    {"structure", structure_of(f.target)},
                    {"kernel", r.kernel},
                    {"inst_class", r.inst_class},
                    {"warp", r.reg_warp < 0 ? nlohmann::json() : nlohmann::json(r.reg_warp)},
                    {"lane", r.reg_lane < 0 ? nlohmann::json() : nlohmann::json(r.reg_lane)},
                    {"ptx_reg", r.reg_name.empty() ? nlohmann::json() : nlohmann::json(r.reg_name)}});
  out << (ascii ? json_dump_ascii(rows, 1) : json_dump(rows, 1)) << "\n";
}

}  // namespace gpuvp::fi
