#include "cli/exec.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "cli/options.h"
#include "platform/config/json_text.h"
#include "platform/exec_job.h"
#include "platform/int_text.h"
#include "platform/output_file.h"
#include "platform/platform.h"
#include "platform/text.h"
#include "platform/user_file.h"

namespace gpuvp {

using nlohmann::json;

namespace {

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

// A buffer's element count as typed, checked here so that the message names the --arg.
uint64_t buffer_count(const std::string& arg, const std::string& text) {
  constexpr uint64_t kMax = uint64_t{1} << 26;
  IntText n;
  const char* why = parse_int_text(text, n);
  if (!why && (n.neg || n.mag < 1 || n.mag > kMax)) why = "must be an integer in [1, 67108864]";
  if (why) throw ConfigError(fmt::format("--arg {}: count: {} {}", arg, json_shown(json(text)), why));
  return n.mag;
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
    b["count"] = buffer_count(a, f[2]);
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
  if (f.size() == 2 && exec_type_bytes(f[0])) return json{{f[0], f[1]}};
  throw bad("not a buffer or a scalar");
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
  add_output_options(app, o.outputs);
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

int cmd_exec(const Config& cfg, const ExecOptions& o) {
  // Paths in a launch file are the file's neighbours; on the command line, the current directory's.
  const ExecSource src = o.launch_file.empty()
                             ? ExecSource{"exec", "", "", true}
                             : ExecSource{o.launch_file, std::filesystem::path(o.launch_file).parent_path().string(),
                                          o.launch_file, true};
  const json launch = exec_description(o);
  ExecJob job = ExecJob::parse(launch, src);
  o.outputs.check();
  PlatformHooks hooks;
  o.outputs.apply(hooks);
  Platform p(cfg, hooks);
  o.outputs.attach(p);
  p.run([&](rt::Runtime& rt) { job.run(rt); });
  const auto& bufs = job.bufs;
  const rt::LaunchStats& ls = job.launch;
  PlatformStats st = p.stats();
  // The kernel's own time, then the whole program's: module load, copies, the driver's launch latency
  // and the kernel (copies differ between the batch and the concurrent scheduler's copy path).
  print_out("{} on {}: {} cycles ({:.3f} us kernel), {} thread-instructions; {:.3f} us simulated in all (module "
            "load, copies, launch latency, kernel)\n",
            ls.kernel, p.props().name, ls.cycles, double(ls.end_ps - ls.start_ps) / 1e6, st.thread_insts,
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
  o.outputs.write(p, {{"command", "exec"}, {"kernel", ls.kernel}, {"launch", launch}});
  return 0;
}

}  // namespace gpuvp
