#include "platform/config/config.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuvp {

using Type = KeyDef::Type;
using nlohmann::json;

namespace {

KeyDef I(std::string k, int64_t def, double lo, double hi, std::string doc, bool pow2 = false) {
  KeyDef d;
  d.key = std::move(k);
  d.type = Type::Int;
  d.def = def;
  d.min = lo;
  d.max = hi;
  d.power_of_two = pow2;
  d.doc = std::move(doc);
  return d;
}
KeyDef F(std::string k, double def, double lo, double hi, std::string doc) {
  KeyDef d;
  d.key = std::move(k);
  d.type = Type::Float;
  d.def = def;
  d.min = lo;
  d.max = hi;
  d.doc = std::move(doc);
  return d;
}
KeyDef B(std::string k, bool def, std::string doc) {
  KeyDef d;
  d.key = std::move(k);
  d.type = Type::Bool;
  d.def = def;
  d.doc = std::move(doc);
  return d;
}
KeyDef S(std::string k, std::string def, std::vector<std::string> choices, std::string doc) {
  KeyDef d;
  d.key = std::move(k);
  d.type = Type::String;
  d.def = def;
  d.choices = std::move(choices);
  d.doc = std::move(doc);
  return d;
}

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<KeyDef> make_schema() {
  return {
      S("platform.name", "custom", {}, "Name shown in reports"),
      F("gpu.clock_mhz", 100, 1, 5000, "GPU clock (MHz): SMs, scheduler, arbiters, memories"),
      I("sm.count", 1, 1, 16, "Number of SMs"),
      I("sm.sps", 8, 1, 256, "SPs (CUDA cores) per SM; a warp instruction issues over warp_size/sps cycles"),
      I("sm.warp_size", 32, 4, 32,
        "Threads per warp (power of two); nvcc's warp-level instructions (shfl, vote, activemask) need 32 and "
        "stop with a device error on narrower warps", true),
      I("sm.max_threads", 2048, 32, 4096, "Resident threads per SM"),
      I("sm.max_threads_per_block", 1024, 32, 1024, "Threads per block"),
      I("sm.max_blocks", 8, 1, 64, "Resident blocks per SM (hardware limit)"),
      I("sm.registers", 65536, 256, 262144, "32-bit registers per SM"),
      I("sm.shared_bytes", 16384, 1024, 262144, "Shared memory per SM (bytes)"),
      I("sm.shared_per_block", 16384, 1024, 262144, "Shared memory per block (bytes)"),
      I("sm.ibuf_insts", 64, 0, 4096, "Instruction buffer (instructions); 0 fetches every instruction"),
      S("sm.warp_policy", "rr", {"rr", "gto"}, "Warp scheduler: round robin or greedy-then-oldest"),
      B("sm.coalesce", false, "Coalesce global accesses into segments (false: lane by lane)"),
      I("sm.coalesce_bytes", 32, 4, 256, "Coalescing segment (bytes)", true),
      I("sm.local_bytes", 16384, 0, 524288, "Local memory per thread limit (bytes)"),
      I("sm.latency.alu", 4, 1, 1000, "Cycles: integer/fp32 ALU"),
      I("sm.latency.mul", 4, 1, 1000, "Cycles: multiply, mad, fma"),
      I("sm.latency.fp64", 8, 1, 1000, "Cycles: fp64"),
      I("sm.latency.sfu", 16, 1, 1000, "Cycles: sqrt, rcp, sin, cos, ex2, lg2, div, rem"),
      I("sm.latency.shared", 4, 1, 1000, "Cycles: shared memory access"),
      I("sm.latency.branch", 2, 1, 1000, "Cycles: branch"),
      I("sm.latency.barrier", 2, 1, 1000, "Cycles: barrier"),
      I("sm.latency.atomic", 4, 0, 1000, "Extra cycles: atomic read-modify-write at the memory"),
      S("gmem.model", "byte_serial", {"byte_serial", "dram", "fixed"},
        "Global memory timing: byte_serial (latency + bytes/bytes_per_cycle), dram (latency + bytes/bandwidth), fixed"),
      F("gmem.size_mib", 64, 1, 4096, "Global memory size (MiB)"),
      I("gmem.latency", 2, 0, 100000, "Global memory access latency (cycles)"),
      I("gmem.bytes_per_cycle", 1, 1, 1024, "Bytes transferred per cycle (byte_serial, fixed)"),
      F("gmem.bandwidth_gbps", 14.8, 0.1, 10000, "DRAM bandwidth (GB/s, dram model)"),
      F("gmem.latency_ns", 0, 0, 100000, "Extra DRAM access latency (ns, dram model)"),
      B("gmem.check_bounds", true,
        "Accesses outside every allocation are address errors (false: anything inside global memory goes)"),
      F("sysmem.size_mib", 16, 1, 4096, "System memory size (MiB)"),
      I("sysmem.latency", 2, 0, 100000, "System memory latency (cycles)"),
      I("sysmem.bytes_per_cycle", 4, 1, 1024, "System memory bytes per cycle"),
      F("cmem.size_kib", 64, 1, 65536, "Constant memory size (KiB)"),
      I("cmem.latency", 2, 0, 100000, "Constant memory latency (cycles)"),
      I("cmem.bytes_per_cycle", 4, 1, 1024, "Constant memory bytes per cycle"),
      I("cfgblock.latency", 1, 0, 1000, "Configuration block access latency (cycles)"),
      S("scheduler.impl", "model", {"model", "rtl"},
        "Block scheduler implementation: SystemC model, or the Verilated RTL (rtl/block_scheduler.sv)"),
      S("scheduler.policy", "round_robin", {"round_robin", "ordered", "even_odd", "random"},
        "Order in which SMs receive blocks"),
      I("scheduler.seed", 1, 0, 4294967295.0, "Seed of the random policy"),
      I("scheduler.blocks_per_core", 0, 0, 64, "Blocks per core written to the configuration block (0: most that fit)"),
      S("arbiter.impl", "model", {"model", "rtl"},
        "Stall arbiter implementation: SystemC model, or the Verilated RTL (rtl/stall_arbiter.sv)"),
      F("host.bus_bytes_per_ns", 1.0, 0.001, 1000, "Host bus bandwidth (bytes per ns) for copies"),
      F("host.bus_latency_ns", 100, 0, 1e6, "Host bus latency per transaction (ns)"),
      F("host.launch_latency_ns", 0, 0, 1e9, "Driver launch latency (ns) before the start register is written"),
      I("l2.size_kib", 0, 0, 65536, "L2 size (KiB); informational only: no L2 cache is modelled yet"),
      I("copy_engines", 0, 0, 8,
        "Copy engines; informational only: copies always go over the host bus (bus bandwidth and latency)"),
      F("sim.timeout_ms", 2000, 0, 1e9,
        "Simulated time after which a run that has not finished stops with a timeout error (0: no limit)"),
      S("log.level", "warn", {"error", "warn", "info", "debug", "trace"}, "Default log level"),
  };
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
      double x;
      if (v.is_number_integer() || v.is_number_unsigned())
        x = v.get<double>();
      else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())
        x = v.get<double>();
      else
        throw fail("not an integer");
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

}  // namespace

const std::vector<KeyDef>& config_schema() {
  static const std::vector<KeyDef> s = make_schema();
  return s;
}

Config::Config() {
  for (auto& d : config_schema()) values_[d.key] = d.def;
}

std::string Config::preset_dir() {
  // An installed tree may point elsewhere; the source tree is the default.
  if (const char* env = std::getenv("GPUVP_PRESETS")) return env;
  return std::string(GPUVP_SOURCE_DIR) + "/platform/presets";
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
  std::string path = preset_dir() + "/" + name + ".json";
  if (!std::filesystem::exists(path)) {
    std::string known;
    for (auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("unknown preset '{}' (known: {})", name, known));
  }
  Config c;
  c.merge_file(path);
  c.name_ = name;
  return c;
}

void Config::merge_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw ConfigError(fmt::format("{}: not a configuration file (not a regular file)", path));
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot open configuration file", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  merge(j, path);
}

void Config::merge(const json& j, const std::string& origin) {
  if (!j.is_object()) throw ConfigError(fmt::format("{}: a configuration must be a JSON object", origin));
  std::vector<std::pair<std::string, json>> flat;
  flatten(j, "", flat);
  for (auto& [k, v] : flat) set(k, v, origin);
}

void Config::set(const std::string& key, const json& value, const std::string& origin) {
  const KeyDef* d = find_def(key);
  if (!d) {
    // Suggest keys that share the first component: the usual typo is in the leaf.
    std::string group = key.substr(0, key.find('.'));
    std::string near;
    for (auto& k : config_schema())
      if (k.key.compare(0, group.size() + 1, group + ".") == 0) near += (near.empty() ? "" : ", ") + k.key;
    throw ConfigError(fmt::format("{}: unknown configuration key '{}'{}", origin, key,
                                  near.empty() ? "" : " (keys in '" + group + "': " + near + ")"));
  }
  values_[key] = check(*d, value, origin);
  if (key == "platform.name") name_ = value.get<std::string>();
}

void Config::set(const std::string& a) {
  auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(fmt::format("--set {}: expected key=value", a));
  std::string key = a.substr(0, eq), text = a.substr(eq + 1);
  const KeyDef* d = find_def(key);
  if (!d) {
    set(key, json(text), "--set");  // reports the unknown key
    return;
  }
  json v;
  if (d->type == Type::String) {
    v = text;
  } else {
    try {
      v = json::parse(text);
    } catch (const json::exception&) {
      v = text;  // not JSON, or a number JSON cannot hold: reported as a wrong type by check()
    }
  }
  set(key, v, "--set");
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

void Config::validate() const {
  if (i("sm.max_threads_per_block") > i("sm.max_threads"))
    throw ConfigError(fmt::format("sm.max_threads_per_block = {} exceeds sm.max_threads = {}",
                                  i("sm.max_threads_per_block"), i("sm.max_threads")));
  if (i("sm.shared_per_block") > i("sm.shared_bytes"))
    throw ConfigError(fmt::format("sm.shared_per_block = {} exceeds sm.shared_bytes = {}", i("sm.shared_per_block"),
                                  i("sm.shared_bytes")));
  if (i("sm.warp_size") > i("sm.max_threads_per_block"))
    throw ConfigError("sm.warp_size exceeds sm.max_threads_per_block");
  if (i("scheduler.blocks_per_core") > i("sm.max_blocks"))
    throw ConfigError(fmt::format("scheduler.blocks_per_core = {} exceeds sm.max_blocks = {}",
                                  i("scheduler.blocks_per_core"), i("sm.max_blocks")));
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
