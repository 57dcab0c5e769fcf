// `gpuvp vp`: estimate for nvcc's order and for the vp schedule of one kernel, printed side by side
// and optionally written as JSON.
#include "cli/vp.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "platform/output_file.h"
#include "platform/text.h"
#include "platform/user_file.h"
#include "platform/vp_timing.h"
#include "sw/kernels/kernels.h"
#include "sw/ptx/schedule.h"
#include "sw/ptx/vp_estimate.h"

namespace gpuvp {

using nlohmann::json;

namespace {

// Threads of "X[,Y[,Z]]" (the form exec's --grid and --block take).
uint64_t dims_product(const std::string& text, const char* option) {
  uint64_t n = 1;
  std::stringstream ss(text);
  std::string part;
  int count = 0;
  while (std::getline(ss, part, ',')) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(part.c_str(), &end, 10);
    if (part.empty() || *end || v == 0 || v > 65535 * 1024ull || ++count > 3)
      throw ConfigError(fmt::format("{} {}: expected X[,Y[,Z]] with positive integers", option, text));
    n *= v;
  }
  if (count == 0) throw ConfigError(fmt::format("{} {}: expected X[,Y[,Z]]", option, text));
  return n;
}

// Resident warps per SM of the launch: its blocks spread over the SMs, as many as fit.
unsigned warps_per_sm(const Config& c, const VpOptions& o) {
  const uint64_t threads = dims_product(o.block, "--block"), blocks = dims_product(o.grid, "--grid");
  // A block the SM cannot hold would fail to launch: an estimate for it would describe no real run.
  const uint64_t max_block = uint64_t(c.i("sm.max_threads_per_block"));
  if (threads > max_block)
    throw ConfigError(fmt::format("--block {}: {} threads per block, more than this configuration's "
                                  "sm.max_threads_per_block ({})", o.block, threads, max_block));
  const uint64_t ws = uint64_t(c.i("sm.warp_size")), sms = uint64_t(c.i("sm.count"));
  const uint64_t warps = (threads + ws - 1) / ws;
  const uint64_t fit = std::max<uint64_t>(1, uint64_t(c.i("sm.max_threads")) / (warps * ws));
  const uint64_t per_sm = std::min({(blocks + sms - 1) / sms, uint64_t(c.i("sm.max_blocks")), fit});
  return unsigned(warps * per_sm);
}

const ptx::Function& find_kernel(const ptx::Module& m, const std::string& name) {
  std::string known;
  for (const ptx::Function& f : m.funcs) {
    if (!f.entry) continue;
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw ConfigError(fmt::format("{}: --kernel {}: no such kernel (kernels: {})", m.source_name, name, known));
}

json to_json(const ptx::vp::Estimate& e) {
  json regs = json::array(), blocks = json::array();
  for (const auto& [reg, cycles] : e.per_reg) regs.push_back({{"reg", reg}, {"cycles", cycles}});
  for (size_t b = 0; b < e.per_block.size(); ++b) blocks.push_back({{"block", b}, {"cycles", e.per_block[b]}});
  return {{"registers", regs}, {"blocks", blocks}, {"total", e.total}};
}

double reduction(double before, double after) { return before > 0 ? 100.0 * (before - after) / before : 0.0; }

void print_table(const std::string& head, const std::vector<std::pair<std::string, double>>& a,
                 const std::vector<std::pair<std::string, double>>& b) {
  print_out("{:<16} {:>14} {:>14} {:>10}\n", head, "nvcc", "vp", "reduction");
  for (size_t i = 0; i < a.size(); ++i)
    print_out("{:<16} {:>14.1f} {:>14.1f} {:>9.1f}%\n", a[i].first, a[i].second, b[i].second,
              reduction(a[i].second, b[i].second));
}

std::vector<std::pair<std::string, double>> block_rows(const ptx::vp::Estimate& e) {
  std::vector<std::pair<std::string, double>> rows;
  for (size_t b = 0; b < e.per_block.size(); ++b) rows.emplace_back(fmt::format("B{}", b), e.per_block[b]);
  return rows;
}

}  // namespace

std::string ptx_argument(const std::string& arg, std::string& source_name) {
  source_name = arg;
  std::error_code ec;
  if (std::filesystem::symlink_status(arg, ec).type() != std::filesystem::file_type::not_found)
    return read_user_file(arg, "PTX file");
  try {
    std::string text = kernels::ptx(arg);
    source_name = arg + ".ptx";
    return text;
  } catch (const std::invalid_argument& e) {
    throw ConfigError(fmt::format("{}: no such file, and {}", arg, e.what()));
  }
}

void add_vp_options(CLI::App* app, VpOptions& o) {
  app->add_option("file", o.ptx, "PTX file (or the name of a kernel of the library)")->required();
  app->add_option("--kernel,-k", o.kernel, "Kernel (.entry) to estimate")->required();
  app->add_option("--grid", o.grid, "Grid dimensions X[,Y[,Z]] (resident warps per SM; default 1)");
  app->add_option("--block", o.block, "Block dimensions X[,Y[,Z]] (default 32)");
  app->add_option("--trips", o.trips, "Iterations assumed for every loop (default 8)")->check(CLI::Range(1.0, 1e6));
  app->add_option("--json", o.json, "Also write the estimates as JSON to this file");
}

int cmd_vp(const Config& cfg, const VpOptions& o) {
  if (!o.json.empty()) check_output(o.json, "--json");
  std::string name;
  const ptx::Module m = ptx::parse(ptx_argument(o.ptx, name), name);
  const ptx::Module r = ptx::reschedule(m, ptx::Schedule::Vp);
  const ptx::Function& fa = find_kernel(m, o.kernel);
  const ptx::Function& fb = *r.find(o.kernel);
  const unsigned warps = warps_per_sm(cfg, o);
  const ptx::vp::StepCycles step = vp_step_cycles(cfg, warps);
  const ptx::vp::Estimate a = ptx::vp::estimate(fa, step, o.trips), b = ptx::vp::estimate(fb, step, o.trips);
  print_out("vulnerable period estimate (cycles), {} kernel {}, {} ({} warps per SM, loops of {} iterations)\n",
            name, o.kernel, cfg.s("platform.name"), warps, o.trips);
  print_table("register", a.per_reg, b.per_reg);
  print_table("block", block_rows(a), block_rows(b));
  print_table("total", {{"total", a.total}}, {{"total", b.total}});
  if (!o.json.empty()) {
    json j{{"file", name},       {"kernel", o.kernel}, {"platform", cfg.s("platform.name")}, {"warps_per_sm", warps},
           {"trips", o.trips},   {"nvcc", to_json(a)}, {"vp", to_json(b)},
           {"reduction_percent", reduction(a.total, b.total)}};
    write_output(o.json, j.dump(2) + "\n");
  }
  return 0;
}

}  // namespace gpuvp
