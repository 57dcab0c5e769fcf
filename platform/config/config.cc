#include "platform/config/config.h"

#include "models/common/log.h"
#include "models/l2/l2.h"
#include "models/power/nbti.h"
#include "models/power/power_accounting.h"
#include "models/sm/sm_caches.h"
#include "platform/config/json_text.h"
#include "platform/user_file.h"
#include "platform/int_text.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuvp {

using Type = KeyDef::Type;
using nlohmann::json;

namespace {


// The platform's own keys; every model's keys come from its folder (param_groups()).
std::vector<KeyDef> platform_keys() {
  using P = ParamDef;
  return {
      P::String("platform.name", "custom", {}, "Name shown in reports"),
      P::String("asm.schedule", "nvcc", {"nvcc", "vp"},
                "Instruction order the assembler gives every loaded kernel: nvcc (the PTX's order) or vp "
                "(vulnerable-period-aware: each value consumed as soon after its production as dependences allow; "
                "the same results, possibly slower; docs/vulnerable-period.md)"),
      P::Float("gpu.clock_mhz", 100, 1, 5000, "GPU clock (MHz): SMs, scheduler, arbiters, memories"),
      P::String("scheduler.impl", "model", {"model", "rtl"},
                "Block scheduler implementation: SystemC model, or the Verilated RTL (rtl/block_scheduler.sv)"),
      P::String("arbiter.impl", "model", {"model", "rtl"},
                "Stall arbiter implementation: SystemC model, or the Verilated RTL (rtl/stall_arbiter.sv)"),
      P::String("arbiter.search", "parallel", {"parallel", "sequential"},
                "Round-robin search of every stall arbiter: the next requester in one cycle, or one requester "
                "looked at per cycle (idle requesters between two waiting ones cost a cycle each)"),
      P::Float("host.launch_latency_ns", 0, 0, 1e9, "Driver launch latency (ns) before the start register is written"),
      P::Int("copy_engines", 0, 0, 1,
             "Copy engines. scheduler.kind = concurrent has one (1; 0 is refused there): host copies are "
             "asynchronous and take copy.latency_ns and copy.bytes_per_ns. scheduler.kind = batch has none, "
             "whatever this says: copies go over the host bus (host.bus_bytes_per_ns, host.bus_latency_ns)"),
      P::Float("sim.timeout_ms", 2000, 0, 1e9,
               "Simulated time after which a run that has not finished stops with a timeout error (0: no limit)"),
      P::Float("sim.host_timeout_s", 60, 0, 1e9,
               "Host seconds (the process's CPU time: a paused run does not spend them) after which a run that "
               "has not finished stops with a timeout error naming this key and the simulated time reached (0: "
               "no limit). A campaign's golden run keeps it; its faulty runs run without it: their "
               "simulated-time bound alone makes a timeout"),
      P::Int("host.printf_fifo_bytes", 1048576, 0, 1073741824,
             "Device printf FIFO (bytes of formatted text between two host synchronisations; CUDA's "
             "cudaLimitPrintfFifoSize): lines beyond it are dropped, and the host prints how many"),
      P::String("log.level", "warn", {"error", "warn", "info", "debug", "trace"}, "Default log level"),
      P::String("log.modules", "", {},
                "Per-module log levels, `path=level` separated by commas (gpu.sched=debug,gpu.sm1=trace); "
                "a path sets the level of every module below it. The CLI's --log path=level adds to it"),
  };
}

// An instance path with a key it cannot have: say why (shared by every instance, or unknown in the group).
void explain_instance_key(const std::string& key, const std::string& origin);

std::vector<KeyDef> make_schema() {
  std::vector<KeyDef> all = platform_keys();
  for (const ParamGroup& g : model_param_groups()) all.insert(all.end(), g.defs.begin(), g.defs.end());
  std::sort(all.begin(), all.end(), [](const KeyDef& a, const KeyDef& b) { return a.key < b.key; });
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].key == all[i - 1].key) throw std::logic_error("configuration key declared twice: " + all[i].key);
  return all;
}

// A per-instance key (gpu.sm1.warp_policy): the class key it overrides, or nullptr.
struct InstanceKey {
  const KeyDef* def = nullptr;
  const ParamGroup* group = nullptr;
  int64_t index = -1;  // the instance number for "#" paths
};
InstanceKey find_instance_key(const std::string& key) {
  for (const ParamGroup& g : model_param_groups()) {
    if (g.instance.empty()) continue;
    size_t hash = g.instance.find('#');
    std::string head = g.instance.substr(0, hash);
    if (key.compare(0, head.size(), head) != 0) continue;
    size_t pos = head.size();
    int64_t index = -1;
    if (hash != std::string::npos) {
      size_t end = pos;
      while (end < key.size() && std::isdigit(static_cast<unsigned char>(key[end]))) ++end;
      if (end == pos || end - pos > 4 || (key[pos] == '0' && end - pos > 1)) continue;
      index = std::stoll(key.substr(pos, end - pos));
      pos = end;
    }
    if (pos >= key.size() || key[pos] != '.') continue;
    std::string full = g.cls + key.substr(pos);
    for (const KeyDef& d : g.defs)
      if (d.key == full && !d.shared) return {&d, &g, index};
  }
  return {};
}

const KeyDef* find_def(const std::string& key) {
  for (auto& d : config_schema())
    if (d.key == key) return &d;
  return nullptr;
}

std::string describe_range(const KeyDef& d) {
  switch (d.type) {
    case Type::Int:
      return fmt::format("an integer in [{}, {}]{}", static_cast<int64_t>(d.min), static_cast<int64_t>(d.max),
                         d.power_of_two ? ", a power of two" : "");
    case Type::Float: return fmt::format("a number in [{}, {}]", d.min, d.max);
    case Type::Bool: return "true or false";
    case Type::String: {
      if (d.choices.empty()) return "a string";
      std::string s;
      for (auto& c : d.choices) s += (s.empty() ? "" : ", ") + c;
      return "one of " + s;
    }
  }
  return "";
}

// Checks type and range; returns the normalised value.
json check(const KeyDef& d, const json& v, const std::string& origin) {
  auto fail = [&](const std::string& what) {
    return ConfigError(fmt::format("{}: {} = {}: {}; expected {}", origin, d.key, v.dump(), what, describe_range(d)));
  };
  switch (d.type) {
    case Type::Int: {
      // One spelling of an integer wherever a key is set (--set, files, campaign platform.set):
      // 2.0 and 1e1 are refused alike.
      if (!v.is_number_integer() && !v.is_number_unsigned()) throw fail("not an integer");
      const double x = v.get<double>();
      if (x < d.min || x > d.max) throw fail("out of range");
      auto n = static_cast<int64_t>(x);
      if (d.power_of_two && (n <= 0 || (n & (n - 1)) != 0)) throw fail("not a power of two");
      return n;
    }
    case Type::Float: {
      if (!v.is_number()) throw fail("not a number");
      double x = v.get<double>();
      if (!(x >= d.min && x <= d.max)) throw fail("out of range");
      return x;
    }
    case Type::Bool:
      if (!v.is_boolean()) throw fail("not a boolean");
      return v;
    case Type::String: {
      if (!v.is_string()) throw fail("not a string");
      if (!d.choices.empty()) {
        bool ok = false;
        for (auto& c : d.choices) ok |= (c == v.get<std::string>());
        if (!ok) throw fail("not an allowed value");
      }
      return v;
    }
  }
  return v;
}

void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, json>>& out) {
  for (auto& [k, v] : j.items()) {
    std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object() && !v.empty())
      flatten(v, key, out);
    else
      out.emplace_back(key, v);  // an empty object is a value: a wrong type for any key
  }
}

// A class may be declared by several groups of one instance path (the SM's own keys and its caches'):
// the keys of all of them are the instance's.
void explain_instance_key(const std::string& key, const std::string& origin) {
  std::string keys, cls;
  for (const ParamGroup& g : model_param_groups()) {
    if (g.instance.empty()) continue;
    const std::string head = g.instance.substr(0, g.instance.find('#'));
    if (key.compare(0, head.size(), head) != 0) continue;
    size_t pos = head.size();
    if (g.instance.find('#') != std::string::npos)
      while (pos < key.size() && std::isdigit(static_cast<unsigned char>(key[pos]))) ++pos;
    const bool numbered = g.instance.find('#') != std::string::npos;
    if (pos >= key.size() || key[pos] != '.' || (numbered && pos == head.size())) continue;
    const std::string cls_key = g.cls + key.substr(pos);
    cls = g.cls;
    for (const KeyDef& d : g.defs) {
      if (d.key == cls_key && d.shared)
        throw ConfigError(fmt::format("{}: {} is one value for every instance: set {}, it has no per-instance form",
                                      origin, key, cls_key));
      if (!d.shared) keys += (keys.empty() ? "" : ", ") + d.key.substr(g.cls.size() + 1);
    }
  }
  if (!cls.empty())
    throw ConfigError(
        fmt::format("{}: unknown configuration key '{}' (an instance of '{}' has: {})", origin, key, cls, keys));
}

}  // namespace

std::vector<std::pair<std::string, log::Level>> parse_log_modules(const std::string& spec) {
  std::vector<std::pair<std::string, log::Level>> out;
  size_t start = 0;
  while (start < spec.size()) {
    size_t end = std::min(spec.find(',', start), spec.size());
    std::string item = spec.substr(start, end - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.erase(0, 1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(fmt::format("log.modules (--log): '{}' is not path=level", item));
    try {
      out.emplace_back(item.substr(0, eq), log::parse_level(item.substr(eq + 1)));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(fmt::format("log.modules (--log): {}", e.what()));
    }
    start = end + 1;
  }
  return out;
}

const std::vector<KeyDef>& config_schema() {
  static const std::vector<KeyDef> s = make_schema();
  return s;
}

Config::Config() {
  for (auto& d : config_schema()) values_[d.key] = d.def;
}

namespace {

// The file holding this code: libgpuvp.so for a program built against the SDK, else the executable.
std::filesystem::path own_binary() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&Config::preset_dir), &info) || !info.dli_fname) return {};
  const std::filesystem::path p(info.dli_fname);
  if (p.has_parent_path()) return p;
  std::error_code ec;  // the main program found through PATH: its name alone
  return std::filesystem::read_symlink("/proc/self/exe", ec);
}

}  // namespace

// GPUVP_PRESETS, else the presets of the installed tree holding this code (preset_dir_near of the
// gpuvp executable's or libgpuvp.so's folder), else the source tree's platform/presets.
std::string Config::preset_dir() {
  if (const char* env = std::getenv("GPUVP_PRESETS")) return env;
  // An installed tree (<prefix>/bin/gpuvp, <prefix>/lib/libgpuvp.so): <prefix>/share/gpuvp/presets.
  const std::filesystem::path bin = own_binary();
  if (!bin.empty()) {
    const std::string near = preset_dir_near(bin.parent_path().string());
    if (!near.empty()) return near;
  }
  return std::string(GPUVP_SOURCE_DIR) + "/platform/presets";  // the build tree's
}

std::string Config::preset_dir_near(const std::string& dir) {
  const std::filesystem::path d(dir);
  for (auto p : {d / "presets", d / ".." / "share" / "gpuvp" / "presets", d / ".." / ".." / "share" / "gpuvp" / "presets"}) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) return p.lexically_normal().string();
  }
  return "";
}

std::vector<std::string> Config::preset_names() {
  std::vector<std::string> v;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(preset_dir(), ec))
    if (e.path().extension() == ".json") v.push_back(e.path().stem().string());
  std::sort(v.begin(), v.end());
  return v;
}

Config Config::preset(const std::string& name) {
  // A preset is a name from the preset folder, never a path (nor a name too long for the file system).
  const std::vector<std::string> names = preset_names();
  std::string path = preset_dir() + "/" + name + ".json";
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("unknown preset '{}' (known: {})", name, known));
  }
  Config c;
  c.merge_file(path);
  c.name_ = name;
  return c;
}

void Config::merge_file(const std::string& path) {
  merge(read_user_json(path, "configuration file"), path);
}

void Config::merge(const json& j, const std::string& origin) {
  if (!j.is_object()) throw ConfigError(fmt::format("{}: a configuration must be a JSON object", origin));
  std::vector<std::pair<std::string, json>> flat;
  flatten(j, "", flat);
  for (auto& [k, v] : flat) set(k, v, origin);
}

void Config::set(const std::string& key, const json& value, const std::string& origin) {
  const KeyDef* d = find_def(key);
  if (!d) d = find_instance_key(key).def;
  if (!d) explain_instance_key(key, origin);
  if (!d) {
    // Suggest keys that share the first component: the usual typo is in the leaf.
    std::string group = key.substr(0, key.find('.'));
    std::string near;
    for (auto& k : config_schema())
      if (k.key.compare(0, group.size() + 1, group + ".") == 0) near += (near.empty() ? "" : ", ") + k.key;
    const std::string keys = near.empty() ? "" : " (keys in '" + group + "': " + near + ")";
    // {"sm": {}}: a group written as an empty object names no key; say so rather than "unknown".
    auto is_group = [&] {
      for (auto& k : config_schema())
        if (k.key.compare(0, key.size() + 1, key + ".") == 0) return true;
      return false;
    };
    if (value.is_object() && is_group())
      throw ConfigError(fmt::format("{}: '{}' is an empty object: it needs keys, an object is not a value{}", origin,
                                    key, keys));
    throw ConfigError(fmt::format("{}: unknown configuration key '{}'{}", origin, key, keys));
  }
  KeyDef named = *d;  // an instance key is checked like its class key, and named as given
  named.key = key;
  values_[key] = check(named, value, origin);
  if (key == "platform.name") name_ = value.get<std::string>();
}

void Config::set(const std::string& a) {
  auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(fmt::format("--set {}: expected key=value", a));
  std::string key = a.substr(0, eq), text = a.substr(eq + 1);
  const KeyDef* d = find_def(key);
  if (!d) d = find_instance_key(key).def;
  if (!d) {
    set(key, json(text), "--set");  // reports the unknown key
    return;
  }
  json v;
  IntText n;
  if (d->type == Type::String) {
    v = text;
  } else if (d->type == Type::Int && !parse_int_text(text, n) && n.mag <= uint64_t(INT64_MAX)) {
    v = n.neg ? -int64_t(n.mag) : int64_t(n.mag);  // decimal or 0x as everywhere (JSON refuses 010 and 0x10)
  } else {
    if (std::string deep = json_depth_error(text, "--set " + key); !deep.empty()) throw ConfigError(deep);
    try {
      v = json::parse(text);
    } catch (const json::exception&) {
      v = text;  // not JSON, or a number JSON cannot hold: reported as a wrong type by check()
    }
  }
  set(key, v, "--set");
}

const json* Config::find(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

const json& Config::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw ConfigError(fmt::format("internal: configuration key '{}' is not in the schema", key));
  return it->second;
}

int64_t Config::i(const std::string& key) const { return get(key).get<int64_t>(); }
double Config::f(const std::string& key) const { return get(key).get<double>(); }
bool Config::b(const std::string& key) const { return get(key).get<bool>(); }
const std::string& Config::s(const std::string& key) const { return get(key).get_ref<const std::string&>(); }

namespace {

// A model's reading of its parameters, its refusal (std::invalid_argument) a configuration error.
template <class F>
void model_check(const F& read) {
  try {
    read();
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
}

// The NBTI and power parameters as the models read them (a threshold at or above the supply, more lane
// clusters than an SM's lanes, initial temperatures not one per SM), refused before any command runs, a
// study included.
void validate_power(const Config& c) {
  model_check([&] { power::NbtiParams::from(c.params("nbti", "gpu.nbti")); });
  for (int64_t k = 0; k < c.i("sm.count"); ++k) {
    const Params sm = c.params("sm", fmt::format("gpu.sm{}", k));
    model_check([&] {
      power::PowerConfig::from(c.params("power", "gpu.power"), c.params("thermal", "gpu.thermal"),
                               c.params("em", "gpu.em"), unsigned(sm.i("sps")), unsigned(sm.i("warp_size")), 1e-9)
          .thermal.check_sms(unsigned(c.i("sm.count")));
    });
  }
}

}  // namespace

// The FlexGripPlus block scheduler (model and RTL) drives 1..16 SMs, and the RTL arbiter is
// Verilated for at most 16 SMs plus the host: beyond that only the concurrent dispatcher and the
// transaction-level arbiters scale.
void Config::validate_sm_count() const {
  constexpr int64_t kFlexgripMaxSms = 16;
  const int64_t n = i("sm.count");
  if (n <= kFlexgripMaxSms) return;
  if (s("scheduler.kind") != "concurrent")
    throw ConfigError(fmt::format("sm.count = {}: the FlexGripPlus block scheduler (scheduler.kind = {}) drives at most "
                                  "{} SMs; more need scheduler.kind = concurrent",
                                  n, s("scheduler.kind"), kFlexgripMaxSms));
  if (s("arbiter.impl") == "rtl")
    throw ConfigError(fmt::format("sm.count = {}: the RTL arbiters (arbiter.impl = rtl) are built for at most {} SMs",
                                  n, kFlexgripMaxSms));
}

// The caches' geometries, read as their models read them, so that `gpuvp config` and every command
// refuse before running what the platform's construction would refuse (sets not a power of two...).
void Config::validate_caches() const {
  const Params l2 = params("l2", "gpu.l2");
  if (L2Config::configured(l2)) model_check([&] { L2Config::from(l2, Clock{100.0}); });
  for (int64_t k = 0; k < i("sm.count"); ++k)
    model_check([&] { SmCaches::from(params("sm", fmt::format("gpu.sm{}", k))); });
}

void Config::validate() const {
  for (auto& [key, value] : values_) {
    InstanceKey ik = find_instance_key(key);
    if (ik.group && ik.index >= 0 && ik.index >= i(ik.group->count_key))
      throw ConfigError(fmt::format("{}: there is no instance {} ({} = {})", key, ik.index, ik.group->count_key,
                                    i(ik.group->count_key)));
  }
  parse_log_modules(s("log.modules"));
  // Cross-key rules, for every SM with the values it really gets (instance keys included).
  auto key_of = [&](const std::string& inst, const std::string& cls, const std::string& leaf) {
    return values_.count(inst + "." + leaf) ? inst + "." + leaf : cls + "." + leaf;
  };
  const std::string bpc_key = key_of("gpu.sched", "scheduler", "blocks_per_core");
  const int64_t bpc = i(bpc_key);
  for (int64_t k = 0; k < i("sm.count"); ++k) {
    const std::string inst = fmt::format("gpu.sm{}", k);
    auto v = [&](const char* leaf) { return std::make_pair(key_of(inst, "sm", leaf), i(key_of(inst, "sm", leaf))); };
    auto at_most = [&](std::pair<std::string, int64_t> a, std::pair<std::string, int64_t> b) {
      if (a.second > b.second)
        throw ConfigError(fmt::format("{} = {} exceeds {} = {}", a.first, a.second, b.first, b.second));
    };
    // Issue timing: lanes and units are split evenly between the warp schedulers (docs/sm.md).
    auto divides = [&](std::pair<std::string, int64_t> sch, std::pair<std::string, int64_t> n) {
      if (n.second % sch.second)
        throw ConfigError(fmt::format("{} = {} is not a multiple of {} = {} (each warp scheduler gets an equal share)",
                                      n.first, n.second, sch.first, sch.second));
    };
    for (const char* leaf : {"sps", "units.fp64", "units.sfu", "units.ldst"}) divides(v("schedulers"), v(leaf));
    at_most(v("max_threads_per_block"), v("max_threads"));
    at_most(v("shared_per_block"), v("shared_bytes"));
    at_most(v("warp_size"), v("max_threads_per_block"));
    at_most({bpc_key, bpc}, v("max_blocks"));
    if (s("scheduler.kind") == "concurrent" && s(key_of(inst, "sm", "timing")) == "flexgrip")
      throw ConfigError(fmt::format("scheduler.kind = concurrent needs the issue timing of tk1/tx2: {} = flexgrip "
                                    "runs FlexGripPlus batches only",
                                    key_of(inst, "sm", "timing")));
  }
  validate_sm_count();
  validate_caches();
  validate_power(*this);
  if (s("scheduler.kind") == "concurrent" && s("scheduler.impl") == "rtl")
    throw ConfigError("scheduler.kind = concurrent: the RTL (scheduler.impl = rtl) is the FlexGripPlus batch scheduler");
  validate_concurrent();
}

// Keys of the batch scheduler the concurrent mode would ignore are refused rather than ignored; a
// value equal to the default (as the presets write it) is what every mode does by default.
void Config::validate_concurrent() const {
  if (s("scheduler.kind") != "concurrent") return;
  for (const char* key : {"scheduler.policy", "gpu.sched.policy"})
    if (values_.count(key) && s(key) != "round_robin")
      throw ConfigError(fmt::format("{} = {}: scheduler.kind = concurrent ignores the batch scheduler's policy (the "
                                    "dispatcher places blocks by its own rule, docs/concurrent-kernels.md); set "
                                    "scheduler.kind = batch, or leave {} at round_robin",
                                    key, s(key), key));
  if (i("copy_engines") == 0)
    throw ConfigError("copy_engines = 0: scheduler.kind = concurrent copies through its one copy engine "
                      "(copy.*); set copy_engines = 1, or scheduler.kind = batch for copies over the host bus");
}

json Config::to_json() const {
  json root = json::object();
  for (auto& [k, v] : values_) {
    json* node = &root;
    std::stringstream ss(k);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(ss, part, '.')) parts.push_back(part);
    for (size_t n = 0; n + 1 < parts.size(); ++n) node = &(*node)[parts[n]];
    (*node)[parts.back()] = v;
  }
  return root;
}

}  // namespace gpuvp
