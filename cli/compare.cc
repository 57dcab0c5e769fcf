#include "cli/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "platform/config/config.h"
#include "platform/config/json_text.h"
#include "platform/run_outputs.h"
#include "platform/text.h"
#include "platform/user_file.h"

namespace gpuvp {

using nlohmann::json;

namespace {

// A statistics file of the schema this build writes; anything else is refused naming the file, since
// comparing fields of another meaning would mislead.
json read_stats(const std::string& path) {
  json j = read_user_json(path, "statistics file");
  if (!j.is_object() || !j.contains("schema"))
    throw ConfigError(fmt::format("{}: not a gpuvp statistics file (no \"schema\"; written by --stats)", path));
  if (j["schema"] != kStatsSchema)
    throw ConfigError(fmt::format("{}: statistics schema {} is not known (known: {})", path,
                                  json_shown(j["schema"]), kStatsSchema));
  return j;
}

// Every numeric leaf (booleans are not numbers here) under its path, keys in alphabetical order.
void flatten(const json& j, const std::string& path, std::vector<std::pair<std::string, json>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) flatten(j[i], fmt::format("{}[{}]", path, i), out);
  } else if (j.is_number()) {
    out.emplace_back(path, j);
  }
}

std::string shown(const json& v) {
  if (v.is_number_unsigned()) return fmt::format("{}", v.get<uint64_t>());
  if (v.is_number_integer()) return fmt::format("{}", v.get<int64_t>());
  return fmt::format("{:.6g}", v.get<double>());
}

// Integers exactly (long double keeps 64 bits of mantissa), so that counters differ by exactly what they do.
long double exact(const json& v) {
  if (v.is_number_unsigned()) return static_cast<long double>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<long double>(v.get<int64_t>());
  return v.get<double>();
}

std::string difference(const json& a, const json& b) {
  const long double d = exact(b) - exact(a);
  return a.is_number_integer() && b.is_number_integer() ? fmt::format("{:+.0f}", d)
                                                        : fmt::format("{:+.6g}", static_cast<double>(d));
}

CompareRow row(const std::string& path, const json* a, const json* b, double threshold_pct) {
  CompareRow r{path, a != nullptr, b != nullptr, a ? shown(*a) : "-", b ? shown(*b) : "-", "-", "-", true};
  if (!a || !b) return r;
  const long double x = exact(*a), y = exact(*b);
  r.diff = difference(*a, *b);
  if (x == y) {
    r.rel = "0 %", r.marked = false;
  } else if (x == 0) {
    r.rel = "new";  // no relative difference from zero: always marked
  } else {
    const double pct = static_cast<double>(100 * (y - x) / std::fabs(x));
    r.rel = fmt::format("{:+.2f} %", pct);
    r.marked = std::fabs(pct) > threshold_pct;
  }
  return r;
}

}  // namespace

std::vector<CompareRow> compare_stats(const std::string& a, const std::string& b, double threshold_pct) {
  const json ja = read_stats(a), jb = read_stats(b);
  std::vector<std::pair<std::string, json>> la, lb;
  flatten(ja, "", la);
  flatten(jb, "", lb);
  std::map<std::string, const json*> in_b;
  for (auto& [k, v] : lb) in_b[k] = &v;
  std::vector<CompareRow> rows;
  for (auto& [k, v] : la) {
    auto it = in_b.find(k);
    rows.push_back(row(k, &v, it == in_b.end() ? nullptr : it->second, threshold_pct));
    if (it != in_b.end()) in_b.erase(it);
  }
  for (auto& [k, v] : lb)  // those only in B, in B's order
    if (in_b.count(k)) rows.push_back(row(k, nullptr, &v, threshold_pct));
  return rows;
}

int cmd_compare(const std::string& a, const std::string& b, double threshold_pct) {
  const std::vector<CompareRow> rows = compare_stats(a, b, threshold_pct);
  size_t w[5] = {5, 1, 1, 3, 5};
  for (const CompareRow& r : rows) {
    w[0] = std::max(w[0], r.path.size());
    w[1] = std::max(w[1], r.a.size());
    w[2] = std::max(w[2], r.b.size());
    w[3] = std::max(w[3], r.diff.size());
    w[4] = std::max(w[4], r.rel.size());
  }
  print_out("A: {}\nB: {}\n", a, b);
  print_out("  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", "value", w[0], "A", w[1], "B", w[2], "B-A", w[3], "(B-A)/|A|", w[4]);
  size_t marked = 0;
  for (const CompareRow& r : rows) {
    marked += r.marked;
    print_out("{} {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", r.marked ? "*" : " ", r.path, w[0], r.a, w[1], r.b, w[2],
              r.diff, w[3], r.rel, w[4]);
  }
  print_out("{} of {} values marked *: relative difference above {} %, from zero, or in one file only\n", marked,
            rows.size(), threshold_pct);
  return 0;
}

}  // namespace gpuvp
