#pragma once
// The text report of a campaign, from its store alone.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "faultinj/campaign_file.h"
#include "faultinj/metrics.h"
#include "faultinj/store.h"

namespace gpuvp::fi {

// Campaign name and configuration, golden figures, runs done / total, counts and AVF with 95 %
// Wilson intervals per outcome class (DUE by kind), per target and per structure, the study's MTBF
// for SDCs (exec time = the golden execution window) and, given a raw upset rate in FIT per bit,
// FIT and MTBF for SDCs and DUEs over the golden run's state bits.
std::string text_report(const Store& store, std::optional<double> raw_fit_per_bit);

// The pieces of the text report, shared with the HTML report (html_report.h) so that both print
// the same figures.
struct AvfText {
  std::string avf, lo, hi;  // percentages, two decimals: the AVF and its 95 % Wilson interval
};
AvfText avf_text(const ClassCounts& c, Outcome o);
// (sdc + tolerable) / injected: the SDC AVF when tolerable differences count as errors.
AvfText sdc_with_tolerable(const ClassCounts& c);
// The raw upset rate of FIT and MTBF in hours, and where it came from: --raw-fit, else the campaign
// file's raw_fit_per_bit, else kDefaultRawFitPerBit (named as a default).
struct RawRate {
  double fit_per_bit = kDefaultRawFitPerBit;
  std::string source;
};
RawRate raw_rate(const Store& store, std::optional<double> given);
AvfTables report_tables(const Store& store);
// Titles of the per-kernel and per-class tables (text and HTML alike).
constexpr const char* kPerKernelTitle = "Per kernel (the launch running at the fault's instant)";
constexpr const char* kPerRegTitle =
    "Per PTX register (register-file faults: the word's register in the golden run; .hi = upper half of its 64-bit slot)";
// Rate campaigns: runs and the mean number of faults a run received; "" for other stores.
std::string rate_text(const Store& store);
constexpr const char* kPerClassTitle = "Per instruction class (instruction-output faults: the faulted instruction's class)";
// Campaign, configuration, shard, golden run and runs done / total.
std::string report_header(const Store& store);
// The golden run's lifetimes (meta `lifetimes`, faultinj/lifetimes.h) beside the campaign's AVF: ACE
// AVF (live bit-time / total bit-time) per structure, per target and per kernel, the injected failure
// AVF (runs not masked / injected) of the same targets, the runs pruning recorded without running and
// the targets it could not prune. Empty for stores without it.
std::string lifetimes_text(const Store& store, const AvfTables& t);
// `gpuvp report --json`: the campaign's name, faults, runs, injected faults and failure AVF (runs not
// masked / injected, %) and, for a store with lifetimes, the ACE table of lifetimes_text (null otherwise):
// per structure, target and kernel the fault space's bits, live and total bit-time (ps) and ACE AVF %;
// per structure and target also the injected faults and failure AVF % of the same name, and `whole`
// (every word of the target, the whole window).
nlohmann::json json_report(const Store& store);
// For a campaign with size.exhaustive: says that its AVFs are exact (else empty).
std::string exhaustive_note(const Store& store);
// A time-triggered campaign's window (faults drawn from it only), else none (the execution window).
std::optional<WindowSpec> campaign_window(const Store& store);
// The study's MTBF with the flux of one fault per `window` (none: per execution window), then FIT and
// MTBF in hours; each figure says which exposure it used.
std::string mtbf_text(const ClassCounts& all, const std::optional<GoldenRecord>& g, const RawRate& raw,
                      const std::optional<WindowSpec>& window = std::nullopt);

}  // namespace gpuvp::fi
