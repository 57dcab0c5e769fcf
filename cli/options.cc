#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <functional>

#include "platform/int_text.h"
#include "platform/run_outputs.h"

namespace gpuvp {

namespace {

CLI::Option* add_checked(CLI::App* app, const std::string& name, const std::string& desc, uint64_t lo, uint64_t hi,
                         std::function<void(uint64_t)> store) {
  const std::string flag = name.substr(0, name.find(','));
  auto* opt = app->add_option_function<std::string>(
      name,
      [=](const std::string& text) {
        IntText v;
        const char* why = parse_int_text(text, v);
        if (!why && ((v.neg && v.mag != 0) || v.mag < lo || v.mag > hi)) why = "is out of range";
        if (why) throw CLI::ValidationError(flag, fmt::format("'{}' {}; expected an integer in [{}, {}]", text, why, lo, hi));
        store(v.mag);
      },
      desc);
  return opt->type_name("UINT");
}

}  // namespace

CLI::Option* add_uint_option(CLI::App* app, const std::string& name, uint64_t& target, const std::string& desc,
                             uint64_t lo, uint64_t hi) {
  return add_checked(app, name, desc, lo, hi, [&target](uint64_t v) { target = v; });
}

CLI::Option* add_uint_option(CLI::App* app, const std::string& name, unsigned& target, const std::string& desc,
                             uint64_t lo, uint64_t hi) {
  return add_checked(app, name, desc, lo, hi, [&target](uint64_t v) { target = static_cast<unsigned>(v); });
}

namespace {
// 1e12 as "1e12", 0.5 as "0.5": a range as a user writes it.
std::string short_number(double x) {
  std::string t = fmt::format("{:g}", x);
  if (auto e = t.find("e+"); e != std::string::npos) t.erase(e + 1, 1);
  return t;
}
}  // namespace

CLI::Option* add_real_option(CLI::App* app, const std::string& name, double& target, const std::string& desc,
                             double lo, double hi, bool lo_open) {
  const std::string range = std::isinf(hi) ? fmt::format("at least {}", short_number(lo))
                                           : fmt::format("in {}{}, {}]", lo_open ? "(" : "[", short_number(lo),
                                                         short_number(hi));
  auto check = [=](const std::string& v) -> std::string {
    char* end = nullptr;  // strtod, not stod: a denormal (1e-320) is a number, not out_of_range
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) return "not a number: " + v;
    const bool above = lo_open ? x > lo : x >= lo;
    return std::isfinite(x) && above && x <= hi ? "" : fmt::format("must be a finite number {}: {}", range, v);
  };
  return app->add_option(name, target, desc)->check(CLI::Validator(check, "NUMBER"));
}

CLI::Option* add_path_option(CLI::App* app, const std::string& name, std::string& target, const std::string& desc) {
  auto check = [](const std::string& v) -> std::string { return v.empty() ? "an empty path" : ""; };
  return app->add_option(name, target, desc)->check(CLI::Validator(check, "PATH"));
}

void add_output_options(CLI::App* app, RunOutputs& out) {
  add_path_option(app, "--stats", out.stats, "Write statistics as JSON (docs/statistics.md)");
  add_path_option(app, "--timeline", out.timeline, "Write the block timeline (Chrome trace-event JSON, opens in Perfetto)");
  add_path_option(app, "--power-trace", out.power_trace,
                  "Write every SM's power, temperature and wear rate per sample interval (CSV, docs/power.md)");
  add_path_option(app, "--vcd", out.vcd, "Write waveforms (PREFIX.vcd) of the scheduler, arbiters and SM handshakes");
}

}  // namespace gpuvp
