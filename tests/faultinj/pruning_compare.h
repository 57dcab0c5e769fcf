#pragma once
// The pruning identity tests' comparison: the same fault list run with pruning (rows[1]) and without
// (rows[0]) must give every fault the same outcome and DUE kind; what pruning did on the way.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/temp_dir.h"

namespace gpuvp::fi::test {

// CI runs each identity test on a sparser list of the same structure (every kind of interval, fewer
// instants and drawn faults); bench/pruning_dense.sh sets GPUVP_PRUNING_DENSE=1 for the full lists (0
// for CI's), and each comparison then prints its counts.
inline const char* dense_setting() { return std::getenv("GPUVP_PRUNING_DENSE"); }
inline bool dense_lists() { return dense_setting() && std::string(dense_setting()) == "1"; }
template <class T>
T ci_or_dense(T ci, T dense) {
  return dense_lists() ? dense : ci;
}
// Whether the CI list keeps element j (a bit, a word) of a dense list at its k-th instant: one element
// in `every`, shifted by one every two instants, so that 2 x `every` consecutive instants still cover
// every element, each element meets instants of every phase, and two consecutive ones (faults in the
// same bit and interval share a run). The full lists keep them all.
inline bool kept(uint64_t k, uint64_t j, uint64_t every) { return dense_lists() || (k / 2 + j) % every == 0; }

struct Compared {
  size_t n = 0;                                 // faults
  size_t dead = 0, shared = 0, not_masked = 0;  // pruned as dead, sharing a run; not masked without pruning
};

inline Compared compare_runs(const std::vector<Row> rows[2]) {
  REQUIRE(rows[0].size() == rows[1].size());
  Compared c;
  c.n = rows[0].size();
  for (size_t i = 0; i < rows[0].size(); ++i) {
    const auto& on = rows[1][i];
    const auto& off = rows[0][i];
    INFO("fault " << on.at("id") << " " << on.at("target") << "[" << on.at("idx") << "] bit " << on.at("bit") << " mask " << on.at("mask") << " at "
                  << on.at("time_ps") << ": " << on.at("detail") << " / " << off.at("detail"));
    for (const char* col : {"id", "target", "idx", "bit", "mask", "time_ps", "outcome", "due_kind"}) CHECK(on.at(col) == off.at(col));
    c.dead += on.at("detail").rfind("pruned: dead", 0) == 0;
    c.shared += on.at("detail").rfind("pruned: same live", 0) == 0;
    c.not_masked += off.at("outcome") != "masked";
  }
  if (dense_setting())  // what the bench reports
    std::cout << fmt::format("  compared {} faults: {} pruned dead, {} sharing a run, {} not masked\n", c.n, c.dead,
                             c.shared, c.not_masked);
  return c;
}

// The golden run's window [from, to] in ps as `campaign check` prints it, for the campaign whose head
// (JSON text up to its targets) is `head`, checked on `target`.
inline std::pair<uint64_t, uint64_t> golden_window(const TempDir& d, const std::string& head, const std::string& target) {
  write_file(d("window-check.json"), head + fmt::format(R"("targets": ["{}"], "size": {{"count": 1}}}})", target));
  const auto r = gpuvp::test::run_gpuvp("campaign check " + d("window-check.json"));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("golden run ([0-9]+) to ([0-9]+) ps")));
  return {std::stoull(m[1].str()), std::stoull(m[2].str())};
}

// A run of `campaign` (JSON text without "pruning" and "early_stop") with pruning on and off: the
// exported rows of each. The reference run (pruning off, rows[0]) runs every fault to its end; with
// `early_stop` the pruned run stops a run whose state and timing equal the golden run's at a checkpoint,
// so the comparison holds early stop to the same outcomes as well. A reference run already made under
// `name` (an earlier call's on the same campaign) is read back, not run again.
inline void run_both(const TempDir& d, const std::string& name, const std::string& campaign, std::vector<Row> rows[2],
                     bool early_stop) {
  for (bool pruning : {true, false}) {
    const std::string n = fmt::format("{}-{}-{}", name, pruning, pruning && early_stop);
    if (!pruning && std::filesystem::exists(d(n + ".db"))) {
      rows[0] = export_table(d(n + ".db")).rows;
      continue;
    }
    write_file(d(n + ".json"), campaign + fmt::format(R"(, "pruning": {}, "early_stop": {}}})", pruning, pruning && early_stop));
    const auto r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} --db {} -q", d(n + ".json"), d(n + ".db")));
    INFO(r.err);
    REQUIRE(r.status == 0);
    rows[pruning] = export_table(d(n + ".db")).rows;
  }
}

}  // namespace gpuvp::fi::test
