#include "platform/cli_exec.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "platform/exec_init.h"
#include "platform/platform.h"

namespace gpuvp {

using nlohmann::json;

namespace {

const std::map<std::string, unsigned> kTypes = {{"u8", 1},  {"i8", 1},  {"u16", 2}, {"i16", 2}, {"u32", 4},
                                                {"i32", 4}, {"u64", 8}, {"i64", 8}, {"f32", 4}, {"f64", 8}};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep)) out.push_back(part);
  return out;
}

json dims(const std::string& s, const char* what) {
  json d = json::array();
  for (auto& p : split(s, ',')) {
    try {
      size_t used = 0;
      long v = std::stol(p, &used);
      if (used != p.size() || v <= 0) throw std::invalid_argument(p);
      d.push_back(v);
    } catch (const std::exception&) {
      throw ConfigError(fmt::format("--{} {}: expected X[,Y[,Z]] of positive integers", what, s));
    }
  }
  if (d.empty() || d.size() > 3) throw ConfigError(fmt::format("--{} {}: expected 1 to 3 dimensions", what, s));
  return d;
}

// "buf:TYPE:COUNT[:init][:out=FILE]" with init zero | const=V | rand=SEED | file=PATH | iota; or "TYPE:VALUE".
json parse_arg(const std::string& a) {
  auto f = split(a, ':');
  auto bad = [&](const std::string& why) {
    return ConfigError(fmt::format("--arg {}: {} (buf:TYPE:COUNT[:zero|const=V|rand=SEED|iota|file=PATH][:out=FILE] or TYPE:VALUE)", a, why));
  };
  if (f.size() >= 3 && f[0] == "buf") {
    json b;
    b["type"] = f[1];
    try {
      b["count"] = std::stoull(f[2]);
    } catch (const std::exception&) {
      throw bad("count is not a number");
    }
    b["init"] = "zero";
    for (size_t i = 3; i < f.size(); ++i) {
      const std::string& o = f[i];
      auto eq = o.find('=');
      std::string k = o.substr(0, eq), v = eq == std::string::npos ? "" : o.substr(eq + 1);
      if (k == "zero" || k == "iota")
        b["init"] = k;
      else if (k == "const")
        b["init"] = "const", b["value"] = v;
      else if (k == "rand")
        b["init"] = "random", b["seed"] = v.empty() ? "1" : v;
      else if (k == "file")
        b["init"] = "file", b["file"] = v;
      else if (k == "out")
        b["dump"] = v;
      else
        throw bad("unknown buffer option '" + o + "'");
    }
    return json{{"buffer", b}};
  }
  if (f.size() == 2 && kTypes.count(f[0])) return json{{f[0], f[1]}};
  throw bad("not a buffer or a scalar");
}

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

// Writes value `v` (text) as element i of a buffer of `type`.
void store(std::vector<uint8_t>& b, const std::string& type, size_t i, double v) {
  if (type == "f32") put<float>(b, i, static_cast<float>(v));
  else if (type == "f64") put<double>(b, i, v);
  else if (type == "u8" || type == "i8") put<uint8_t>(b, i, static_cast<uint8_t>(static_cast<int64_t>(v)));
  else if (type == "u16" || type == "i16") put<uint16_t>(b, i, static_cast<uint16_t>(static_cast<int64_t>(v)));
  else if (type == "u32" || type == "i32") put<uint32_t>(b, i, static_cast<uint32_t>(static_cast<int64_t>(v)));
  else put<uint64_t>(b, i, static_cast<uint64_t>(static_cast<int64_t>(v)));
}

std::string show(const std::vector<uint8_t>& b, const std::string& type, size_t i) {
  auto get = [&](auto t) {
    std::memcpy(&t, b.data() + i * sizeof(t), sizeof(t));
    return t;
  };
  if (type == "f32") return fmt::format("{}", get(float{}));
  if (type == "f64") return fmt::format("{}", get(double{}));
  if (type == "u8") return fmt::format("{}", get(uint8_t{}));
  if (type == "i8") return fmt::format("{}", get(int8_t{}));
  if (type == "u16") return fmt::format("{}", get(uint16_t{}));
  if (type == "i16") return fmt::format("{}", get(int16_t{}));
  if (type == "u32") return fmt::format("{}", get(uint32_t{}));
  if (type == "i32") return fmt::format("{}", get(int32_t{}));
  if (type == "u64") return fmt::format("{}", get(uint64_t{}));
  return fmt::format("{}", get(int64_t{}));
}

double number(const json& v, const std::string& where) {
  try {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      size_t used = 0;
      std::string s = v.get<std::string>();
      double d = std::stod(s, &used);
      if (used == s.size()) return d;
    }
  } catch (const std::exception&) {
  }
  throw ConfigError(fmt::format("{}: {} is not a number", where, v.dump()));
}

struct Buffer {
  std::string type;
  uint64_t count = 0;
  std::vector<uint8_t> bytes;
  std::string dump;
  rt::DevPtr ptr = 0;
};

}  // namespace

void add_exec_options(CLI::App* app, ExecOptions& o) {
  app->add_option("--ptx", o.ptx, "PTX file");
  app->add_option("--kernel,-k", o.kernel, "Entry name");
  app->add_option("--grid", o.grid, "Grid dimensions X[,Y[,Z]]");
  app->add_option("--block", o.block, "Block dimensions X[,Y[,Z]]");
  app->add_option("--arg,-a", o.args,
                  "Kernel argument, in parameter order: buf:TYPE:COUNT[:zero|const=V|rand=SEED|iota|file=PATH][:out=FILE] "
                  "or TYPE:VALUE (TYPE u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)");
  app->add_option("--dyn-shmem", o.dyn_shmem, "Dynamic shared memory per block (bytes)");
  app->add_option("--blocks-per-core", o.blocks_per_core, "Blocks per core (0: most that fit)");
  app->add_option("--launch-file", o.launch_file, "JSON launch description (same fields as the options)");
  app->add_option("--print", o.print, "Elements of each buffer to print after the run");
}

json exec_description(const ExecOptions& o) {
  json d;
  if (!o.launch_file.empty()) {
    std::ifstream in(o.launch_file);
    if (!in) throw ConfigError(fmt::format("{}: cannot open launch file", o.launch_file));
    try {
      d = json::parse(in);
    } catch (const json::parse_error& e) {
      throw ConfigError(fmt::format("{}: not valid JSON: {}", o.launch_file, e.what()));
    }
    if (!d.is_object()) throw ConfigError(fmt::format("{}: a launch description is a JSON object", o.launch_file));
    for (auto& [k, v] : d.items())
      if (k != "ptx" && k != "kernel" && k != "grid" && k != "block" && k != "args" && k != "dyn_shmem" &&
          k != "blocks_per_core")
        throw ConfigError(fmt::format("{}: unknown key '{}' (ptx, kernel, grid, block, args, dyn_shmem, blocks_per_core)",
                                      o.launch_file, k));
    return d;
  }
  d["ptx"] = o.ptx;
  d["kernel"] = o.kernel;
  d["grid"] = dims(o.grid, "grid");
  d["block"] = dims(o.block, "block");
  d["args"] = json::array();
  for (auto& a : o.args) d["args"].push_back(parse_arg(a));
  d["dyn_shmem"] = o.dyn_shmem;
  d["blocks_per_core"] = o.blocks_per_core;
  return d;
}

int cmd_exec(const Config& cfg, const ExecOptions& o) {
  json d = exec_description(o);
  std::string origin = o.launch_file.empty() ? "exec" : o.launch_file;
  if (!d.contains("ptx") || !d["ptx"].is_string() || d["ptx"].get<std::string>().empty())
    throw ConfigError(origin + ": a PTX file is required (--ptx)");
  if (!d.contains("kernel") || !d["kernel"].is_string() || d["kernel"].get<std::string>().empty())
    throw ConfigError(origin + ": a kernel name is required (--kernel)");
  std::string ptx_path = d["ptx"];
  std::ifstream pin(ptx_path);
  if (!pin) throw ConfigError(fmt::format("{}: cannot open PTX file", ptx_path));
  std::string text((std::istreambuf_iterator<char>(pin)), {});
  auto dim3 = [&](const char* key) {
    rt::Dim3 r;
    json v = d.value(key, json::array({1}));
    if (!v.is_array() || v.empty() || v.size() > 3) throw ConfigError(fmt::format("{}: {} must be 1 to 3 integers", origin, key));
    uint32_t* f[3] = {&r.x, &r.y, &r.z};
    for (size_t i = 0; i < v.size(); ++i) {
      double x = number(v[i], fmt::format("{}: {}[{}]", origin, key, i));
      if (x < 1 || x > 65535 || x != static_cast<uint32_t>(x))
        throw ConfigError(fmt::format("{}: {}[{}] = {} must be an integer in [1, 65535]", origin, key, i, v[i].dump()));
      *f[i] = static_cast<uint32_t>(x);
    }
    return r;
  };
  rt::Dim3 grid = dim3("grid"), block = dim3("block");

  // Buffers and scalars, validated before the platform is built.
  std::vector<Buffer> bufs;
  std::vector<std::pair<int, std::vector<uint8_t>>> scalars;  // (buffer index or -1, bytes)
  json args = d.value("args", json::array());
  if (!args.is_array()) throw ConfigError(origin + ": args must be an array");
  for (size_t i = 0; i < args.size(); ++i) {
    std::string where = fmt::format("{}: args[{}]", origin, i);
    const json& a = args[i];
    if (!a.is_object() || a.size() != 1) throw ConfigError(where + ": expected {\"buffer\": {...}} or {\"TYPE\": value}");
    auto [key, val] = *a.items().begin();
    if (key == "buffer") {
      Buffer b;
      b.type = val.value("type", "");
      if (!kTypes.count(b.type)) throw ConfigError(fmt::format("{}: buffer type '{}' is not one of u8 i8 u16 i16 u32 i32 u64 i64 f32 f64", where, b.type));
      double cnt = number(val.value("count", json(0)), where + ".count");
      if (cnt < 1 || cnt > (1u << 26)) throw ConfigError(where + ": count must be in [1, 67108864]");
      b.count = static_cast<uint64_t>(cnt);
      unsigned es = kTypes.at(b.type);
      b.bytes.assign(b.count * es, 0);
      std::string init = val.value("init", "zero");
      if (init == "const") {
        double v = number(val.value("value", json(0)), where + ".value");
        for (uint64_t k = 0; k < b.count; ++k) store(b.bytes, b.type, k, v);
      } else if (init == "iota") {
        for (uint64_t k = 0; k < b.count; ++k) store(b.bytes, b.type, k, static_cast<double>(k));
      } else if (init == "random") {
        b.bytes = exec::random_bytes(b.type, b.count, static_cast<uint64_t>(number(val.value("seed", json(1)), where + ".seed")));
      } else if (init == "file") {
        std::string path = val.value("file", "");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw ConfigError(fmt::format("{}: cannot open '{}'", where, path));
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), {});
        if (data.size() != b.bytes.size())
          throw ConfigError(fmt::format("{}: '{}' has {} bytes, the buffer {}", where, path, data.size(), b.bytes.size()));
        b.bytes = data;
      } else if (init != "zero") {
        throw ConfigError(fmt::format("{}: init '{}' is not one of zero, const, iota, random, file", where, init));
      }
      b.dump = val.value("dump", "");
      scalars.emplace_back(static_cast<int>(bufs.size()), std::vector<uint8_t>{});
      bufs.push_back(std::move(b));
    } else if (kTypes.count(key)) {
      std::vector<uint8_t> bytes(kTypes.at(key));
      store(bytes, key, 0, number(val, where));
      scalars.emplace_back(-1, bytes);
    } else {
      throw ConfigError(fmt::format("{}: '{}' is not buffer or a type", where, key));
    }
  }

  Platform p(cfg);
  rt::LaunchStats ls;
  p.run([&](rt::Runtime& rt) {
    rt::Module m = rt.load_module(text, ptx_path);
    rt::KernelArgs ka;
    for (auto& [bi, bytes] : scalars) {
      if (bi >= 0) {
        Buffer& b = bufs[bi];
        b.ptr = rt.malloc(b.bytes.size());
        rt.memcpy_h2d(b.ptr, b.bytes.data(), b.bytes.size());
        ka.ptr(b.ptr);
      } else {
        ka.raw(bytes.data(), bytes.size());
      }
    }
    rt.launch(m, d["kernel"], grid, block, ka, d.value("dyn_shmem", 0u), d.value("blocks_per_core", 0u));
    rt.synchronize();
    ls = rt.launches().back();
    for (auto& b : bufs) rt.memcpy_d2h(b.bytes.data(), b.ptr, b.bytes.size());
  });
  PlatformStats st = p.stats();
  fmt::print("{} on {}: {} cycles, {} thread-instructions, {:.3f} us simulated\n", ls.kernel, p.props().name, ls.cycles,
             st.thread_insts, st.sim_seconds * 1e6);
  for (size_t i = 0; i < bufs.size(); ++i) {
    const Buffer& b = bufs[i];
    std::string vals;
    for (uint64_t k = 0; k < std::min<uint64_t>(b.count, o.print); ++k) vals += " " + show(b.bytes, b.type, k);
    fmt::print("  buffer {} ({} x {}):{}{}\n", i, b.count, b.type, vals, b.count > o.print ? " ..." : "");
    if (!b.dump.empty()) {
      std::ofstream out(b.dump, std::ios::binary);
      if (!out) throw std::runtime_error(fmt::format("{}: cannot write", b.dump));
      out.write(reinterpret_cast<const char*>(b.bytes.data()), static_cast<std::streamsize>(b.bytes.size()));
    }
  }
  return 0;
}

}  // namespace gpuvp
