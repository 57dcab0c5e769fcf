#include "platform/cli_exec.h"
#include "platform/text.h"

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
#include "platform/user_file.h"

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
  if (const char* why = parse_json_int(v, x)) throw ConfigError(fmt::format("{}: {} {}", where, json_shown(v), why));
  return x;
}

// An integer in [lo, hi] (counts, seeds, dimensions, sizes).
uint64_t int_in(const json& v, uint64_t lo, uint64_t hi, const std::string& where) {
  IntText x = parse_int(v, where);
  if ((x.neg && x.mag != 0) || x.mag < lo || x.mag > hi)
    throw ConfigError(fmt::format("{}: {} must be an integer in [{}, {}]", where, json_shown(v), lo, hi));
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
  throw ConfigError(fmt::format("{}: {} is not a number", where, json_shown(v)));
}

// The bytes of `v` as a value of `type`, exactly, or ConfigError if it is not representable.
std::vector<uint8_t> encode(const std::string& type, const json& v, const std::string& where) {
  unsigned es = kTypes.at(type);
  std::vector<uint8_t> out(es);
  if (type == "f32" || type == "f64") {
    double d = parse_float(v, where);
    if (type == "f32") {
      if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max())
        throw ConfigError(fmt::format("{}: {} is not representable as f32", where, json_shown(v)));
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
    throw ConfigError(fmt::format("{}: {} is not representable as {}", where, json_shown(v), type));
  uint64_t bits_v = x.neg ? uint64_t(0) - x.mag : x.mag;
  std::memcpy(out.data(), &bits_v, es);  // little-endian: the low bytes
  return out;
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
std::vector<uint8_t> initial_bytes(const json& val, const ExecBuffer& b, const std::string& init,
                                   const std::string& where) {
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
    if (b.file.empty()) throw ConfigError(fmt::format("{}: init 'file' needs a 'file' (the path of the bytes)", where));
    const std::string data = read_user_file(b.file, where + ".file");
    if (data.size() != bytes.size())
      throw ConfigError(fmt::format("{}: '{}' has {} bytes, the buffer {}", where, b.file, data.size(), bytes.size()));
    bytes.assign(data.begin(), data.end());
  } else if (init != "zero") {
    throw ConfigError(fmt::format("{}: init '{}' is not one of zero, const, iota, random, file", where, init));
  }
  const std::pair<const char*, const char*> init_keys[] = {{"value", "const"}, {"seed", "random"}, {"file", "file"}};
  for (auto& [key, for_init] : init_keys)
    if (val.contains(key) && init != for_init)
      throw ConfigError(fmt::format("{}: '{}' is for init '{}', the buffer's init is '{}'", where, key, for_init, init));
  return bytes;
}

// A path of the description, relative to the source's folder.
std::string resolved(const std::string& path, const ExecSource& src) {
  if (path.empty() || src.base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(src.base_dir) / path).string();
}

// One {"buffer": {...}} argument.
ExecBuffer parse_buffer(const json& val, const std::string& where, const ExecSource& src) {
  if (!val.is_object()) throw ConfigError(where + ": buffer must be an object");
  if (std::string e = unknown_key_error(val, {"type", "count", "init", "value", "seed", "file", "dump"}, where); !e.empty())
    throw ConfigError(e);
  auto str = [&](const char* k) {
    if (!val.contains(k)) return std::string();
    if (!val[k].is_string()) throw ConfigError(fmt::format("{}.{}: {} is not a string", where, k, json_shown(val[k])));
    return val[k].get<std::string>();
  };
  ExecBuffer b;
  b.type = str("type");
  if (!kTypes.count(b.type))
    throw ConfigError(fmt::format("{}: buffer type '{}' is not one of u8 i8 u16 i16 u32 i32 u64 i64 f32 f64", where, b.type));
  b.count = int_in(val.contains("count") ? val["count"] : json(0), 1, 1u << 26, where + ".count");
  const std::string init = val.contains("init") ? str("init") : "zero";
  b.file = resolved(str("file"), src);
  b.bytes = initial_bytes(val, b, init, where);
  b.dump = resolved(str("dump"), src);
  if (!b.dump.empty() && !src.outputs)
    throw ConfigError(fmt::format("{}.dump: a campaign compares the buffers and writes no file; remove dump", where));
  return b;
}

// Every dump is checked writable before the run, and none may overwrite an input of the launch (its
// PTX, its launch file, a buffer's file) or another dump.
void check_dumps(const ExecJob& job, const ExecSource& src) {
  for (size_t i = 0; i < job.bufs.size(); ++i) {
    const std::string& dump = job.bufs[i].dump;
    if (dump.empty()) continue;
    const std::string where = fmt::format("{}: buffer {} dump '{}'", src.origin, i, dump);
    auto refuse_if = [&](const std::string& other, const std::string& what) {
      if (same_file(dump, other)) throw ConfigError(fmt::format("{} would overwrite {} '{}'", where, what, other));
    };
    refuse_if(job.ptx_path, "the PTX file");
    refuse_if(src.file, "the launch file");
    for (size_t j = 0; j < job.bufs.size(); ++j) {
      refuse_if(job.bufs[j].file, fmt::format("buffer {}'s input file", j));
      if (j < i) refuse_if(job.bufs[j].dump, fmt::format("buffer {}'s dump", j));
    }
    check_output(dump, where);
  }
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
    d = read_user_json(o.launch_file, "--launch-file");
    if (!d.is_object()) throw ConfigError(fmt::format("{}: a launch description is a JSON object", o.launch_file));
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

ExecJob ExecJob::parse(const json& d, const ExecSource& src) {
  const std::string& origin = src.origin;
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
    if (!d.is_object()) throw ConfigError(fmt::format("{}: a launch description is a JSON object", origin));
    const std::string unknown =
        unknown_key_error(d, {"ptx", "kernel", "grid", "block", "args", "dyn_shmem", "blocks_per_core"}, origin);
    if (!unknown.empty()) throw ConfigError(unknown);
    auto required = [&](const char* key, const char* what) {
      if (d.contains(key) && !d[key].is_string())
        throw ConfigError(fmt::format("{}: '{}' must be a string ({}), not {}", origin, key, what, json_shown(d[key])));
      if (!d.contains(key) || d[key].get<std::string>().empty())
        throw ConfigError(fmt::format("{}: {} is required (--{})", origin, what, key));
    };
    required("ptx", "a PTX file");
    required("kernel", "a kernel name");
    ptx_path = resolved(d["ptx"].get<std::string>(), src);
    kernel = d["kernel"];
    text = read_user_file(ptx_path, origin + ": ptx: the PTX file");
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
      if (std::string e = unknown_key_error(a, {"buffer", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"},
                                            where);
          !e.empty())
        throw ConfigError(e);
      if (!a.is_object() || a.size() != 1)
        throw ConfigError(where + ": expected {\"buffer\": {...}} or {\"TYPE\": value}");
      auto [key, val] = *a.items().begin();
      if (key == "buffer") {
        bufs.push_back(parse_buffer(val, where, src));
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
  check_dumps(job, src);
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
  // Paths in a launch file are the file's neighbours; on the command line, the current directory's.
  const ExecSource src = o.launch_file.empty()
                             ? ExecSource{"exec", "", "", true}
                             : ExecSource{o.launch_file, std::filesystem::path(o.launch_file).parent_path().string(),
                                          o.launch_file, true};
  ExecJob job = ExecJob::parse(exec_description(o), src);
  Platform p(cfg);
  p.run([&](rt::Runtime& rt) { job.run(rt); });
  const auto& bufs = job.bufs;
  const rt::LaunchStats& ls = job.launch;
  PlatformStats st = p.stats();
  // The kernel's own time, then the whole program's: module load, copies, the driver's launch latency
  // and the kernel (copies differ between the batch and the concurrent scheduler's copy path).
  print_out("{} on {}: {} cycles ({:.3f} us kernel), {} thread-instructions; {:.3f} us simulated in all (module "
            "load, copies, launch latency, kernel)\n",
            ls.kernel, p.props().name, ls.cycles, double(ls.cycles) / p.props().clock_mhz, st.thread_insts,
            st.sim_seconds * 1e6);
  for (size_t i = 0; i < bufs.size(); ++i) {
    const ExecBuffer& b = bufs[i];
    std::string vals;
    for (uint64_t k = 0; k < std::min<uint64_t>(b.count, o.print); ++k) vals += " " + show(b.bytes, b.type, k);
    print_out("  buffer {} ({} x {}):{}{}\n", i, b.count, b.type, vals, b.count > o.print ? " ..." : "");
    if (!b.dump.empty()) {
      write_output(b.dump, std::string(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size()));
    }
  }
  return 0;
}

}  // namespace gpuvp
