#include "platform/exec_job.h"

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
#include "sw/runtime/object_host.h"

namespace gpuvp {

using nlohmann::json;

namespace {

const std::map<std::string, unsigned> kTypes = {{"u8", 1},  {"i8", 1},  {"u16", 2}, {"i16", 2}, {"u32", 4},
                                                {"i32", 4}, {"u64", 8}, {"i64", 8}, {"f32", 4}, {"f64", 8}};


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
// Two paths naming one file: the same file on disk (hard links and symlinks included) when both exist,
// else the same canonical path.
bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec) && !ec) return true;
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
    // 0, 1, 2, ...: integers wrap at the type's width; floats are exact (count <= 2^26).
    const bool f32 = b.type == "f32", f64 = b.type == "f64";
    for (uint64_t k = 0; k < b.count; ++k) {
      const float f = float(k);
      const double d = double(k);
      const void* src = f32 ? static_cast<const void*>(&f) : f64 ? static_cast<const void*>(&d) : &k;
      std::memcpy(bytes.data() + k * es, src, es);
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

}  // namespace

unsigned exec_type_bytes(const std::string& type) {
  auto it = kTypes.find(type);
  return it == kTypes.end() ? 0 : it->second;
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
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a.buf >= 0) {
      ExecBuffer& b = bufs[a.buf];
      b.ptr = rt.malloc(b.bytes.size());
      rt::name_allocation(rt, b.ptr, fmt::format("args[{}]", i));  // as the output checks name it
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

}  // namespace gpuvp
