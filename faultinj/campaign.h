#pragma once
// `gpuvp campaign run|resume|export` and `gpuvp report`: a campaign file becomes a golden run, a
// fault list and a result store; runs are committed as they complete, with a live progress line.
#include <optional>
#include <string>
#include <vector>

namespace gpuvp::fi {

struct CampaignOptions {
  std::string db;              // run: the store to create ("" = the campaign file's stem + ".db")
  unsigned workers = 0;        // 0: the campaign file's, else the number of CPUs
  bool quiet = false;          // no progress output
  std::string shard;           // run: "I/N" runs the I-th of N parts of the fault list ("" = all of it)
};

// "I/N" with 1 <= I <= N: {I, N}; anything else is a CampaignError naming --shard.
std::pair<unsigned, unsigned> parse_shard(const std::string& text);

// Exit status: 0 done; errors throw (CampaignError, StoreError, ConfigError: the CLI prints them).
int campaign_run(const std::string& file, const CampaignOptions& opt);
// Reads a campaign file, runs its golden run and draws its fault list, and says what a run would do;
// nothing is stored. Errors as campaign_run.
int campaign_check(const std::string& file);
int campaign_resume(const std::string& db, const CampaignOptions& opt);
int campaign_export(const std::string& db, const std::string& csv, const std::string& json);
// Merges shards of one campaign into a new store equal, run by run, to a single-process run;
// refuses shards of other campaigns, overlapping ones, missing ones and unfinished ones (the last
// two are merged anyway, and named, with allow_missing).
int campaign_merge(const std::string& out, const std::vector<std::string>& shards, bool allow_missing);
struct ReplayOptions {
  std::string vcd, timeline;      // waveforms (path without .vcd) and block timeline of the replayed run
  std::vector<std::string> logs;  // log levels, as --log gives them (gpu.sched=debug)
};
// Runs the faults `ids` of a store again, each from the start in its own process (same fault, instant
// and target; no early stop) and prints, for each, the recorded and the replayed outcome. Returns 0
// when every replay reproduces its recorded outcome (and DUE kind), 1 otherwise.
int campaign_replay(const std::string& db, const std::vector<uint64_t>& ids, const ReplayOptions& opt);

// The text report of each store; with `html` non-empty, one self-contained HTML page instead; with
// `json` non-empty ('-': standard output), a JSON array of json_report (report.h), one per store, instead.
int campaign_report(const std::vector<std::string>& dbs, std::optional<double> raw_fit_per_bit,
                    const std::string& html = "", const std::string& json = "");

}  // namespace gpuvp::fi
