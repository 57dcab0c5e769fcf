#include "cli/sweep.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "cli/exec.h"
#include "cli/experiment.h"
#include "cli/run.h"
#include "cli/sweep_file.h"
#include "faultinj/campaign.h"
#include "platform/config/config.h"
#include "platform/config/json_text.h"
#include "platform/output_file.h"
#include "platform/text.h"
#include "platform/user_file.h"

namespace gpuvp {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestSchema = "gpuvp-sweep/1";

// Files of an output folder: the manifest (what the sweep is), and per point its result record (the
// marker that the point is finished), its statistics and its log.
struct Layout {
  fs::path dir;
  fs::path manifest() const { return dir / "sweep.json"; }
  fs::path result(size_t p) const { return dir / "points" / fmt::format("{}.json", p); }
  fs::path stats(size_t p) const { return dir / "points" / fmt::format("{}.stats.json", p); }
  fs::path log(size_t p) const { return dir / "points" / fmt::format("{}.log", p); }
  // An experiment point's logs (gpuvp experiment --out).
  fs::path experiment(size_t p) const { return dir / "points" / fmt::format("{}.experiment", p); }
};

// Written whole or not at all: a sweep killed while writing leaves the previous file or none.
void write_atomic(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  write_output(tmp.string(), text);
  fs::rename(tmp, path);
}

std::optional<json> read_json_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream f(path);
  try {
    return json::parse(f);
  } catch (const json::exception&) {
    return std::nullopt;  // a file cut short (a full disk): the point runs again
  }
}

json manifest_of(const SweepSpec& spec) {
  json points = json::array();
  for (const SweepPoint& p : spec.points) {
    json values = json::array();
    for (const auto& [c, v] : p.axis_values) values.push_back({c, v});
    points.push_back({{"point", p.index}, {"values", values}, {"label", p.label()}, {"run", p.describe()}});
  }
  json metrics = json::array();
  for (const SweepMetric& m : spec.metrics) metrics.push_back({{"name", m.name}, {"path", m.path}});
  return {{"schema", kManifestSchema}, {"name", spec.name}, {"file", spec.file},
          {"columns", spec.columns}, {"metrics", metrics}, {"points", points}};
}

// A folder's manifest, checked against `now` (the points' runs, not the metrics: the table may change).
// Throws ConfigError when the folder holds another sweep than `what` (the sweep file, or the first folder
// of a merge).
void check_same_sweep(const json& old, const json& now, const std::string& dir, const std::string& what) {
  auto refuse = [&](const std::string& why) {
    return ConfigError(fmt::format("{}: holds the results of another sweep than {} ({}): give another output folder, "
                                   "or remove this one to start again",
                                   dir, what, why));
  };
  if (!old.is_object() || old.value("schema", "") != kManifestSchema) throw refuse("its sweep.json is not a gpuvp-sweep/1 manifest");
  const json& a = old["points"];
  const json& b = now["points"];
  if (!a.is_array() || a.size() != b.size()) throw refuse(fmt::format("{} points, now {}", a.is_array() ? a.size() : 0, b.size()));
  if (old["columns"] != now["columns"]) throw refuse(fmt::format("axes {}, now {}", json_shown(old["columns"]), json_shown(now["columns"])));
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]["run"] != b[i]["run"])
      throw refuse(fmt::format("point {} was {}, now {}", i + 1, json_shown(a[i]["label"]), json_shown(b[i]["label"])));
}

// --- the table -------------------------------------------------------------------------------------

std::string csv_cell(const json& v) {
  std::string s = v.is_null() ? "" : v.is_string() ? v.get<std::string>() : json_dump(v);
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

struct Table {
  std::vector<std::string> columns;
  std::vector<json> rows;  // objects with every column
  std::vector<std::string> missing;  // "metric 'x' in point 3"
};

Table make_table(const Layout& out, const json& manifest) {
  Table t;
  t.columns = {"point", "status"};
  for (const json& c : manifest["columns"]) t.columns.push_back(c.get<std::string>());
  for (const json& m : manifest["metrics"]) t.columns.push_back(m["name"].get<std::string>());
  t.columns.push_back("error");
  for (const json& p : manifest["points"]) {
    const size_t index = p["point"].get<size_t>();
    const std::optional<json> res = read_json_file(out.result(index));
    if (!res) continue;
    json row = {{"point", index}, {"status", (*res)["status"]}, {"error", (*res)["error"]}};
    for (const json& cv : p["values"]) row[cv[0].get<std::string>()] = cv[1];
    const std::optional<json> stats = read_json_file(out.stats(index));
    for (const json& m : manifest["metrics"]) {
      const std::string name = m["name"], path = m["path"];
      std::optional<json> v = stats ? metric_value(*stats, path) : std::nullopt;
      if (stats && !v) t.missing.push_back(fmt::format("'{}' ({}) in point {}", name, path, index));
      row[name] = v ? *v : json();
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

void write_table(const Layout& out, const Table& t, const json& manifest) {
  std::string csv;
  for (size_t c = 0; c < t.columns.size(); ++c) csv += (c ? "," : "") + csv_cell(t.columns[c]);
  csv += "\n";
  for (const json& r : t.rows) {
    for (size_t c = 0; c < t.columns.size(); ++c) csv += (c ? "," : "") + csv_cell(r[t.columns[c]]);
    csv += "\n";
  }
  write_atomic(out.dir / "results.csv", csv);
  json metrics = json::array();
  for (const json& m : manifest["metrics"]) metrics.push_back(m["name"]);
  const json doc = {{"schema", "gpuvp-sweep-table/1"}, {"name", manifest["name"]}, {"columns", t.columns},
                    {"axes", manifest["columns"]}, {"metrics", metrics}, {"rows", t.rows}};
  write_atomic(out.dir / "results.json", json_dump(doc, 1) + "\n");
}

// Writes the table; returns the number of rows whose status is not "ok" (a missing metric counts as a
// problem too: the file names a field the statistics do not have).
size_t finish_table(const Layout& out, const json& manifest, bool quiet) {
  const Table t = make_table(out, manifest);
  write_table(out, t, manifest);
  size_t failed = 0;
  for (const json& r : t.rows) failed += r["status"] != "ok";
  for (const std::string& m : t.missing) print_err("gpuvp sweep: no statistics field {}\n", m);
  if (!quiet)
    print_err("gpuvp sweep: {} of {} points have a result, {} not ok; table {} and {}\n", t.rows.size(),
              manifest["points"].size(), failed, (out.dir / "results.csv").string(), (out.dir / "results.json").string());
  return failed + (t.missing.empty() ? 0 : 1);
}

// --- running the points ----------------------------------------------------------------------------

// In the child: the point's host program with the same code as `gpuvp run` / `gpuvp exec`, its summary
// and messages into its log. Never returns.
[[noreturn]] void run_child(const SweepPoint& p, const Layout& out) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed sweep takes its points with it
  const int fd = ::open(out.log(p.index).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
  }
  const int status = run_guarded([&]() -> int {
    Config c = Config::preset(p.preset);
    for (const auto& [k, v] : p.sets) c.set(k, v, "'" + k + "'");
    c.validate();
    RunOutputs o;
    o.stats = out.stats(p.index).string() + ".tmp";
    if (!p.workload.empty()) return cmd_run(c, p.workload, p.launch, p.seed, o);
    if (!p.experiment.empty()) return cmd_experiment_run(c, p.experiment, out.experiment(p.index).string(), o);
    ExecOptions eo;
    eo.launch_file = p.exec;
    eo.outputs = o;
    return cmd_exec(c, eo);
  });
  std::fflush(nullptr);
  ::_exit(status);
}

// The last "gpuvp: " line of a point's log: the message its command printed.
std::string log_error(const fs::path& log) {
  std::ifstream f(log);
  std::string line, last;
  while (std::getline(f, line))
    if (line.rfind("gpuvp: ", 0) == 0) last = line.substr(7);
  return last;
}

struct Running {
  const SweepPoint* point;
  std::chrono::steady_clock::time_point start;
  bool killed = false;  // by the watchdog
};

json result_of(const Running& r, int wstatus, const Layout& out, double timeout_s) {
  const size_t i = r.point->index;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
  std::error_code ec;
  const fs::path tmp = out.stats(i).string() + ".tmp";
  if (fs::exists(tmp, ec)) fs::rename(tmp, out.stats(i));
  else fs::remove(out.stats(i), ec);  // a stale file of an earlier run
  json res = {{"point", i}, {"run", r.point->describe()}, {"host_seconds", secs}, {"error", nullptr}};
  if (r.killed) {
    res["status"] = "timeout";
    res["error"] = fmt::format("no result after {} s (wall clock): killed", timeout_s);
  } else if (WIFSIGNALED(wstatus)) {
    res["status"] = "crashed";
    res["error"] = fmt::format("killed by signal {} ({})", WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
  } else if (WEXITSTATUS(wstatus) != 0) {
    res["status"] = "failed";
    res["exit"] = WEXITSTATUS(wstatus);
    const std::optional<json> st = read_json_file(out.stats(i));
    const std::string msg = log_error(out.log(i));
    res["error"] = !msg.empty() ? msg : st && st->value("correct", true) == false ? "wrong result (the CPU reference differs)"
                                                                                 : fmt::format("exit status {}", WEXITSTATUS(wstatus));
  } else {
    res["status"] = "ok";
  }
  return res;
}

std::string progress_line(const json& res, const SweepPoint& p, const Layout& out) {
  std::string what = res["status"].get<std::string>();
  if (what == "ok") {
    if (const std::optional<json> st = read_json_file(out.stats(p.index)))
      what += fmt::format(", {} cycles", st->value("kernel_cycles", uint64_t{0}));
  } else {
    what += ": " + res["error"].get<std::string>();
  }
  return fmt::format("point {} ({}): {} ({:.2f} s)", p.index, p.label(), what, res["host_seconds"].get<double>());
}

// Runs `to_run`, at most `jobs` at once, each in a forked process watched for `timeout_s` host seconds.
void run_points(const std::vector<const SweepPoint*>& to_run, const Layout& out, unsigned jobs, double timeout_s,
                bool quiet) {
  std::map<pid_t, Running> running;
  size_t next = 0, done = 0;
  while (next < to_run.size() || !running.empty()) {
    while (running.size() < jobs && next < to_run.size()) {
      const SweepPoint* p = to_run[next++];
      std::fflush(nullptr);  // the child must not write the parent's buffered output again
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
      if (pid == 0) run_child(*p, out);
      running[pid] = {p, std::chrono::steady_clock::now()};
    }
    int ws = 0;
    const pid_t pid = ::waitpid(-1, &ws, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      const Running r = running[pid];
      running.erase(pid);
      const json res = result_of(r, ws, out, timeout_s);
      write_atomic(out.result(r.point->index), json_dump(res, 1) + "\n");
      if (!quiet) print_err("[{}/{}] {}\n", ++done, to_run.size(), progress_line(res, *r.point, out));
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    for (auto& [id, r] : running)
      if (!r.killed && std::chrono::duration<double>(now - r.start).count() > timeout_s) {
        ::kill(id, SIGKILL);
        r.killed = true;
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool in_shard(size_t index, std::optional<std::pair<unsigned, unsigned>> shard) {
  return !shard || (index - 1) % shard->second == shard->first - 1;
}

// The output folder, created, with this sweep's manifest (or the same sweep's, checked).
Layout prepare_out(const std::string& dir, const json& manifest, const std::string& file) {
  Layout out{dir};
  std::error_code ec;
  fs::create_directories(out.dir / "points", ec);
  if (ec) throw ConfigError(fmt::format("--out {}: cannot create the folder: {}", dir, ec.message()));
  if (const std::optional<json> old = read_json_file(out.manifest())) check_same_sweep(*old, manifest, dir, file);
  else if (fs::exists(out.manifest(), ec))
    throw ConfigError(fmt::format("{}: not a sweep manifest (not JSON); remove it or give another --out", out.manifest().string()));
  check_output((out.dir / "points" / ".write-check").string(), "--out");
  write_atomic(out.manifest(), json_dump(manifest, 1) + "\n");
  return out;
}

}  // namespace

int cmd_sweep(const SweepOptions& o) {
  const SweepSpec spec = read_sweep(o.file);
  std::optional<std::pair<unsigned, unsigned>> shard;
  if (!o.shard.empty()) shard = fi::parse_shard(o.shard);
  const std::string stem = fs::path(o.file).stem().string();
  const std::string dir = !o.out.empty() ? o.out
                          : shard        ? fmt::format("{}.shard{}-of-{}", stem, shard->first, shard->second)
                                         : stem + ".sweep";
  const json manifest = manifest_of(spec);
  const Layout out = prepare_out(dir, manifest, o.file);
  std::vector<const SweepPoint*> to_run;
  size_t mine = 0;
  for (const SweepPoint& p : spec.points) {
    if (!in_shard(p.index, shard)) continue;
    ++mine;
    const std::optional<json> res = read_json_file(out.result(p.index));
    if (res && (res->value("status", "") == "ok" || !o.retry_failed)) continue;
    to_run.push_back(&p);
  }
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (!o.quiet)
    print_err("gpuvp sweep: {}: {} points{}, {} finished before, {} to run, {} at a time, into {}\n", spec.name,
              spec.points.size(), shard ? fmt::format(" (shard {} of {}: {})", shard->first, shard->second, mine) : "",
              mine - to_run.size(), to_run.size(), jobs, dir);
  run_points(to_run, out, jobs, o.timeout_s > 0 ? o.timeout_s : spec.timeout_s, o.quiet);
  return finish_table(out, manifest, o.quiet) ? 1 : 0;
}

int cmd_sweep_merge(const std::string& out_dir, const std::vector<std::string>& dirs, bool allow_missing) {
  if (dirs.empty()) throw ConfigError("sweep merge: no folder given");
  std::vector<json> manifests;
  for (const std::string& d : dirs) {
    const std::optional<json> m = read_json_file(Layout{d}.manifest());
    if (!m) throw ConfigError(fmt::format("{}: not a sweep output folder (no readable sweep.json)", d));
    if (!manifests.empty()) check_same_sweep(*m, manifests.front(), d, dirs.front());
    manifests.push_back(*m);
  }
  const json& manifest = manifests.front();
  const Layout out = prepare_out(out_dir, manifest, dirs.front());
  std::vector<size_t> missing;
  for (const json& p : manifest["points"]) {
    const size_t i = p["point"].get<size_t>();
    bool found = fs::exists(out.result(i));
    for (size_t k = 0; k < dirs.size() && !found; ++k) {
      const Layout in{dirs[k]};
      if (!fs::exists(in.result(i))) continue;
      for (const fs::path& f : {in.stats(i), in.log(i)}) {
        std::error_code ec;
        if (fs::exists(f, ec)) fs::copy_file(f, out.dir / "points" / f.filename(), fs::copy_options::overwrite_existing);
      }
      if (std::error_code ec; fs::is_directory(in.experiment(i), ec))
        fs::copy(in.experiment(i), out.experiment(i), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
      fs::copy_file(in.result(i), out.result(i), fs::copy_options::overwrite_existing);  // last: the point is there
      found = true;
    }
    if (!found) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t k = 0; k < missing.size() && k < 20; ++k) list += fmt::format("{}{}", k ? ", " : "", missing[k]);
    if (missing.size() > 20) list += ", ...";
    const std::string msg = fmt::format("{} of {} points have no result in the folders given: {}", missing.size(),
                                        manifest["points"].size(), list);
    if (!allow_missing) throw ConfigError("sweep merge: " + msg + " (run their shards, or --allow-missing)");
    print_err("gpuvp sweep merge: {}\n", msg);
  }
  return finish_table(out, manifest, false) ? 1 : 0;
}

}  // namespace gpuvp
