#include "platform/cli_exec.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "platform/config/json_text.h"
#include "platform/exec_init.h"
#include "platform/int_text.h"
#include "platform/output_file.h"
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

// "X[,Y[,Z]]": every field a positive integer; an empty field ("4,", ",4", "4,,2") is an error, not dropped.
json dims(const std::string& s, const char* what) {
  std::vector<std::string> parts = split(s, ',');
  if (s.empty() || s.back() == ',') parts.push_back("");  // getline drops a trailing empty field
  if (parts.size() > 3) throw ConfigError(fmt::format("--{} {}: expected 1 to 3 dimensions", what, s));
  json d = json::array();
  for (auto& p : parts) {
    IntText v;
    if (parse_int_text(p, v) || v.neg || v.mag == 0 || v.mag > 0xFFFFFFFFu)
      throw ConfigError(fmt::format("--{} {}: '{}' is not a positive integer; expected X[,Y[,Z]]", what, s, p));
    d.push_back(v.mag);
  }
  return d;
}

uint64_t int_in(const json& v, uint64_t lo, uint64_t hi, const std::string& where);

// "buf:TYPE:COUNT[:init][:out=FILE]" with init zero | const=V | rand=SEED | file=PATH | iota; or "TYPE:VALUE".
json parse_arg(const std::string& a) {
  auto f = split(a, ':');
  auto bad = [&](const std::string& why) {
    return ConfigError(fmt::format("--arg {}: {} (buf:TYPE:COUNT[:zero|const=V|rand=SEED|iota|file=PATH][:out=FILE] or TYPE:VALUE)", a, why));
  };
  if (f.size() >= 3 && f[0] == "buf") {
    json b;
    b["type"] = f[1];
    b["count"] = int_in(json(f[2]), 1, 1u << 26, fmt::format("--arg {}: count", a));
    b["init"] = "zero";
    std::string init_given;  // one initialiser and one out= at most: a second would silently win
    for (size_t i = 3; i < f.size(); ++i) {
      const std::string& o = f[i];
      auto eq = o.find('=');
      std::string k = o.substr(0, eq), v = eq == std::string::npos ? "" : o.substr(eq + 1);
      if (k != "out" && !init_given.empty())
        throw bad(fmt::format("two initialisers '{}' and '{}'", init_given, o));
      if (k == "out" && b.contains("dump")) throw bad("two out= files");
      if (k != "out") init_given = o;
      if (k == "zero" || k == "iota")
        b["init"] = k;
      else if (k == "const")
        b["init"] = "const", b["value"] = v;
      else if (k == "rand")
        b["init"] = "random", b["seed"] = v.empty() ? std::string("1") : v;
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

// An integer as sign and magnitude, exactly (parse_json_int). Throws ConfigError naming `where`.
IntText parse_int(const json& v, const std::string& where) {
  IntText x;
  if (const char* why = parse_json_int(v, x)) throw ConfigError(fmt::format("{}: {} {}", where, v.dump(), why));
  return x;
}

// An integer in [lo, hi] (counts, seeds, dimensions, sizes).
uint64_t int_in(const json& v, uint64_t lo, uint64_t hi, const std::string& where) {
  IntText x = parse_int(v, where);
  if ((x.neg && x.mag != 0) || x.mag < lo || x.mag > hi)
    throw ConfigError(fmt::format("{}: {} must be an integer in [{}, {}]", where, v.dump(), lo, hi));
  return x.mag;
}

double parse_float(const json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string t = v.get<std::string>();
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (!t.empty() && *end == '\0') return d;
  }
  throw ConfigError(fmt::format("{}: {} is not a number", where, v.dump()));
}

// The bytes of `v` as a value of `type`, exactly, or ConfigError if it is not representable.
std::vector<uint8_t> encode(const std::string& type, const json& v, const std::string& where) {
  unsigned es = kTypes.at(type);
  std::vector<uint8_t> out(es);
  if (type == "f32" || type == "f64") {
    double d = parse_float(v, where);
    if (type == "f32") {
      if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max())
        throw ConfigError(fmt::format("{}: {} is not representable as f32", where, v.dump()));
      float f = static_cast<float>(d);
      std::memcpy(out.data(), &f, 4);
    } else {
      std::memcpy(out.data(), &d, 8);
    }
    return out;
  }
  IntText x = parse_int(v, where);
  const bool is_signed = type[0] == 'i';
  const unsigned bits = es * 8;
  const uint64_t umax = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t pos_max = is_signed ? umax >> 1 : umax, neg_max = is_signed ? (umax >> 1) + 1 : 0;
  if (x.neg ? x.mag > neg_max : x.mag > pos_max)
    throw ConfigError(fmt::format("{}: {} is not representable as {}", where, v.dump(), type));
  uint64_t bits_v = x.neg ? uint64_t(0) - x.mag : x.mag;
  std::memcpy(out.data(), &bits_v, es);  // little-endian: the low bytes
  return out;
}

// Input files must be readable regular files; output files must be writable before the run starts.
void check_input(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ConfigError(fmt::format("{} {}: {}", what, path,
                                  std::filesystem::exists(path, ec) ? "is not a regular file" : "does not exist"));
}

// Two dump paths naming one file (the second dump would overwrite the first).
bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ea, eb;
  auto ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
  return ea || eb ? a == b : ca == cb;
}

// The contents a buffer starts with: its `init` (zero, const, iota, random, file) and the key that
// init reads; a key for another init is refused (it would be silently ignored).
std::vector<uint8_t> initial_bytes(const json& val, const ExecBuffer& b, const std::string& init, const std::string& where,
                                   const std::function<std::string(const char*)>& str) {
  const unsigned es = kTypes.at(b.type);
  std::vector<uint8_t> bytes(b.count * es, 0);
  if (init == "const") {
    std::vector<uint8_t> one = encode(b.type, val.contains("value") ? val["value"] : json(0), where + ".value");
    for (uint64_t k = 0; k < b.count; ++k) std::memcpy(bytes.data() + k * es, one.data(), es);
  } else if (init == "iota") {
    // 0, 1, 2, ...: integers wrap at the type's width.
    for (uint64_t k = 0; k < b.count; ++k) {
      if (b.type == "f32" || b.type == "f64") {
        std::vector<uint8_t> one = encode(b.type, json(double(k)), where);
        std::memcpy(bytes.data() + k * es, one.data(), es);
      } else {
        std::memcpy(bytes.data() + k * es, &k, es);
      }
    }
  } else if (init == "random") {
    uint64_t seed = int_in(val.contains("seed") ? val["seed"] : json(1), 0, ~uint64_t{0}, where + ".seed");
    bytes = exec::random_bytes(b.type, b.count, seed);
  } else if (init == "file") {
    std::string path = str("file");
    check_input(path, where + ".file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(fmt::format("{}: cannot open '{}'", where, path));
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), {});
    if (data.size() != bytes.size())
      throw ConfigError(fmt::format("{}: '{}' has {} bytes, the buffer {}", where, path, data.size(), bytes.size()));
    bytes = data;
  } else if (init != "zero") {
    throw ConfigError(fmt::format("{}: init '{}' is not one of zero, const, iota, random, file", where, init));
  }
  const std::pair<const char*, const char*> init_keys[] = {{"value", "const"}, {"seed", "random"}, {"file", "file"}};
  for (auto& [key, for_init] : init_keys)
    if (val.contains(key) && init != for_init)
      throw ConfigError(fmt::format("{}: '{}' is for init '{}', the buffer's init is '{}'", where, key, for_init, init));
  return bytes;
}

// One {"buffer": {...}} argument; `earlier` are the buffers before it (no two dump to one file).
ExecBuffer parse_buffer(const json& val, const std::string& where, const std::vector<ExecBuffer>& earlier) {
  if (!val.is_object()) throw ConfigError(where + ": buffer must be an object");
  for (auto& [k, unused] : val.items())
    if (k != "type" && k != "count" && k != "init" && k != "value" && k != "seed" && k != "file" && k != "dump")
      throw ConfigError(fmt::format("{}: unknown buffer key '{}' (type, count, init, value, seed, file, dump)", where, k));
  auto str = [&](const char* k) {
    if (!val.contains(k)) return std::string();
    if (!val[k].is_string()) throw ConfigError(fmt::format("{}.{}: {} is not a string", where, k, val[k].dump()));
    return val[k].get<std::string>();
  };
  ExecBuffer b;
  b.type = str("type");
  if (!kTypes.count(b.type))
    throw ConfigError(fmt::format("{}: buffer type '{}' is not one of u8 i8 u16 i16 u32 i32 u64 i64 f32 f64", where, b.type));
  b.count = int_in(val.contains("count") ? val["count"] : json(0), 1, 1u << 26, where + ".count");
  const std::string init = val.contains("init") ? str("init") : "zero";
  b.bytes = initial_bytes(val, b, init, where, str);
  b.dump = str("dump");
  if (!b.dump.empty()) check_output(b.dump, where + ".dump");
  for (size_t j = 0; j < earlier.size(); ++j)
    if (same_file(earlier[j].dump, b.dump))
      throw ConfigError(fmt::format("{}: buffers {} and {} both dump to '{}'", where, j, earlier.size(), b.dump));
  return b;
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

}  // namespace

void add_exec_options(CLI::App* app, ExecOptions& o) {
  // The launch file holds the whole launch: an option beside it would be ignored, so CLI11 refuses both.
  std::vector<CLI::Option*> launch = {
      app->add_option("--ptx", o.ptx, "PTX file"),
      app->add_option("--kernel,-k", o.kernel, "Entry name"),
      app->add_option("--grid", o.grid, "Grid dimensions X[,Y[,Z]]"),
      app->add_option("--block", o.block, "Block dimensions X[,Y[,Z]]"),
      app->add_option("--arg,-a", o.args,
                      "Kernel argument, in parameter order: buf:TYPE:COUNT[:zero|const=V|rand=SEED|iota|file=PATH][:out=FILE] "
                      "or TYPE:VALUE (TYPE u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)"),
      add_uint_option(app, "--dyn-shmem", o.dyn_shmem, "Dynamic shared memory per block (bytes)", 0, 0xFFFFFFFFu),
      add_uint_option(app, "--blocks-per-core", o.blocks_per_core, "Blocks per core (0: most that fit)", 0, 64)};
  auto* file = app->add_option("--launch-file", o.launch_file, "JSON launch description (same fields as the options; none of them beside it)");
  for (auto* opt : launch) file->excludes(opt);
  add_uint_option(app, "--print", o.print, "Elements of each buffer to print after the run", 0, ~uint64_t{0});
}

json exec_description(const ExecOptions& o) {
  json d;
  if (!o.launch_file.empty()) {
    check_input(o.launch_file, "--launch-file");
    std::ifstream in(o.launch_file);
    if (!in) throw ConfigError(fmt::format("{}: cannot open launch file", o.launch_file));
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    if (std::string deep = json_depth_error(text, o.launch_file); !deep.empty()) throw ConfigError(deep);
    try {
      d = json::parse(text);
    } catch (const json::exception& e) {
      throw ConfigError(fmt::format("{}: not valid JSON: {}", o.launch_file, e.what()));
    }
    if (!d.is_object()) throw ConfigError(fmt::format("{}: a launch description is a JSON object", o.launch_file));
    // A relative PTX path is the launch file's neighbour, wherever gpuvp runs from.
    if (d.contains("ptx") && d["ptx"].is_string() && !d["ptx"].get<std::string>().empty()) {
      std::filesystem::path ptx(d["ptx"].get<std::string>());
      if (ptx.is_relative()) d["ptx"] = (std::filesystem::path(o.launch_file).parent_path() / ptx).string();
    }
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

ExecJob ExecJob::parse(const json& d, const std::string& origin) {
  ExecJob job;
  job.origin = origin;
  std::string& ptx_path = job.ptx_path;
  std::string& text = job.text;
  std::string& kernel = job.kernel;
  rt::Dim3& grid = job.grid;
  rt::Dim3& block = job.block;
  uint32_t& dyn_shmem = job.dyn_shmem;
  uint32_t& bpc = job.blocks_per_core;
  auto& bufs = job.bufs;
  auto& job_args = job.args;
  try {
    auto required = [&](const char* key, const char* what) {
      if (d.contains(key) && !d[key].is_string())
        throw ConfigError(fmt::format("{}: '{}' must be a string ({}), not {}", origin, key, what, d[key].dump()));
      if (!d.contains(key) || d[key].get<std::string>().empty())
        throw ConfigError(fmt::format("{}: {} is required (--{})", origin, what, key));
    };
    required("ptx", "a PTX file");
    required("kernel", "a kernel name");
    ptx_path = d["ptx"];
    kernel = d["kernel"];
    check_input(ptx_path, origin + ": 'ptx': the PTX file");
    std::ifstream pin(ptx_path);
    if (!pin) throw ConfigError(fmt::format("{}: cannot open PTX file", ptx_path));
    text.assign((std::istreambuf_iterator<char>(pin)), {});
    auto dim3 = [&](const char* key) {
      rt::Dim3 r;
      json v = d.contains(key) ? d[key] : json::array({1});
      if (!v.is_array() || v.empty() || v.size() > 3)
        throw ConfigError(fmt::format("{}: {} must be 1 to 3 integers", origin, key));
      uint32_t* f[3] = {&r.x, &r.y, &r.z};
      for (size_t i = 0; i < v.size(); ++i)
        *f[i] = static_cast<uint32_t>(int_in(v[i], 1, 65535, fmt::format("{}: {}[{}]", origin, key, i)));
      return r;
    };
    grid = dim3("grid");
    block = dim3("block");
    if (d.contains("dyn_shmem"))
      dyn_shmem = static_cast<uint32_t>(int_in(d["dyn_shmem"], 0, 0xFFFFFFFFull, origin + ": dyn_shmem"));
    if (d.contains("blocks_per_core"))
      bpc = static_cast<uint32_t>(int_in(d["blocks_per_core"], 0, 64, origin + ": blocks_per_core"));

    // Buffers and scalars, validated before the platform is built.
    json args = d.contains("args") ? d["args"] : json::array();
    if (!args.is_array()) throw ConfigError(origin + ": args must be an array");
    for (size_t i = 0; i < args.size(); ++i) {
      std::string where = fmt::format("{}: args[{}]", origin, i);
      const json& a = args[i];
      if (!a.is_object() || a.size() != 1)
        throw ConfigError(where + ": expected {\"buffer\": {...}} or {\"TYPE\": value}");
      auto [key, val] = *a.items().begin();
      if (key == "buffer") {
        bufs.push_back(parse_buffer(val, where, bufs));
        job_args.push_back({static_cast<int>(bufs.size() - 1), {}, rt::ArgKind::Int});
      } else if (kTypes.count(key)) {
        job_args.push_back({-1, encode(key, val, where), key[0] == 'f' ? rt::ArgKind::Float : rt::ArgKind::Int});
      } else {
        throw ConfigError(fmt::format("{}: '{}' is not buffer or a type", where, key));
      }
    }
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
  return job;
}

void ExecJob::run(rt::Runtime& rt) {
  rt::Module m = rt.load_module(text, ptx_path);
  rt::KernelArgs ka;
  for (auto& a : args) {
    if (a.buf >= 0) {
      ExecBuffer& b = bufs[a.buf];
      b.ptr = rt.malloc(b.bytes.size());
      rt.memcpy_h2d(b.ptr, b.bytes.data(), b.bytes.size());
      ka.ptr(b.ptr);
    } else {
      ka.raw(a.bytes.data(), a.bytes.size(), a.kind);
    }
  }
  try {
    rt.launch(m, kernel, grid, block, ka, dyn_shmem, blocks_per_core);
  } catch (const rt::RuntimeError& e) {  // say which description the launch came from
    throw rt::RuntimeError(fmt::format("{}: {}", origin, e.what()));
  }
  rt.synchronize();
  launch = rt.launches().back();
  for (auto& b : bufs) rt.memcpy_d2h(b.bytes.data(), b.ptr, b.bytes.size());
}

std::vector<uint8_t> ExecJob::output() const {
  std::vector<uint8_t> out;
  for (auto& b : bufs) out.insert(out.end(), b.bytes.begin(), b.bytes.end());
  return out;
}

int cmd_exec(const Config& cfg, const ExecOptions& o) {
  ExecJob job = ExecJob::parse(exec_description(o), o.launch_file.empty() ? "exec" : o.launch_file);
  Platform p(cfg);
  p.run([&](rt::Runtime& rt) { job.run(rt); });
  const auto& bufs = job.bufs;
  const rt::LaunchStats& ls = job.launch;
  PlatformStats st = p.stats();
  fmt::print("{} on {}: {} cycles, {} thread-instructions, {:.3f} us simulated\n", ls.kernel, p.props().name, ls.cycles,
             st.thread_insts, st.sim_seconds * 1e6);
  for (size_t i = 0; i < bufs.size(); ++i) {
    const ExecBuffer& b = bufs[i];
    std::string vals;
    for (uint64_t k = 0; k < std::min<uint64_t>(b.count, o.print); ++k) vals += " " + show(b.bytes, b.type, k);
    fmt::print("  buffer {} ({} x {}):{}{}\n", i, b.count, b.type, vals, b.count > o.print ? " ..." : "");
    if (!b.dump.empty()) {
      write_output(b.dump, std::string(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size()));
    }
  }
  return 0;
}

}  // namespace gpuvp
