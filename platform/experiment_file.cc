#include "platform/experiment_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>

#include "platform/config/json_text.h"
#include "platform/int_text.h"
#include "platform/user_file.h"

namespace gpuvp {

using nlohmann::json;

namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxBlockDim = 2147483647;  // CUDA's int; the SM limits decide what fits
constexpr int64_t kMaxGridDim = 65535;        // the configuration block's 16-bit grid fields
constexpr double kMaxSeconds = 1e6;           // beyond any simulation, and within 64 bits of picoseconds
constexpr int64_t kMaxSpinNs = 1000000000000000;
constexpr uint64_t kDefaultSpinNs = 10000000;  // the examiner's timer_spin without additional_info

// What a block may hold: the least of every SM's limits (per-instance --set may differ), as the
// runtime checks launches (platform.cc, fill_props).
struct SmLimits {
  std::string preset;
  uint64_t per_block = ~uint64_t{0}, per_sm = ~uint64_t{0}, warp = 1;
  uint64_t gmem = 0;  // bytes of global memory: what a benchmark's buffers must fit
  int64_t count = 0;  // SMs, for sm_partition
  std::string scheduler;  // scheduler.kind: SM partitions need the concurrent dispatcher's SM sets

  explicit SmLimits(const Config& cfg)
      : preset(cfg.name()), gmem(uint64_t(cfg.f("gmem.size_mib") * 1048576.0)), count(cfg.i("sm.count")),
        scheduler(cfg.s("scheduler.kind")) {
    for (int64_t i = 0; i < cfg.i("sm.count"); ++i) {
      const Params p = cfg.params("sm", fmt::format("gpu.sm{}", i));
      per_block = std::min(per_block, uint64_t(p.i("max_threads_per_block")));
      per_sm = std::min(per_sm, uint64_t(p.i("max_threads")));
      warp = std::max(warp, uint64_t(p.i("warp_size")));
    }
  }
};

// 'name', escaped and cut short as json_shown does: a key or name the user wrote may hold anything.
std::string single_quoted(const std::string& s) {
  const std::string shown = json_shown(json(s));
  return "'" + shown.substr(1, shown.size() - (shown.back() == '"' ? 2 : 1)) + "'";
}

// The file being read and the SMs it must fit; every error names the file.
struct Reader {
  const std::string& origin;
  SmLimits sm;

  [[noreturn]] void fail(const std::string& path, const json& v, const std::string& what) const {
    throw ConfigError(fmt::format("{}: {}: {} {}", origin, path, json_shown(v), what));
  }
  [[noreturn]] void error(const std::string& what) const { throw ConfigError(fmt::format("{}: {}", origin, what)); }

  void known_keys(const json& obj, const std::string& where, std::initializer_list<const char*> known) const {
    if (std::string e = unknown_key_error(obj, known, where); !e.empty()) error(e);
  }

  const json& required(const json& obj, const std::string& where, const char* key, const char* what) const {
    if (!obj.contains(key)) error(fmt::format("{}{}: missing (required: {})", where, key, what));
    return obj.at(key);
  }

  std::string string(const json& v, const std::string& path, bool nonempty) const {
    if (!v.is_string()) fail(path, v, "is not a string");
    if (nonempty && v.get_ref<const std::string&>().empty()) fail(path, v, "is empty");
    return v.get<std::string>();
  }

  // A JSON integer (2.0 and 1e3 too, as the examiner's cJSON reads them), or with `text` a string
  // holding one (decimal or 0x: platform/int_text.h); in [lo, hi].
  int64_t integer(const json& v, const std::string& path, int64_t lo, int64_t hi, bool text = false,
                  const std::string& expected = "") const {
    const std::string range = "is out of range; expected " +
                              (expected.empty() ? fmt::format("an integer in [{}, {}]", lo, hi) : expected);
    // 1e20 is out of range before it is beyond the exact integers of a double.
    if (v.is_number_float() && !(v.get<double>() >= double(lo) && v.get<double>() <= double(hi))) fail(path, v, range);
    IntText x;
    const char* why = v.is_number() || (text && v.is_string()) ? parse_json_int(v, x) : "is not an integer";
    if (why) fail(path, v, why);
    const bool fits = x.neg ? x.mag <= uint64_t{1} << 63 : x.mag <= uint64_t(kMaxInt);
    const int64_t n = !fits || x.mag == 0 ? 0 : x.neg ? -int64_t(x.mag - 1) - 1 : int64_t(x.mag);
    if (!fits || n < lo || n > hi) fail(path, v, range);
    return n;
  }

  double seconds(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, v, "is not a number of seconds");
    const double s = v.get<double>();
    if (!(s >= 0 && s <= kMaxSeconds)) fail(path, v, fmt::format("is out of range; expected seconds in [0, {}]", kMaxSeconds));
    return s == 0 ? 0.0 : s;  // not -0
  }

  // thread_count or block_count: an integer, or an array of 1 to 3 (x, y, z), each in [1, hi].
  rt::Dim3 dims(const json& v, const std::string& path, int64_t hi) const {
    if (v.is_array() && (v.empty() || v.size() > 3)) fail(path, v, "is not 1 to 3 dimensions");
    uint32_t d[3] = {1, 1, 1};
    if (!v.is_array()) d[0] = uint32_t(integer(v, path, 1, hi));
    for (size_t i = 0; v.is_array() && i < v.size(); ++i) d[i] = uint32_t(integer(v[i], fmt::format("{}[{}]", path, i), 1, hi));
    return {d[0], d[1], d[2]};
  }

  // A block must fit one SM: within the threads per block, and in whole warps within the threads per SM.
  void fits(const rt::Dim3& b, const std::string& path, const json& v) const {
    uint64_t threads = 1;
    for (uint64_t d : {b.x, b.y, b.z}) threads = std::min(threads * d, sm.per_block + 1);  // no overflow
    if (threads <= sm.per_block && (threads + sm.warp - 1) / sm.warp * sm.warp <= sm.per_sm) return;
    fail(path, v, fmt::format("is a block of {} threads: it does not fit an SM of {} (sm.max_threads_per_block {}, "
                              "sm.max_threads {})", dims_text(b), sm.preset, sm.per_block, sm.per_sm));
  }
};

// A benchmark's buffers live in global memory: its data_size bytes, and per block of each kernel the
// start, end, SM id and spin time records (8 + 8 + 4 + 8 bytes).
constexpr uint64_t kRecordBytes = 28;

void fits_memory(const Reader& r, const json& b, const std::string& at, const Benchmark& out) {
  uint64_t blocks = out.kind == BenchmarkKind::TimerSpin ? out.grid.count() : 0;
  for (const SpinKernel& k : out.kernels) blocks += k.blocks;
  const uint64_t need = out.data_size + blocks * kRecordBytes;
  if (need <= r.sm.gmem) return;
  const bool data = out.data_size > r.sm.gmem / 2;
  const std::string key = data ? "data_size" : out.kind == BenchmarkKind::TimerSpin ? "block_count" : "additional_info";
  r.fail(at + key, b.contains(key) ? b[key] : json(), fmt::format("needs {} bytes of global memory ({} bytes of data, {} bytes of block records): "
                                       "more than the {} bytes of {} (gmem.size_mib)",
                                       need, out.data_size, blocks * kRecordBytes, r.sm.gmem, r.sm.preset));
}

// A log is a file in the result directory: a plain name, not a path, that the file system keeps as
// written (a NUL would end it early: "x\u0000a" and "x\u0000b" were both x) and a terminal shows.
void check_log_name(const Reader& r, const json& v, const std::string& path, const std::string& name) {
  if (name.find('/') != std::string::npos || name == "." || name == "..")
    r.fail(path, v, "is not a plain file name (the log goes into base_result_directory)");
  if (std::any_of(name.begin(), name.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; }))
    r.fail(path, v, "holds a NUL or control character: not a file name");
  if (name.size() > 255) r.fail(path, v, fmt::format("is {} bytes long: a file name has at most 255", name.size()));
}

// The benchmark's base name: no directory, no extension.
std::string base_name(const std::string& filename) {
  std::string base = filename.substr(filename.find_last_of('/') + 1);
  const size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

BenchmarkKind read_kind(const Reader& r, const json& v, const std::string& path, std::string& base) {
  base = base_name(r.string(v, path, true));
  for (BenchmarkKind k : {BenchmarkKind::TimerSpin, BenchmarkKind::Multikernel})
    if (base == to_string(k)) return k;
  r.fail(path, v, fmt::format("is an unknown benchmark {} (known: timer_spin, multikernel)", single_quoted(base)));
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// "name,ns,blocks,threads,..." (multikernel's additional_info): the kernels of one stream, in order.
std::vector<SpinKernel> read_kernels(const Reader& r, const json& v, const std::string& path) {
  std::vector<std::string> items;
  const std::string text = r.string(v, path, true);
  for (size_t at = 0;; ++at) {
    const size_t comma = text.find(',', at);
    items.push_back(trimmed(text.substr(at, comma - at)));
    if (comma == std::string::npos) break;
    at = comma;
  }
  if (items.size() % 4 != 0)
    r.fail(path, v, fmt::format("has {} items; expected 4 per kernel: name,ns,blocks,threads,...", items.size()));
  std::vector<SpinKernel> out(items.size() / 4);
  for (size_t k = 0; k < out.size(); ++k) {
    auto where = [&](size_t i, const char* what) { return fmt::format("{} item {} ({} of kernel {})", path, 4 * k + i + 1, what, k + 1); };
    out[k].name = r.string(json(items[4 * k]), where(0, "name"), true);
    out[k].spin_ns = uint64_t(r.integer(json(items[4 * k + 1]), where(1, "ns"), 0, kMaxSpinNs, true));
    out[k].blocks = uint32_t(r.integer(json(items[4 * k + 2]), where(2, "blocks"), 1, kMaxGridDim, true));
    out[k].threads = uint32_t(r.integer(json(items[4 * k + 3]), where(3, "threads"), 1, kMaxBlockDim, true));
    r.fits({out[k].threads, 1, 1}, where(3, "threads"), json(items[4 * k + 3]));
  }
  return out;
}

// timer_spin's additional_info: whole nanoseconds, as a number or a string; absent or "": the examiner's default.
uint64_t read_spin_ns(const Reader& r, const json& b, const std::string& path) {
  if (!b.contains("additional_info") || b["additional_info"] == "") return kDefaultSpinNs;
  return uint64_t(r.integer(b["additional_info"], path, 0, kMaxSpinNs, true));
}

// sm_partition: a list of distinct SM ids (not a bit mask: a list reads the same whichever way a
// reader takes the bits, and libsmctrl's masks name the SMs to disable), of this configuration's SMs.
uint64_t read_partition(const Reader& r, const json& v, const std::string& path) {
  if (r.sm.scheduler != "concurrent")
    r.fail(path, v, fmt::format("needs SM sets, which only the concurrent dispatcher has (scheduler.kind concurrent; "
                                "{} has {})", r.sm.preset, r.sm.scheduler));
  if (!v.is_array()) r.fail(path, v, "is not a list of SM ids ([0, 1])");
  if (v.empty()) r.fail(path, v, "is empty; expected at least one SM id");
  uint64_t mask = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", path, i);
    const int64_t sm = r.integer(v[i], at, 0, r.sm.count - 1, false,
                                 fmt::format("an SM id in [0, {}] ({} has sm.count {})", r.sm.count - 1, r.sm.preset, r.sm.count));
    if (mask >> sm & 1) r.fail(at, v[i], "is named twice");
    mask |= uint64_t{1} << sm;
  }
  return mask;
}

// thread_count and block_count: required by timer_spin; a multikernel's kernels carry their own.
void read_dims(const Reader& r, const json& b, const std::string& at, Benchmark& out) {
  const bool spin = out.kind == BenchmarkKind::TimerSpin;
  if (spin || b.contains("thread_count")) {
    const json& v = spin ? r.required(b, at, "thread_count", "threads per block, N or [X, Y, Z]") : b["thread_count"];
    out.block = r.dims(v, at + "thread_count", kMaxBlockDim);
    r.fits(out.block, at + "thread_count", v);
  }
  if (spin || b.contains("block_count"))
    out.grid = r.dims(spin ? r.required(b, at, "block_count", "blocks, N or [X, Y, Z]") : b["block_count"],
                      at + "block_count", kMaxGridDim);
}

void read_run_limits(const Reader& r, const json& j, const std::string& at, uint64_t& iterations, double& time) {
  if (j.contains("max_iterations")) iterations = uint64_t(r.integer(j["max_iterations"], at + "max_iterations", 0, kMaxInt));
  if (j.contains("max_time")) time = r.seconds(j["max_time"], at + "max_time");
}

Benchmark read_benchmark(const Reader& r, const json& b, size_t i, const Experiment& e) {
  const std::string where = fmt::format("benchmarks[{}]", i), at = where + ".";
  if (!b.is_object()) r.fail(where, b, "is not an object (a benchmark)");
  r.known_keys(b, where,
               {"filename", "log_name", "label", "thread_count", "block_count", "data_size", "additional_info",
                "release_time", "stream_priority", "max_iterations", "max_time", "cpu_core", "sm_partition"});
  Benchmark out;
  std::string base;
  const json& file = r.required(b, at, "filename", "./bin/timer_spin.so or ./bin/multikernel.so");
  out.kind = read_kind(r, file, at + "filename", base);
  out.filename = file.get<std::string>();
  out.log_name = b.contains("log_name") ? r.string(b["log_name"], at + "log_name", true) : fmt::format("{}_{}.json", base, i);
  if (b.contains("log_name")) check_log_name(r, b["log_name"], at + "log_name", out.log_name);
  if (b.contains("label")) out.label = r.string(b["label"], at + "label", false);
  read_dims(r, b, at, out);
  if (b.contains("data_size")) out.data_size = uint64_t(r.integer(b["data_size"], at + "data_size", 0, kMaxInt));
  if (out.kind == BenchmarkKind::TimerSpin)
    out.spin_ns = read_spin_ns(r, b, at + "additional_info");
  else
    out.kernels = read_kernels(r, r.required(b, at, "additional_info", "the kernels, \"name,ns,blocks,threads,...\""),
                               at + "additional_info");
  if (b.contains("release_time")) out.release_time = r.seconds(b["release_time"], at + "release_time");
  if (b.contains("stream_priority"))
    out.stream_priority = int(r.integer(b["stream_priority"], at + "stream_priority", -1, 0, false,
                                        "-1 (high) or 0 (low), CUDA's stream priorities"));
  if (b.contains("sm_partition")) out.sm_mask = read_partition(r, b["sm_partition"], at + "sm_partition");
  if (b.contains("cpu_core")) r.integer(b["cpu_core"], at + "cpu_core", -kMaxInt - 1, kMaxInt);  // the host's: ignored
  out.max_iterations = e.max_iterations;
  out.max_time = e.max_time;
  read_run_limits(r, b, at, out.max_iterations, out.max_time);
  fits_memory(r, b, at, out);
  return out;
}

}  // namespace

const char* to_string(BenchmarkKind k) { return k == BenchmarkKind::TimerSpin ? "timer_spin" : "multikernel"; }

std::string dims_text(const rt::Dim3& d) {
  if (d.z > 1) return fmt::format("{}x{}x{}", d.x, d.y, d.z);
  return d.y > 1 ? fmt::format("{}x{}", d.x, d.y) : fmt::format("{}", d.x);
}

std::string sm_list(uint64_t mask) {
  std::string ids;
  for (int i = 0; i < 64; ++i)
    if (mask >> i & 1) ids += fmt::format("{}{}", ids.empty() ? "" : ",", i);
  return (mask & (mask - 1) ? "SMs " : "SM ") + ids;
}

Experiment parse_experiment(const json& j, const Config& cfg, const std::string& origin) {
  const Reader r{origin, SmLimits(cfg)};
  if (!j.is_object()) r.fail("the document", j, "is not a JSON object (an experiment: {\"name\": ..., \"benchmarks\": [...]})");
  r.known_keys(j, "top level", {"name", "max_iterations", "max_time", "base_result_directory", "benchmarks",
                                "cuda_device", "pin_cpus", "use_processes", "do_warmup", "sync_every_iteration"});
  // The examiner's host settings: checked, then ignored (one simulated GPU, no host CPUs to pin).
  if (j.contains("cuda_device")) r.integer(j["cuda_device"], "cuda_device", 0, kMaxInt);
  for (const char* flag : {"pin_cpus", "use_processes", "do_warmup", "sync_every_iteration"})
    if (j.contains(flag) && !j[flag].is_boolean()) r.fail(flag, j[flag], "is not true or false");
  Experiment e;
  e.name = r.string(r.required(j, "", "name", "a string"), "name", true);
  read_run_limits(r, j, "", e.max_iterations, e.max_time);
  if (j.contains("base_result_directory"))
    e.base_result_directory = r.string(j["base_result_directory"], "base_result_directory", true);
  if (e.base_result_directory.find('\0') != std::string::npos)
    r.fail("base_result_directory", j["base_result_directory"], "holds a NUL: not a path");
  const json& bs = r.required(j, "", "benchmarks", "a non-empty array of benchmarks");
  if (!bs.is_array()) r.fail("benchmarks", bs, "is not an array of benchmarks");
  if (bs.empty()) r.fail("benchmarks", bs, "is empty; expected at least one benchmark");
  for (size_t i = 0; i < bs.size(); ++i) {
    e.benchmarks.push_back(read_benchmark(r, bs[i], i, e));
    for (size_t k = 0; k < i; ++k)  // one log per benchmark: a shared name would overwrite one
      if (e.benchmarks[k].log_name == e.benchmarks[i].log_name)
        r.fail(fmt::format("benchmarks[{}].log_name", i), json(e.benchmarks[i].log_name),
               fmt::format("is benchmarks[{}]'s log too; each benchmark needs its own", k));
  }
  return e;
}

Experiment parse_experiment_text(const std::string& text, const Config& cfg, const std::string& origin) {
  if (std::string deep = json_depth_error(text, origin); !deep.empty()) throw ConfigError(deep);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // syntax, and numbers beyond a double (1e400)
    throw ConfigError(json_syntax_error(e, origin, text));
  }
  return parse_experiment(j, cfg, origin);
}

Experiment load_experiment(const std::string& path, const Config& cfg) {
  return parse_experiment_text(read_user_file(path, "experiment file"), cfg, path);
}

}  // namespace gpuvp
