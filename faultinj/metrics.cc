#include "faultinj/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuvp::fi {

Interval wilson(uint64_t k, uint64_t n, double z) {
  if (n == 0) return {0, 1};
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(k) / nn;
  const double z2 = z * z;
  const double denom = 1 + z2 / nn;
  const double center = (p + z2 / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

uint64_t ClassCounts::injected() const { return runs - count(Outcome::ToolError); }

double ClassCounts::avf(Outcome o) const {
  const uint64_t den = o == Outcome::ToolError ? runs : injected();
  return den == 0 ? 0.0 : static_cast<double>(count(o)) / static_cast<double>(den);
}

Interval ClassCounts::ci(Outcome o, double z) const {
  return wilson(count(o), o == Outcome::ToolError ? runs : injected(), z);
}

std::string structure_of(const std::string& target) {
  const size_t cut = target.find_last_of(".[");
  return cut == std::string::npos || cut == 0 ? target : target.substr(0, cut);
}

namespace {
void add(ClassCounts& c, const RunPoint& r) {
  ++c.runs;
  ++c.by_outcome[static_cast<int>(r.outcome)];
  if (r.outcome == Outcome::DUE) ++c.by_due[static_cast<int>(r.due)];
}
}  // namespace

AvfTables avf_tables(const std::vector<RunPoint>& runs) {
  AvfTables t;
  for (const RunPoint& r : runs) {
    add(t.all, r);
    add(t.per_target[r.target], r);
    add(t.per_structure[structure_of(r.target)], r);
  }
  return t;
}

double study_mtbf(uint64_t sdc, uint64_t injected, double exec_time) {
  if (sdc == 0 || injected == 0) return std::numeric_limits<double>::infinity();
  const double cross_section = static_cast<double>(sdc) / static_cast<double>(injected);
  return exec_time / cross_section;
}

double fit(double raw_fit_per_bit, uint64_t bits, double avf) {
  return raw_fit_per_bit * static_cast<double>(bits) * avf;
}

double mtbf_hours_of_fit(double f) { return f <= 0 ? std::numeric_limits<double>::infinity() : 1e9 / f; }

std::string format_number(double x, int digits) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}g}", x, digits);
}

}  // namespace gpuvp::fi
