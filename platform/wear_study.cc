#include "platform/wear_study.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>

#include "models/power/power_accounting.h"
#include "platform/config/json_text.h"
#include "platform/forked_json.h"
#include "platform/platform.h"
#include "platform/user_file.h"

namespace gpuvp::wear {

namespace {

[[noreturn]] void bad(const std::string& file, const std::string& key, const std::string& why) {
  throw ConfigError(fmt::format("{}: {}: {}", file, key, why));
}

}  // namespace

unsigned positive(const nlohmann::json& j, const std::string& file, const std::string& key) {
  if (!j.is_number_integer() || j.get<int64_t>() < 1 || j.get<int64_t>() > (int64_t{1} << 30))
    bad(file, key, fmt::format("{} is not a whole number from 1 to 2^30", json_shown(j)));
  return j.get<unsigned>();
}

void known_keys(const nlohmann::json& obj, std::initializer_list<const char*> known, const std::string& file,
                const std::string& at) {
  if (std::string e = unknown_key_error(obj, known, at.empty() ? file : file + ": " + at); !e.empty())
    throw ConfigError(e);
}

uint64_t buffer_elems(const nlohmann::json& v) {
  if (!v.is_string()) return 0;
  const std::string& text = v.get_ref<const std::string&>();
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon), n = colon == std::string::npos ? "" : text.substr(colon + 1);
  if ((kind != "out" && kind != "in") || n.empty() || n.size() > 10 ||
      !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  const uint64_t elems = std::stoull(n);
  return elems <= (uint64_t{1} << 30) ? elems : 0;
}

App parse_app(const nlohmann::json& a, const std::string& file, const std::string& at) {
  if (!a.is_object()) bad(file, at, "not an object");
  known_keys(a, {"name", "kernel", "grid", "block", "launches", "args"}, file, at);
  App app;
  for (const char* k : {"name", "kernel"}) {
    if (!a.contains(k) || !a[k].is_string()) bad(file, at + "." + k, "missing or not a string");
  }
  app.name = a["name"];
  app.kernel = a["kernel"];
  app.grid = positive(a.value("grid", nlohmann::json(1)), file, at + ".grid");
  app.block = positive(a.value("block", nlohmann::json(32)), file, at + ".block");
  app.launches = positive(a.value("launches", nlohmann::json(1)), file, at + ".launches");
  const nlohmann::json args = a.value("args", nlohmann::json::array());
  if (!args.is_array()) bad(file, at + ".args", "not an array");
  for (size_t i = 0; i < args.size(); ++i) {
    const nlohmann::json& v = args[i];
    if (!buffer_elems(v) && !(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 0xffffffffll))
      bad(file, fmt::format("{}.args[{}]", at, i),
          fmt::format("{}: an argument is \"out:N\" or \"in:N\" (N f32 elements, a whole number from 1 to 2^30) "
                      "or a whole number from 0 to 2^32-1",
                      json_shown(v)));
    app.args.push_back(v);
  }
  return app;
}

namespace {

template <class T, class F>
std::vector<T> list(const nlohmann::json& j, const std::string& file, const std::string& key, F&& each) {
  if (!j.contains(key)) return {};
  if (!j[key].is_array() || j[key].empty()) bad(file, key, "not a non-empty array");
  std::vector<T> out;
  for (size_t i = 0; i < j[key].size(); ++i) out.push_back(each(j[key][i], fmt::format("{}[{}]", key, i)));
  return out;
}

}  // namespace

Study parse(const nlohmann::json& j, const std::string& file) {
  Study s;
  s.file = file;
  if (!j.is_object()) bad(file, "(top)", "not a JSON object");
  known_keys(j, {"ptx", "applications", "partitions", "policies", "rotations", "thresholds", "years"}, file, "");
  if (!j.contains("ptx") || !j["ptx"].is_string()) bad(file, "ptx", "missing or not a string");
  s.ptx_path = j["ptx"];
  s.apps = list<App>(j, file, "applications", [&](const nlohmann::json& a, const std::string& k) {
    return parse_app(a, file, k);
  });
  if (s.apps.empty()) bad(file, "applications", "missing");
  s.partitions = list<std::vector<unsigned>>(j, file, "partitions", [&](const nlohmann::json& p, const std::string& k) {
    if (!p.is_array() || p.size() != s.apps.size())
      bad(file, k, fmt::format("not an array of {} SM counts (one per application)", s.apps.size()));
    std::vector<unsigned> sizes;
    for (size_t i = 0; i < p.size(); ++i) sizes.push_back(positive(p[i], file, fmt::format("{}[{}]", k, i)));
    return sizes;
  });
  if (s.partitions.empty()) bad(file, "partitions", "missing");
  s.policies = list<std::string>(j, file, "policies", [&](const nlohmann::json& p, const std::string& k) {
    static const std::vector<std::string> known = {"baseline", "fixed", "monitoring", "uniform"};
    if (!p.is_string() || std::find(known.begin(), known.end(), p.get<std::string>()) == known.end())
      bad(file, k, fmt::format("{} is not a policy (baseline, fixed, monitoring, uniform)", json_shown(p)));
    return p.get<std::string>();
  });
  if (s.policies.empty()) s.policies = {"baseline", "fixed", "monitoring", "uniform"};
  s.policies.erase(std::remove(s.policies.begin(), s.policies.end(), "baseline"), s.policies.end());
  s.policies.insert(s.policies.begin(), "baseline");  // the reference of every normalised figure
  s.rotations = list<unsigned>(j, file, "rotations",
                               [&](const nlohmann::json& r, const std::string& k) { return positive(r, file, k); });
  if (s.rotations.empty()) s.rotations = {1, 2, 4, 8, 16};
  s.thresholds = list<uint64_t>(j, file, "thresholds", [&](const nlohmann::json& t, const std::string& k) {
    // The policy compares whole sensor picoseconds: 0.5 would be a threshold of 0, every interval a rotation.
    if (!t.is_number() || !(t.get<double>() >= 1 && t.get<double>() <= 0x1p53) ||
        t.get<double>() != std::floor(t.get<double>()))
      bad(file, k, fmt::format("{} is not a whole number of sensor ps from 1 to 2^53", json_shown(t)));
    return uint64_t(t.get<double>());
  });
  const bool monitoring = std::count(s.policies.begin(), s.policies.end(), "monitoring") > 0;
  if (monitoring && s.thresholds.empty()) bad(file, "thresholds", "the monitoring policy needs at least one (sensor ps)");
  if (j.contains("years")) s.years = study_years(j["years"], file, "years");
  return s;
}

double study_years(const nlohmann::json& j, const std::string& file, const std::string& key) {
  // Beyond the models' range (em.ttf_years at most 1000) the power law's t^(1/6) grows any threshold past the supply.
  if (!j.is_number() || !(j.get<double>() > 0 && j.get<double>() <= 1000))
    bad(file, key, fmt::format("{} is not a number of years above 0 and at most 1000", json_shown(j)));
  return j.get<double>();
}

std::string study_ptx(const std::string& ptx, const std::string& study_path) {
  std::filesystem::path p(ptx);
  if (p.is_relative()) p = std::filesystem::path(study_path).parent_path() / p;
  check_user_file(p.string(), study_path + ": ptx");
  return p.string();
}

void check(const Config& cfg, const Study& s) {
  if (cfg.s("scheduler.kind") != "concurrent")
    throw ConfigError("wear-study: partitions need scheduler.kind = concurrent (the gtx480, tk1 and tx2 presets)");
  const uint64_t sms = uint64_t(cfg.i("sm.count"));
  for (size_t i = 0; i < s.partitions.size(); ++i) {
    const uint64_t asked = std::accumulate(s.partitions[i].begin(), s.partitions[i].end(), uint64_t{0});
    if (asked > sms || asked > 64)
      bad(s.file, fmt::format("partitions[{}]", i),
          fmt::format("{} SMs asked for, the GPU has {} (sm.count; at most 64)", asked, sms));
  }
  check_buffers(cfg, s.apps, s.file, "applications");
}

void check_buffers(const Config& cfg, const std::vector<App>& apps, const std::string& file, const std::string& key) {
  uint64_t bytes = 0;
  for (const App& a : apps)
    for (const nlohmann::json& v : a.args) bytes += buffer_elems(v) * 4;
  const double gmem = cfg.f("gmem.size_mib") * 1048576.0;
  if (double(bytes) > gmem)
    bad(file, key, fmt::format("the buffers take {} bytes, global memory holds {} (gmem.size_mib)", bytes,
                               uint64_t(gmem)));
}

Study load(const std::string& path, const Config& cfg) {
  Study s = parse(read_user_json(path, "wear study file"), path);
  s.ptx_path = study_ptx(s.ptx_path, path);
  check(cfg, s);
  return s;
}

namespace {

struct Point {
  std::string label;
  WearPolicyConfig policy;
};

}  // namespace

rt::KernelArgs make_args(rt::Runtime& rt, const App& a) {
  rt::KernelArgs args;
  for (const nlohmann::json& v : a.args) {
    if (v.is_number_integer()) {
      args.u32(v.get<uint32_t>());
      continue;
    }
    const std::string text = v;
    const uint64_t n = buffer_elems(v);  // parse_app refused anything else
    const rt::DevPtr p = rt.malloc(n * 4);
    std::vector<float> data(n, 0.0f);
    if (text.rfind("in:", 0) == 0) std::iota(data.begin(), data.end(), 0.0f);
    rt.memcpy_h2d(p, data.data(), n * 4);
    args.ptr(p);
  }
  return args;
}

namespace {

// A rotation: the host changed the SM sets from `at_ps` on; from then on application a's partition is
// masks[a]. Until `settled_ps` a block may still start on the partition before: a change reaches the
// dispatcher at the next clock edge, and a block handed out just before it starts at its SM's local
// time, which may run ahead of simulated time (settled: one sample interval after the change).
struct Rotation {
  uint64_t at_ps, settled_ps;
  std::vector<uint64_t> masks;
};

// Blocks that started outside their application's partition: the latest rotation at or before the
// block's start, or the one before it while the change was being made.
uint64_t off_partition(const std::vector<BlockRecord>& blocks, const std::map<uint64_t, size_t>& app_of,
                       const std::vector<Rotation>& rots) {
  uint64_t off = 0;
  for (const BlockRecord& b : blocks) {
    auto a = app_of.find(b.launch_id);
    if (a == app_of.end()) continue;
    size_t i = 0;
    while (i + 1 < rots.size() && rots[i + 1].at_ps <= b.start_ps) ++i;
    uint64_t allowed = rots[i].masks[a->second];
    if (i > 0 && b.start_ps <= rots[i].settled_ps) allowed |= rots[i - 1].masks[a->second];
    if (!((allowed >> b.sm) & 1)) ++off;
  }
  return off;
}

std::vector<uint64_t> sensors(Platform& p, unsigned n) {
  std::vector<uint64_t> out;
  for (unsigned k = 0; k < n; ++k) out.push_back(p.registry().read(fmt::format("gpu.sm{}.em_sensor", k)));
  return out;
}

// Each SM's mean power and temperature over the whole run, and the run's length in the thermal model
// (whole intervals): the unit taken to repeat (the window and the setup before it, buffers copied).
void run_means(const Platform& p, PolicyRun& r) {
  for (const power::SmEnergy& e : p.power()->sms()) {
    const double t = e.em.elapsed_s;
    r.power_w.push_back(t > 0 ? (e.dynamic_j + e.static_j) / t : 0.0);
    r.temp_k.push_back(t > 0 ? e.temp_ks / t : 0.0);
    r.period_s = t;
  }
}

// One policy on one partition: every application's launches queued on its stream and SM set, then the
// policy asked at every sample interval until the last launch of every application is done.
PolicyRun run_point(const Config& cfg, const Study& s, const std::string& ptx, const std::vector<unsigned>& part,
                    const Point& pt) {
  Platform p(cfg);
  p.record_timeline();
  const unsigned n = p.props().sm_count;
  auto policy = make_wear_policy(pt.policy);
  std::vector<uint64_t> masks = partition_masks(part, n);
  const double interval_ns = double(cfg.i("power.interval") * p.clock_period_ps()) / 1000.0;
  PolicyRun r;
  r.policy = pt.label;
  r.partition = part;
  std::vector<uint64_t> s0, s1;
  double t0 = 0, t1 = 0;
  std::map<uint64_t, size_t> app_of;  // launch id -> application
  std::vector<Rotation> rots = {{0, 0, masks}};
  p.run([&](rt::Runtime& rt) {
    const rt::Module m = rt.load_module(ptx, s.ptx_path);
    std::vector<uint32_t> sets;
    std::vector<rt::KernelArgs> args;
    for (size_t a = 0; a < s.apps.size(); ++a) {
      sets.push_back(rt.create_sm_set(masks[a]));
      args.push_back(make_args(rt, s.apps[a]));
    }
    s0 = sensors(p, n);
    t0 = rt.now_ns();
    // One host thread per application queues its launches (each call takes the driver's launch
    // latency) and waits for them; this thread asks the policy at every interval meanwhile.
    std::vector<double> done_ns(s.apps.size(), -1.0);
    for (size_t a = 0; a < s.apps.size(); ++a)
      rt.spawn([&, a](rt::Runtime& art) {
        const rt::Stream st = art.create_stream();
        const App& app = s.apps[a];
        uint64_t last = 0;
        for (unsigned l = 0; l < app.launches; ++l) {
          last = art.launch_sub_async(st, m, app.kernel, {app.grid}, {app.block}, args[a],
                                      rt::SubKernel{0, app.grid, sets[a]});
          app_of[last] = a;
        }
        art.stream_synchronize(st);
        done_ns[a] = art.launch_done_ns(last);
      });
    auto running = [&] { return std::any_of(done_ns.begin(), done_ns.end(), [](double d) { return d < 0; }); };
    for (double next = t0 + interval_ns; running(); next += interval_ns) {
      if (next > rt.now_ns()) rt.sleep_ns(next - rt.now_ns());
      if (!running() || !policy->rotate((rt.now_ns() - t0) * 1e-9, sensors(p, n))) continue;
      r.rotation_us.push_back((rt.now_ns() - t0) / 1000.0);
      const uint64_t at_ps = uint64_t(rt.now_ns() * 1000.0);
      for (size_t a = 0; a < s.apps.size(); ++a) {
        masks[a] = rotate_mask(masks[a], n);
        rt.set_sm_set(sets[a], masks[a]);
      }
      rots.push_back({at_ps, uint64_t((rt.now_ns() + interval_ns) * 1000.0), masks});
    }
    rt.join();
    for (double d : done_ns) r.completion_us.push_back((d - t0) / 1000.0);
    t1 = rt.now_ns();
    s1 = sensors(p, n);
  });
  run_means(p, r);
  r.initial_k = power::ThermalParams::from(cfg.params("thermal", "gpu.thermal")).initial_k;
  if (r.initial_k.empty()) r.initial_k.assign(n, cfg.f("thermal.ambient_k"));
  const std::vector<BlockRecord> blocks = p.timeline();
  r.blocks = blocks.size();
  for (const BlockRecord& b : blocks)
    r.longest_block_us = std::max(r.longest_block_us, double(b.end_ps - b.start_ps) / 1e6);
  r.blocks_off_partition = off_partition(blocks, app_of, rots);
  // Consumption rate over the window: nominal lifetime consumed (sensor ps) per ps elapsed.
  const double window_ps = (t1 - t0) * 1000.0;
  for (unsigned k = 0; k < n; ++k) r.cr.push_back(window_ps > 0 ? double(s1[k] - s0[k]) / window_ps : 0.0);
  r.cr = policy->balance(std::move(r.cr));
  r.gpu_cr = *std::max_element(r.cr.begin(), r.cr.end());
  return r;
}

nlohmann::json run_json(const PolicyRun& r) {
  return {{"policy", r.policy},
          {"partition", r.partition},
          {"cr", r.cr},
          {"power_w", r.power_w},
          {"temp_k", r.temp_k},
          {"initial_k", r.initial_k},
          {"period_s", r.period_s},
          {"gpu_cr", r.gpu_cr},
          {"normalised_gpu_cr", r.normalised},
          {"rotations", r.rotation_us.size()},
          {"rotation_us", r.rotation_us},
          {"blocks", r.blocks},
          {"blocks_off_partition", r.blocks_off_partition},
          {"longest_block_us", r.longest_block_us},
          {"completion_us", r.completion_us}};
}

PolicyRun run_of(const nlohmann::json& j) {
  PolicyRun r;
  r.policy = j["policy"];
  r.partition = j["partition"].get<std::vector<unsigned>>();
  r.cr = j["cr"].get<std::vector<double>>();
  r.power_w = j["power_w"].get<std::vector<double>>();
  r.temp_k = j["temp_k"].get<std::vector<double>>();
  r.initial_k = j["initial_k"].get<std::vector<double>>();
  r.period_s = j["period_s"];
  r.gpu_cr = j["gpu_cr"];
  r.rotation_us = j["rotation_us"].get<std::vector<double>>();
  r.blocks = j["blocks"];
  r.blocks_off_partition = j["blocks_off_partition"];
  r.longest_block_us = j["longest_block_us"];
  r.completion_us = j["completion_us"].get<std::vector<double>>();
  return r;
}

PolicyRun run_forked(const Config& cfg, const Study& s, const std::string& ptx, const std::vector<unsigned>& part,
                     const Point& pt) {
  return run_of(json_in_child([&] { return run_json(run_point(cfg, s, ptx, part, pt)); },
                              fmt::format("wear-study: {} on partition {}", pt.label, json_dump(part))));
}

// The study repeats the window for years, but a window (under a millisecond) is far shorter than the
// SMs' thermal time constant (C R_v, milliseconds): from ambient they would hardly warm and wear as if
// cold. The measured run starts where the run repeated without end puts every SM, worked out from a
// pilot run from ambient (power::periodic_start). The pilot's power is the measured run's: temperature
// changes no timing, only monitoring's rotations (its sensors wear faster when warm).
PolicyRun run_warm(const Config& cfg, const Study& s, const std::string& ptx, const std::vector<unsigned>& part,
                   const Point& pt) {
  const PolicyRun pilot = run_forked(cfg, s, ptx, part, pt);
  const power::ThermalParams th = power::ThermalParams::from(cfg.params("thermal", "gpu.thermal"));
  Config warm = cfg;
  warm.set("thermal.initial",
           power::initial_value(power::periodic_start(th, pilot.power_w, pilot.temp_k, 0.0, pilot.period_s)),
           "wear-study");
  return run_forked(warm, s, ptx, part, pt);
}

}  // namespace

std::vector<PolicyRun> run(const Config& given, const Study& s) {
  check(given, s);
  Config cfg = given;  // the study is about wear: accounting on
  cfg.set("power.enabled", true, "wear-study");
  cfg.set("thermal.initial", "ambient", "wear-study");  // the pilots' start (run_warm)
  const std::string ptx = read_user_file(s.ptx_path, s.file + ": ptx");
  std::vector<PolicyRun> out;
  for (const std::vector<unsigned>& part : s.partitions) {
    const PolicyRun base = run_warm(cfg, s, ptx, part, {"baseline", {"baseline"}});
    const double longest_s = *std::max_element(base.completion_us.begin(), base.completion_us.end()) * 1e-6;
    std::vector<Point> points;
    for (const std::string& name : s.policies) {
      if (name == "fixed")
        for (unsigned r : s.rotations) points.push_back({fmt::format("fixed R={}", r), {"fixed", r, longest_s, 0}});
      else if (name == "monitoring")
        for (uint64_t t : s.thresholds) points.push_back({fmt::format("monitoring {}", t), {"monitoring", 1, 0, t}});
      else if (name == "uniform")
        points.push_back({"uniform", {"uniform"}});
    }
    out.push_back(base);
    out.back().normalised = 1.0;
    for (const Point& pt : points) {
      out.push_back(run_warm(cfg, s, ptx, part, pt));
      out.back().normalised = base.gpu_cr > 0 ? out.back().gpu_cr / base.gpu_cr : 0.0;
    }
  }
  return out;
}

nlohmann::json to_json(const Study& s, const std::vector<PolicyRun>& runs) {
  nlohmann::json j;
  j["applications"] = nlohmann::json::array();
  for (const App& a : s.apps) j["applications"].push_back(a.name);
  j["years"] = s.years;
  j["runs"] = nlohmann::json::array();
  for (const PolicyRun& r : runs) j["runs"].push_back(run_json(r));
  return j;
}

std::string table(const Study& s, const std::vector<PolicyRun>& runs) {
  std::string t = fmt::format("{:<12} {:<18} {:>10} {:>11} {:>9} {:>9}", "partition", "policy", "gpu cr", "normalised",
                              "rotations", "max T (K)");
  for (const App& a : s.apps) t += fmt::format(" {:>14}", a.name + " (us)");
  t += "\n";
  for (const PolicyRun& r : runs) {
    std::string part;
    for (unsigned x : r.partition) part += (part.empty() ? "" : ":") + std::to_string(x);
    const double hottest = r.temp_k.empty() ? 0.0 : *std::max_element(r.temp_k.begin(), r.temp_k.end());
    t += fmt::format("{:<12} {:<18} {:>10.4g} {:>11.3f} {:>9} {:>9.1f}", part, r.policy, r.gpu_cr, r.normalised,
                     r.rotation_us.size(), hottest);
    for (double c : r.completion_us) t += fmt::format(" {:>14.1f}", c);
    t += "\n";
  }
  return t;
}

}  // namespace gpuvp::wear
