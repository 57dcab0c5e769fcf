#pragma once
// `gpuvp campaign run|resume|export` and `gpuvp report`: a campaign file becomes a golden run, a
// fault list and a result store; runs are committed as they complete, with a live progress line.
#include <optional>
#include <string>

namespace gpuvp::fi {

struct CampaignOptions {
  std::string db;              // run: the store to create ("" = the campaign file's stem + ".db")
  unsigned workers = 0;        // 0: the campaign file's, else the number of CPUs
  bool quiet = false;          // no progress output
};

// Exit status: 0 done; errors throw (CampaignError, StoreError, ConfigError: the CLI prints them).
int campaign_run(const std::string& file, const CampaignOptions& opt);
int campaign_resume(const std::string& db, const CampaignOptions& opt);
int campaign_export(const std::string& db, const std::string& csv, const std::string& json);
int campaign_report(const std::string& db, std::optional<double> raw_fit_per_bit);

}  // namespace gpuvp::fi
