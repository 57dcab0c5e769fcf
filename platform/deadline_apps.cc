#include "platform/deadline_apps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>

#include "platform/config/json_text.h"
#include "platform/user_file.h"
#include "sw/kernels/kernels.h"
#include "sw/workloads/workload.h"

namespace gpuvp::deadline {

using nlohmann::json;

const char* to_string(Priority p) {
  switch (p) {
    case Priority::High: return "high";
    case Priority::Medium: return "medium";
    case Priority::Low: return "low";
  }
  return "?";
}

uint32_t blocks_per_sm(const Kernel& k, const Config& cfg) {
  const Params p = cfg.params("sm", "gpu.sm0");
  const uint64_t warp = uint64_t(p.i("warp_size"));
  const uint64_t threads = (k.threads + warp - 1) / warp * warp;
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(uint64_t(p.i("max_threads")) / threads, uint64_t(p.i("max_blocks")))));
}

uint64_t exec_ns(const Kernel& k, unsigned n, const Config& cfg) {
  if (n == 0) return ~uint64_t{0};
  if (!k.profile_ns.empty()) return k.profile_ns[std::min<size_t>(n, k.profile_ns.size()) - 1];
  const uint64_t per_wave = uint64_t(n) * blocks_per_sm(k, cfg);
  return (k.blocks + per_wave - 1) / per_wave * k.spin_ns;
}

namespace {

constexpr double kMaxUs = 1e12;  // a million seconds: within 64 bits of picoseconds

// The file being read; every error names it and the key's JSON path.
struct Reader {
  const std::string& origin;
  const Config& cfg;
  unsigned sms;
  bool measured;  // "profiles": "measured"

  [[noreturn]] void fail(const std::string& path, const json& v, const std::string& what) const {
    throw ConfigError(fmt::format("{}: {}: {} {}", origin, path, json_shown(v), what));
  }
  [[noreturn]] void error(const std::string& what) const { throw ConfigError(fmt::format("{}: {}", origin, what)); }

  // `where`: the object's path with the '.' its keys are joined with ("" at the top level).
  void known(const json& obj, const std::string& where, std::initializer_list<const char*> keys) const {
    const std::string path = where.empty() ? "" : where.substr(0, where.size() - 1);
    if (!obj.is_object()) fail(path.empty() ? "(top level)" : path, obj, "is not an object");
    if (std::string e = unknown_key_error(obj, keys, path); !e.empty()) error(e);
  }
  const json& required(const json& obj, const std::string& where, const char* key) const {
    if (!obj.contains(key)) error(fmt::format("{}{}: missing", where, key));
    return obj.at(key);
  }
  // Microseconds as a JSON number in [lo, kMaxUs], to nanoseconds.
  uint64_t micros(const json& v, const std::string& path, double lo = 0) const {
    if (!v.is_number()) fail(path, v, "is not a number of microseconds");
    const double us = v.get<double>();
    if (!(us >= lo && us <= kMaxUs)) fail(path, v, fmt::format("is out of range; expected microseconds in [{}, {}]", lo, kMaxUs));
    return uint64_t(std::llround(us * 1000.0));
  }
  uint64_t integer(const json& v, const std::string& path, uint64_t lo, uint64_t hi) const {
    if (!v.is_number_integer() || v.get<int64_t>() < int64_t(lo) || v.get<int64_t>() > int64_t(hi))
      fail(path, v, fmt::format("is not an integer in [{}, {}]", lo, hi));
    return v.get<uint64_t>();
  }

  // E(K, n) given for n = 1 .. sms, or left empty (measured or computed).
  void profile(const json& j, const std::string& path, Kernel& k) const {
    if (!j.contains("profile_us")) {
      if (k.kind != KernelKind::Spin && !measured)
        error(fmt::format("{}: a PTX or workload kernel needs profile_us or \"profiles\": \"measured\"", path));
      return;
    }
    const json& p = j.at("profile_us");
    if (!p.is_array() || p.size() != sms)
      fail(path + ".profile_us", p, fmt::format("is not an array of {} times (E(K, n) for n = 1 .. {} SMs)", sms, sms));
    for (size_t n = 0; n < p.size(); ++n) k.profile_ns.push_back(micros(p[n], fmt::format("{}.profile_us[{}]", path, n), 0.001));
  }

  Kernel spin_kernel(const json& j, const std::string& path) const {
    known(j, path + ".", {"blocks", "threads", "spin_us", "profile_us"});
    Kernel k;
    k.blocks = uint32_t(integer(required(j, path + ".", "blocks"), path + ".blocks", 1, 65535));
    k.threads = uint32_t(integer(required(j, path + ".", "threads"), path + ".threads", 1,
                                 uint64_t(cfg.params("sm", "gpu.sm0").i("max_threads_per_block"))));
    k.spin_ns = micros(required(j, path + ".", "spin_us"), path + ".spin_us", 0.001);
    return k;
  }

  // A launch description as launch files hold it (ExecJob::parse); its paths relative to this file.
  Kernel ptx_kernel(const json& j, const std::string& path) const {
    known(j, path + ".", {"launch", "profile_us"});
    Kernel k;
    k.kind = KernelKind::Ptx;
    const ExecSource src{fmt::format("{}: {}.launch", origin, path), std::filesystem::path(origin).parent_path().string(),
                         origin, false};
    auto job = std::make_shared<ExecJob>(ExecJob::parse(j.at("launch"), src));
    const uint64_t blocks = uint64_t(job->grid.x) * job->grid.y * job->grid.z;
    if (blocks > UINT32_MAX) fail(path + ".launch.grid", j.at("launch").at("grid"), "has more than 2^32 - 1 blocks");
    k.blocks = uint32_t(blocks);
    k.threads = job->block.x * job->block.y * job->block.z;
    k.identity = fmt::format("ptx\n{}\n{}\n", job->text, j.at("launch").dump());
    for (const ExecBuffer& b : job->bufs) k.identity.append(b.bytes.begin(), b.bytes.end());
    k.exec = std::move(job);
    return k;
  }

  Kernel workload_kernel(const json& j, const std::string& path) const {
    known(j, path + ".", {"workload", "size", "seed", "profile_us"});
    Kernel k;
    k.kind = KernelKind::Workload;
    const json& w = required(j, path + ".", "workload");
    if (!w.is_string()) fail(path + ".workload", w, "is not a workload name");
    const wl::Workload* wk = wl::find(w.get<std::string>());
    if (!wk) {
      std::string names;
      for (const auto& x : wl::all()) names += (names.empty() ? "" : ", ") + x->name();
      fail(path + ".workload", w, fmt::format("is not a built-in workload (known: {})", names));
    }
    k.workload = wk->name();
    if (j.contains("size")) {
      const json& sz = j.at("size");
      if (!sz.is_string()) fail(path + ".size", sz, "is not a launch configuration name");
      try {
        k.size = wl::config_named(*wk, sz.get<std::string>()).name;
      } catch (const std::invalid_argument& e) {
        fail(path + ".size", sz, e.what());
      }
    } else {
      k.size = wk->configs().front().name;
    }
    if (j.contains("seed")) k.seed = integer(j.at("seed"), path + ".seed", 0, uint64_t(INT64_MAX));
    k.where = fmt::format("{}: {}", origin, path);
    k.identity = fmt::format("workload {} {} {}\n{}", k.workload, k.size, k.seed, kernels::ptx(wk->kernel_source()));
    return k;
  }

  Kernel kernel(const json& j, const std::string& path) const {
    Kernel k = j.is_object() && j.contains("launch")     ? ptx_kernel(j, path)
               : j.is_object() && j.contains("workload") ? workload_kernel(j, path)
                                                         : spin_kernel(j, path);
    if (k.where.empty()) k.where = fmt::format("{}: {}", origin, path);
    profile(j, path, k);
    return k;
  }

  Priority priority(const json& v, const std::string& path) const {
    for (Priority p : {Priority::High, Priority::Medium, Priority::Low})
      if (v.is_string() && v.get<std::string>() == to_string(p)) return p;
    fail(path, v, "is not a priority (high, medium or low)");
  }

  // An application; with `template_only` its release comes from the generator.
  App app(const json& j, const std::string& path, bool template_only) const {
    if (template_only) known(j, path + ".", {"name", "priority", "deadline_us", "kernels"});
    else known(j, path + ".", {"name", "priority", "deadline_us", "kernels", "release_us"});
    App a;
    const json& n = required(j, path + ".", "name");
    if (!n.is_string() || n.get<std::string>().empty()) fail(path + ".name", n, "is not a non-empty string");
    a.name = n.get<std::string>();
    a.priority = priority(required(j, path + ".", "priority"), path + ".priority");
    a.deadline_ns = micros(required(j, path + ".", "deadline_us"), path + ".deadline_us", 0.001);
    if (!template_only) a.release_ns = micros(required(j, path + ".", "release_us"), path + ".release_us");
    const json& ks = required(j, path + ".", "kernels");
    if (!ks.is_array() || ks.empty()) fail(path + ".kernels", ks, "is not a non-empty array of kernels");
    for (size_t i = 0; i < ks.size(); ++i) a.kernels.push_back(kernel(ks[i], fmt::format("{}.kernels[{}]", path, i)));
    return a;
  }

  // n applications drawn uniformly from the templates, released uniformly in [0, window); `paths`
  // gets the key each one's name comes from.
  std::vector<App> random(const json& j, std::vector<std::string>& paths) const {
    known(j, "random.", {"seed", "count", "window_us", "templates"});
    const uint64_t seed = integer(required(j, "random.", "seed"), "random.seed", 0, uint64_t(INT64_MAX));
    const uint64_t count = integer(required(j, "random.", "count"), "random.count", 1, 100000);
    const uint64_t window = micros(required(j, "random.", "window_us"), "random.window_us", 0.001);
    const json& ts = required(j, "random.", "templates");
    if (!ts.is_array() || ts.empty()) fail("random.templates", ts, "is not a non-empty array of applications");
    std::vector<App> templates;
    for (size_t i = 0; i < ts.size(); ++i) templates.push_back(app(ts[i], fmt::format("random.templates[{}]", i), true));
    std::mt19937_64 rng(seed);
    std::vector<App> apps;
    for (uint64_t i = 0; i < count; ++i) {
      const size_t t = rng() % templates.size();
      App a = templates[t];
      a.release_ns = rng() % window;
      a.name = fmt::format("{}#{}", a.name, i);
      paths.push_back(fmt::format("random.templates[{}].name (its application {})", t, i));
      apps.push_back(std::move(a));
    }
    return apps;
  }
};

const char* const kPolicies[] = {"fifo", "priority_streams", "split"};

// The tables and deadline.json name applications: two of one name could not be told apart.
void unique_names(const Reader& r, const std::vector<App>& apps, const std::vector<std::string>& paths) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < apps.size(); ++i)
    if (auto [it, fresh] = seen.emplace(apps[i].name, i); !fresh)
      r.fail(paths[i], apps[i].name, fmt::format("is the name of {} too; application names must be unique", paths[it->second]));
}

}  // namespace

AppSet parse_apps(const json& j, const Config& cfg, const std::string& origin) {
  Reader r{origin, cfg, unsigned(cfg.i("sm.count")), false};
  r.known(j, "", {"applications", "random", "decision_us", "policies", "profiles"});
  AppSet set;
  std::vector<std::string> paths;  // per application, the key its name comes from
  if (j.contains("profiles")) {
    const json& v = j.at("profiles");
    if (!v.is_string() || (v.get<std::string>() != "measured" && v.get<std::string>() != "computed"))
      r.fail("profiles", v, "is not 'measured' or 'computed'");
    set.measure_profiles = r.measured = v.get<std::string>() == "measured";
  }
  if (j.contains("decision_us")) set.decision_ns = r.micros(j.at("decision_us"), "decision_us");
  if (j.contains("applications")) {
    const json& as = j.at("applications");
    if (!as.is_array()) r.fail("applications", as, "is not an array of applications");
    for (size_t i = 0; i < as.size(); ++i) {
      set.apps.push_back(r.app(as[i], fmt::format("applications[{}]", i), false));
      paths.push_back(fmt::format("applications[{}].name", i));
    }
  }
  if (j.contains("random"))
    for (App& a : r.random(j.at("random"), paths)) set.apps.push_back(std::move(a));
  if (set.apps.empty()) r.error("no applications (give 'applications', 'random' or both)");
  unique_names(r, set.apps, paths);
  std::stable_sort(set.apps.begin(), set.apps.end(), [](const App& a, const App& b) { return a.release_ns < b.release_ns; });
  if (j.contains("policies")) {
    const json& ps = j.at("policies");
    if (!ps.is_array() || ps.empty()) r.fail("policies", ps, "is not a non-empty array of policy names");
    for (size_t i = 0; i < ps.size(); ++i) {
      const bool ok = ps[i].is_string() && std::find(std::begin(kPolicies), std::end(kPolicies), ps[i].get<std::string>()) !=
                                               std::end(kPolicies);
      if (!ok) r.fail(fmt::format("policies[{}]", i), ps[i], "is not a policy (fifo, priority_streams, split)");
      set.policies.push_back(ps[i].get<std::string>());
    }
  } else {
    set.policies.assign(std::begin(kPolicies), std::end(kPolicies));
  }
  return set;
}

AppSet load_apps(const std::string& path, const Config& cfg) {
  return parse_apps(parse_user_json(read_user_file(path, "application file"), path), cfg, path);
}

}  // namespace gpuvp::deadline
