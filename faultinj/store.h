#pragma once
// The result store of one campaign: one SQLite database (WAL mode) holding the campaign file, the
// golden run, the fault list and every finished run. A run is committed as soon as it is added, so a
// campaign killed half-way loses at most the runs in flight and resumes from pending_fault_ids().
// Schema: docs/campaigns.md. Unsigned 64-bit values are stored as their 64-bit two's-complement pattern.
//
// fork(): a SQLite connection must never cross a fork. Call close() before forking and open the
// file again (Store::open) in whichever process needs it afterwards.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "faultinj/fault.h"

namespace SQLite {
class Database;
class Statement;
}

namespace gpuvp::fi {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CampaignInfo {
  std::string name;
  std::string file_text;  // the campaign file as given
  std::string file_hash;  // of file_text, as the caller computes it
  uint64_t seed = 1;
  std::string build_id;
  std::string created;  // ISO 8601 UTC; create() fills it in when empty
};

// Which part of a campaign's fault list a store holds (docs/campaigns.md, "Sharding"). index 0: the
// whole list (one process, or a merge of `count` shards); index I in 1..count: the faults whose
// id % count == I - 1. Stores written before sharding have no such record.
struct ShardInfo {
  unsigned index = 0;
  unsigned count = 1;
  uint64_t full_fault_count = 0;   // faults in the campaign's whole fault list
  std::string fault_list_hash;     // of the whole fault list (fault_list_hash())
  std::string missing;             // merges: the shards that were missing ("2, 4"), else ""
};

// A hash of a fault list, every field of every fault in order: equal lists, equal hashes.
std::string fault_list_hash(const std::vector<Fault>& faults);

struct GoldenRecord {
  uint64_t start_ps = 0;     // execution window: scheduler leaves IDLE
  uint64_t end_ps = 0;       // ... to kernel_done
  uint64_t sim_end_ps = 0;   // end of the simulation
  std::string output_hash;
  uint64_t output_bytes = 0;
  uint64_t kernel_cycles = 0;
  double host_seconds = 0;
  uint64_t state_bits = 0;   // bits of the campaign's targets (after include/exclude): the FIT bit count
  std::string phases_json = "[]";  // scheduler phases (JSON text)
};

struct RunRecord {
  uint64_t fault_id = 0;
  Outcome outcome = Outcome::Masked;
  DueKind due_kind = DueKind::None;
  std::string detail;  // first divergence, error message, ...
  uint64_t end_ps = 0;
  uint64_t kernel_cycles = 0;
  bool early_stop = false;
  double host_ms = 0;
  int shard = 0;
  // Per-kernel and per-class AVF (docs/campaigns.md, "Per kernel and per instruction class"): the launch
  // running at the fault's instant ("launch 1 (scale)"; "" when none or several instants), and for an
  // instruction-output fault the class of the faulted instruction ("fp32"; "" for other faults).
  std::string kernel, inst_class;
  // A register-file fault (gpu.smN.regs): the warp slot, lane and PTX register of the word in the golden
  // run at the fault's instant (reg_map.h); -1, -1, "" for other faults and unallocated words.
  int reg_warp = -1, reg_lane = -1;
  std::string reg_name;
};

class Store {
 public:
  static constexpr int kSchemaVersion = 1;

  // A new database; refuses a path that exists.
  static Store create(const std::string& path, const CampaignInfo& info);
  // An existing database; a missing, non-SQLite, corrupt or foreign (other schema, other version)
  // file is a StoreError naming the file and what is wrong.
  static Store open(const std::string& path);
  // The same, read-only: writes nothing (no pragma, no -wal/-shm where they cannot be made), so a
  // store on read-only media or owned by another user can be read. Any write throws.
  static Store open_read_only(const std::string& path);
  // Shard counts a store may hold (parse_shard reads at most 6 digits).
  static constexpr unsigned kMaxShards = 999999;

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  // Closes the connection (see fork() above); any later call but close() throws StoreError.
  void close();
  bool is_open() const { return db_ != nullptr; }
  const std::string& path() const { return path_; }

  CampaignInfo campaign() const;
  void set_golden(const GoldenRecord& g);  // replaces the previous one
  void set_shard(const ShardInfo& s);      // replaces the previous one
  // None for stores written before sharding; a row out of range (count 0 or above kMaxShards, index
  // above count) is a StoreError naming the file and the value.
  std::optional<ShardInfo> shard() const;
  std::optional<GoldenRecord> golden() const;

  void add_faults(const std::vector<Fault>& faults);  // one transaction; a repeated id is an error
  std::vector<Fault> faults() const;                  // in id order
  uint64_t fault_count() const;

  void add_run(const RunRecord& r);  // committed at once; a second run of a fault is an error
  // One transaction: a campaign commits what arrived together at once (a commit per run cost more
  // than a pruned run itself).
  void add_runs(const std::vector<RunRecord>& runs);
  std::vector<RunRecord> runs() const;  // in fault id order
  uint64_t run_count() const;
  // A run whose fault is not in the fault list (a damaged store): its fault id, else none.
  std::optional<uint64_t> run_without_fault() const;

  // Small key/value facts about the campaign (table `meta`, made when first set, so stores written
  // before it stay readable): "base_dir", the campaign file's folder; "complete", "1" when the store
  // was created with its whole fault list in one step (an empty shard is then finished, not lost).
  void set_meta(const std::string& key, const std::string& value);
  std::optional<std::string> meta(const std::string& key) const;
  std::vector<uint64_t> pending_fault_ids() const;  // faults without a run, in id order
  uint64_t pending_count() const;
  std::vector<Fault> pending_faults() const;  // faults without a run, in id order

  // Every fault with a run, fault and run columns joined, in id order.
  void export_csv(std::ostream& out) const;
  void export_json(std::ostream& out, bool ascii = false) const;  // ascii: for a terminal (\uXXXX)

 private:
  Store(std::string path, std::unique_ptr<SQLite::Database> db);
  SQLite::Database& db() const;
  std::vector<std::pair<Fault, RunRecord>> joined() const;
  void insert_run(const RunRecord& r);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
  // The run insert, prepared once per connection (parsing it again for every run was most of the
  // cost of storing one); declared after db_ so that it is finalized before the connection closes.
  std::unique_ptr<SQLite::Statement> insert_run_;
};

}  // namespace gpuvp::fi
