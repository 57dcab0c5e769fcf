#pragma once
// `gpuvp compare A.json B.json`: two statistics files (docs/statistics.md) side by side, every numeric
// value with its absolute and relative difference.
#include <string>
#include <vector>

namespace gpuvp {

// One numeric leaf of both files ("sms[1].warp_insts"); a side that lacks it has `has_a`/`has_b` false.
struct CompareRow {
  std::string path;
  bool has_a = false, has_b = false;
  std::string a, b, diff, rel;  // as printed
  bool marked = false;          // |relative difference| above the threshold, or only in one file
};

// The rows of two statistics files; throws ConfigError naming a file that is not one (exit 2).
std::vector<CompareRow> compare_stats(const std::string& a, const std::string& b, double threshold_pct);
// Prints the rows aligned and a closing count; exit status 0.
int cmd_compare(const std::string& a, const std::string& b, double threshold_pct);

}  // namespace gpuvp
