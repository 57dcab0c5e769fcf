#include "cli/sweep_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

#include "cli/run.h"
#include "platform/config/config.h"
#include "platform/config/json_text.h"
#include "platform/exec_job.h"
#include "platform/experiment_file.h"
#include "platform/stats_schema.h"
#include "platform/user_file.h"

namespace gpuvp {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The columns and values one axis contributes: rows[k] is the k-th value of every column it sets.
struct AxisRows {
  std::vector<std::string> columns;
  std::vector<std::vector<json>> rows;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void error(const std::string& where, const std::string& why) const {
    throw ConfigError(fmt::format("{}: {}{}{}", file_, where, where.empty() ? "" : ": ", why));
  }
  void known(const json& obj, std::initializer_list<const char*> keys, const std::string& where) const {
    if (std::string e = unknown_key_error(obj, keys, fmt::format("{}{}{}", file_, where.empty() ? "" : ": ", where));
        !e.empty())
      throw ConfigError(e);
  }
  std::string string(const json& v, const std::string& where) const {
    if (!v.is_string() || v.get<std::string>().empty())
      error(where, fmt::format("expected a non-empty string, not {}", json_shown(v)));
    return v.get<std::string>();
  }

  // {"key": K, "values": [...]}, {"preset" | "workload": [...]} or {"zip": [axis, ...]}.
  AxisRows axis(const json& a, const std::string& where) const {
    if (!a.is_object()) error(where, "an axis is an object: {\"key\": K, \"values\": [...]}, {\"preset\": [...]}, "
                                     "{\"workload\": [...]} or {\"zip\": [axis, ...]}");
    if (a.contains("zip")) return zip(a, where);
    if (a.contains("key")) {
      known(a, {"key", "values"}, where);
      return values(string(a["key"], where + ".key"), a.contains("values") ? a["values"] : json(), where);
    }
    known(a, {"preset", "workload"}, where);
    if (a.size() != 1) error(where, "one of \"preset\", \"workload\" (or \"key\" with \"values\", or \"zip\")");
    return values(a.begin().key(), a.begin().value(), where);
  }

  const std::string& file() const { return file_; }

 private:
  AxisRows values(const std::string& column, const json& vals, const std::string& where) const {
    if (!vals.is_array()) error(where, fmt::format("'{}': the values are an array", column));
    if (vals.empty()) error(where, fmt::format("'{}' has no values: the grid would be empty", column));
    AxisRows r{{column}, {}};
    for (size_t k = 0; k < vals.size(); ++k) {
      if (vals[k].is_object() || vals[k].is_array() || vals[k].is_null())
        error(where, fmt::format("'{}' value {}: {} is not a number, string or boolean", column, k, json_shown(vals[k])));
      r.rows.push_back({vals[k]});
    }
    return r;
  }

  AxisRows zip(const json& a, const std::string& where) const {
    known(a, {"zip"}, where);
    if (!a["zip"].is_array() || a["zip"].size() < 2) error(where, "\"zip\" is an array of at least two axes");
    AxisRows r;
    for (size_t i = 0; i < a["zip"].size(); ++i) {
      const std::string w = fmt::format("{}.zip[{}]", where, i);
      if (a["zip"][i].contains("zip")) error(w, "a zipped axis is not itself a zip");
      AxisRows part = axis(a["zip"][i], w);
      if (i > 0 && part.rows.size() != r.rows.size())
        error(w, fmt::format("{} values, the axes before it {}: zipped axes have as many values each", part.rows.size(),
                             r.rows.size()));
      r.columns.insert(r.columns.end(), part.columns.begin(), part.columns.end());
      r.rows.resize(part.rows.size());
      for (size_t k = 0; k < part.rows.size(); ++k) r.rows[k].push_back(part.rows[k][0]);
    }
    return r;
  }

  std::string file_;
};

bool is_program_column(const std::string& c) { return c == "preset" || c == "workload"; }

std::string resolve_path(const std::string& file, const std::string& path) {
  const fs::path p(path);
  return p.is_absolute() ? path : (fs::path(file).parent_path() / p).lexically_normal().string();
}

// An experiment file (gpuvp experiment) rather than a launch file: it has "benchmarks", which a launch
// file never has. A file that cannot be read is taken as a launch file, whose check names the fault.
bool is_experiment_file(const std::string& path) {
  static std::map<std::string, bool> known;  // each file read once, however many points name it
  auto it = known.find(path);
  if (it != known.end()) return it->second;
  bool experiment = false;
  try {
    const json j = read_user_json(path, "workload");
    experiment = j.is_object() && j.contains("benchmarks");
  } catch (const ConfigError&) {
  }
  return known[path] = experiment;
}

// "NAME" or "NAME:LAUNCH" (a built-in workload), or "PATH.json": a launch file (gpuvp exec --launch-file)
// or an experiment file (gpuvp experiment), relative to the sweep file's folder.
void set_workload(SweepPoint& p, const std::string& v, const std::string& file) {
  p.workload.clear();
  p.launch.clear();
  p.exec.clear();
  p.experiment.clear();
  if (v.size() > 5 && v.compare(v.size() - 5, 5, ".json") == 0) {
    const std::string path = resolve_path(file, v);
    (is_experiment_file(path) ? p.experiment : p.exec) = path;
    return;
  }
  const size_t colon = v.find(':');
  p.workload = v.substr(0, colon);
  p.launch = colon == std::string::npos ? "" : v.substr(colon + 1);
}

// Applies one axis value to a point; `where` names the axis for messages.
void apply(const Reader& rd, SweepPoint& p, const std::string& column, const json& v, const std::string& where) {
  if (!is_program_column(column)) {
    p.sets.emplace_back(column, v);
    return;
  }
  const std::string s = rd.string(v, where + "." + column);
  if (column == "preset") p.preset = s;
  if (column == "workload") set_workload(p, s, rd.file());
}

std::vector<SweepMetric> read_metrics(const Reader& rd, const json& doc) {
  std::vector<SweepMetric> m = {{"kernel_cycles", "kernel_cycles"},
                                {"sim_seconds", "sim_seconds"},
                                {"warp_insts", "warp_insts"},
                                {"thread_insts", "thread_insts"},
                                {"warp_ipc", "warp_ipc"}};
  if (!doc.contains("metrics")) return m;
  const json& list = doc["metrics"];
  if (!list.is_array()) rd.error("metrics", "an array of paths (\"sms[0].warp_insts\") or {\"name\": N, \"path\": P}");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("metrics[{}]", i);
    SweepMetric x;
    if (list[i].is_object()) {
      rd.known(list[i], {"name", "path"}, where);
      x.path = rd.string(list[i].value("path", json()), where + ".path");
      x.name = list[i].contains("name") ? rd.string(list[i]["name"], where + ".name") : x.path;
    } else {
      x.path = x.name = rd.string(list[i], where);
    }
    check_metric_path(x.path, fmt::format("{}: {}", rd.file(), where));
    for (const SweepMetric& y : m)
      if (y.name == x.name) rd.error(where, fmt::format("a second column named '{}'", x.name));
    m.push_back(x);
  }
  return m;
}

// The cartesian product of the axes, the last one varying fastest.
std::vector<std::vector<json>> product(const std::vector<AxisRows>& axes) {
  std::vector<std::vector<json>> out = {{}};
  for (const AxisRows& a : axes) {
    std::vector<std::vector<json>> next;
    for (const auto& prefix : out)
      for (const auto& row : a.rows) {
        next.push_back(prefix);
        next.back().insert(next.back().end(), row.begin(), row.end());
      }
    out = std::move(next);
  }
  return out;
}

// Every point's configuration is built and validated, its workload or launch file resolved, before any runs.
void check_point(const Reader& rd, const SweepPoint& p, std::map<std::string, bool>& execs_checked) {
  const std::string where = fmt::format("point {} ({})", p.index, p.label());
  if (p.workload.empty() && p.exec.empty() && p.experiment.empty())
    rd.error(where, "no host program: give \"workload\" (a built-in workload, a launch file or an experiment "
                    "file), or a workload axis");
  try {
    Config c = Config::preset(p.preset);
    for (const auto& [k, v] : p.sets) c.set(k, v, "'" + k + "'");
    c.validate();
    if (!p.workload.empty()) check_workload(p.workload, p.launch, "workload");
    // Against this point's GPU: a block must fit its SMs.
    if (!p.experiment.empty()) load_experiment(p.experiment, c);
  } catch (const ConfigError& e) {
    rd.error(where, e.what());
  }
  if (p.exec.empty() || execs_checked[p.exec]) return;
  const json desc = read_user_json(p.exec, rd.file() + ": workload");
  if (desc.is_object() && desc.contains("args") && desc["args"].is_array())
    for (const json& a : desc["args"])
      if (a.is_object() && a.contains("buffer") && a["buffer"].is_object() && a["buffer"].contains("dump"))
        rd.error(where, fmt::format("{}: a buffer with \"dump\": the points run at once and would write the same "
                                    "file; remove it", p.exec));
  ExecJob::parse(desc, ExecSource{p.exec, fs::path(p.exec).parent_path().string(), p.exec, true});
  execs_checked[p.exec] = true;
}

}  // namespace

json SweepPoint::describe() const {
  json sets_json = json::array();
  for (const auto& [k, v] : sets) sets_json.push_back({k, v});
  json d = {{"preset", preset}, {"set", sets_json}, {"seed", seed}};
  if (!workload.empty()) d["workload"] = {workload, launch};
  if (!exec.empty()) d["exec"] = exec;
  if (!experiment.empty()) d["experiment"] = experiment;
  return d;
}

std::string SweepPoint::label() const {
  std::string s;
  for (const auto& [k, v] : axis_values) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

SweepSpec read_sweep(const std::string& path) {
  const json doc = read_user_json(path, "sweep file");
  Reader rd(path);
  if (!doc.is_object()) rd.error("", "a sweep file is a JSON object");
  rd.known(doc, {"name", "preset", "set", "workload", "seed", "axes", "metrics", "timeout_s"}, "");
  SweepSpec spec;
  spec.file = path;
  spec.name = doc.contains("name") ? rd.string(doc["name"], "name") : fs::path(path).stem().string();
  SweepPoint base;
  base.preset = doc.contains("preset") ? rd.string(doc["preset"], "preset") : "tx2";
  if (doc.contains("workload")) set_workload(base, rd.string(doc["workload"], "workload"), path);
  if (doc.contains("seed")) {
    if (!doc["seed"].is_number_unsigned()) rd.error("seed", "an integer >= 0");
    base.seed = doc["seed"].get<uint64_t>();
  }
  if (doc.contains("timeout_s")) {
    if (!doc["timeout_s"].is_number() || !(doc["timeout_s"].get<double>() > 0) || doc["timeout_s"].get<double>() > 1e6)
      rd.error("timeout_s", "a number of wall-clock seconds in (0, 1e6]");
    spec.timeout_s = doc["timeout_s"].get<double>();
  }
  if (doc.contains("set")) {
    if (!doc["set"].is_object()) rd.error("set", "an object of configuration keys: {\"sm.count\": 4}");
    for (const auto& item : doc["set"].items()) base.sets.emplace_back(item.key(), item.value());
  }
  if (!doc.contains("axes") || !doc["axes"].is_array() || doc["axes"].empty())
    rd.error("axes", "an array of at least one axis: the grid would be empty");
  std::vector<AxisRows> axes;
  std::set<std::string> seen;
  for (const auto& [k, v] : base.sets) seen.insert(k);
  for (size_t i = 0; i < doc["axes"].size(); ++i) {
    const std::string where = fmt::format("axes[{}]", i);
    axes.push_back(rd.axis(doc["axes"][i], where));
    for (const std::string& c : axes.back().columns) {
      if (!seen.insert(c).second) rd.error(where, fmt::format("'{}' is already set (by \"set\" or an axis before)", c));
      spec.columns.push_back(c);
    }
  }
  spec.metrics = read_metrics(rd, doc);
  std::map<std::string, bool> execs_checked;
  for (const std::vector<json>& row : product(axes)) {
    SweepPoint p = base;
    p.index = spec.points.size() + 1;
    for (size_t c = 0; c < row.size(); ++c) {
      p.axis_values.emplace_back(spec.columns[c], row[c]);
      apply(rd, p, spec.columns[c], row[c], "axes");
    }
    check_point(rd, p, execs_checked);
    spec.points.push_back(std::move(p));
  }
  return spec;
}

namespace {

struct Step {
  bool index = false;
  std::string text;
};

std::vector<Step> parse_path(const std::string& path, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return ConfigError(fmt::format("{}: statistics path '{}': {}", where, path, why));
  };
  std::vector<Step> steps;
  size_t i = 0;
  while (i < path.size()) {
    const size_t end = path.find_first_of(".[]", i);
    const std::string name = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (name.empty()) throw bad("an empty name (expected NAME[.NAME][INDEX], e.g. sms[0].warp_insts)");
    steps.push_back({false, name});
    i = end == std::string::npos ? path.size() : end;
    while (i < path.size() && path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) throw bad("'[' without an index and ']'");
      steps.push_back({true, path.substr(i + 1, close - i - 1)});
      i = close + 1;
    }
    if (i < path.size() && path[i] != '.') throw bad(fmt::format("unexpected '{}'", path[i]));
    if (i < path.size() && ++i == path.size()) throw bad("ends with '.'");
  }
  if (steps.empty()) throw bad("empty");
  return steps;
}

const json* step_into(const json& node, const Step& s) {
  if (!s.index) return node.is_object() && node.contains(s.text) ? &node[s.text] : nullptr;
  if (!node.is_array()) return nullptr;
  if (!s.text.empty() && s.text.find_first_not_of("0123456789") == std::string::npos) {
    const size_t k = std::stoul(s.text.substr(0, 9));
    return k < node.size() ? &node[k] : nullptr;
  }
  for (const json& e : node)  // an element by its name: arbiters[arb_gmem_rd], launches[matrixMul]
    if (e.is_object() && ((e.contains("name") && e["name"] == s.text) || (e.contains("kernel") && e["kernel"] == s.text)))
      return &e;
  return nullptr;
}

}  // namespace

// The path against every field the statistics can have (stats_skeleton): a misspelt name is refused
// before any point runs, not found missing after all of them. An index is any element (the SMs, the
// launches and the arbiters differ from point to point); a null section's insides are not known.
void check_metric_path(const std::string& path, const std::string& where) {
  const std::vector<Step> steps = parse_path(path, where);
  if (path == "warp_ipc") return;  // computed by the sweep
  static const json skeleton = stats_skeleton();
  const json* node = &skeleton;
  std::string at;
  for (const Step& s : steps) {
    if (node->is_null()) return;
    const bool fits = s.index ? node->is_array() : node->is_object() && node->contains(s.text);
    if (!fits)
      throw ConfigError(fmt::format("{}: statistics path '{}': {} (docs/statistics.md)", where, path,
                                    s.index  ? fmt::format("{} is not an array", at)
                                    : at.empty() ? fmt::format("no field '{}' in the statistics", s.text)
                                                 : fmt::format("no field '{}' in {}", s.text, at)));
    if (s.index && node->empty()) return;
    node = s.index ? &(*node)[0] : &(*node)[s.text];
    at += s.index ? "[" + s.text + "]" : (at.empty() ? "" : ".") + s.text;
  }
}

std::optional<json> metric_value(const json& stats, const std::string& path) {
  if (path == "warp_ipc" && !stats.contains("warp_ipc")) {
    if (!stats.contains("warp_insts") || !stats.contains("kernel_cycles")) return std::nullopt;
    const double cycles = stats["kernel_cycles"].get<double>();
    return json(cycles > 0 ? stats["warp_insts"].get<double>() / cycles : 0.0);
  }
  const json* node = &stats;
  for (const Step& s : parse_path(path, "metric"))
    if (!(node = step_into(*node, s))) return std::nullopt;
  return *node;
}

}  // namespace gpuvp
