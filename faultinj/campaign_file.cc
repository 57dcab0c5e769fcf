#include "faultinj/campaign_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>

#include "faultinj/fault_list.h"
#include "faultinj/instruction_output.h"
#include "faultinj/sizing.h"
#include "platform/config/json_text.h"
#include "platform/int_text.h"
#include "platform/user_file.h"

namespace gpuvp::fi {

using nlohmann::json;

namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

// The file being read; every error names it.
struct Ctx {
  const std::string& origin;

  [[noreturn]] void fail(const std::string& path, const json& v, const std::string& what) const {
    throw CampaignError(fmt::format("{}: {} = {}: {}", origin, path, json_shown(v), what));
  }
  [[noreturn]] void error(const std::string& what) const { throw CampaignError(fmt::format("{}: {}", origin, what)); }
};

std::string join_path(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

const json& object(const Ctx& c, const json& v, const std::string& path,
                   std::initializer_list<const char*> allowed) {
  if (!v.is_object()) c.fail(path, v, "not an object");
  if (std::string e = unknown_key_error(v, allowed, path); !e.empty()) c.error(e);
  return v;
}

const json& required(const Ctx& c, const json& obj, const std::string& prefix, const char* key, const char* what) {
  if (!obj.contains(key)) c.error(fmt::format("{}: missing (required, {})", join_path(prefix, key), what));
  return obj.at(key);
}

std::string read_string(const Ctx& c, const json& v, const std::string& path, bool nonempty = true) {
  if (!v.is_string()) c.fail(path, v, "not a string");
  if (nonempty && v.get<std::string>().empty()) c.fail(path, v, "empty");
  return v.get<std::string>();
}

bool read_bool(const Ctx& c, const json& v, const std::string& path) {
  if (!v.is_boolean()) c.fail(path, v, "not true or false");
  return v.get<bool>();
}

double read_number(const Ctx& c, const json& v, const std::string& path) {
  if (!v.is_number()) c.fail(path, v, "not a number");
  return v.get<double>();
}

// "0x" and hex digits, or decimal digits without a leading zero (a campaign file refuses 012 rather than
// guess between octal and decimal); false if neither or too large.
bool parse_uint_text(const std::string& s, uint64_t& out) {
  IntText v;
  if (s.empty() || s[0] == '-' || s[0] == '+' || (s.size() > 1 && s[0] == '0' && std::isdigit(static_cast<unsigned char>(s[1]))))
    return false;
  if (parse_int_text(s, v)) return false;
  out = v.mag;
  return true;
}

// A JSON integer, or a string holding one in decimal or 0x hex; in [lo, hi].
uint64_t read_u64(const Ctx& c, const json& v, const std::string& path, uint64_t lo, uint64_t hi) {
  const std::string range = fmt::format("expected an integer in [{}, {}]", lo, hi);
  uint64_t x = 0;
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)
    c.fail(path, v, "negative; " + range);
  else if (v.is_number_integer())
    x = v.get<uint64_t>();
  else if (v.is_string() && !parse_uint_text(v.get<std::string>(), x))
    c.fail(path, v, "not an integer (decimal without leading zeros, or 0x hex, at most 2^64-1)");
  else if (!v.is_string())
    c.fail(path, v, "not an integer; " + range);
  if (x < lo || x > hi) c.fail(path, v, "out of range; " + range);
  return x;
}

template <class E>
E read_enum(const Ctx& c, const json& v, const std::string& path, int count) {
  const std::string s = read_string(c, v, path);
  std::string names;
  for (int i = 0; i < count; ++i) {
    if (s == to_string(static_cast<E>(i))) return static_cast<E>(i);
    names += (i ? ", " : "") + std::string(to_string(static_cast<E>(i)));
  }
  c.fail(path, v, "unknown (one of " + names + ")");
}

std::vector<std::string> read_globs(const Ctx& c, const json& v, const std::string& path, bool nonempty) {
  if (!v.is_array()) c.fail(path, v, "not a list of name globs");
  if (nonempty && v.empty()) c.fail(path, v, "empty; expected at least one name glob");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(read_string(c, v[i], fmt::format("{}[{}]", path, i)));
  return out;
}

void parse_platform(const Ctx& c, const json& j, CampaignSpec& s) {
  const json& p = object(c, j, "platform", {"preset", "set"});
  s.preset = read_string(c, required(c, p, "platform", "preset", "a preset name"), "platform.preset");
  if (!p.contains("set")) return;
  const json& set = p.at("set");
  if (!set.is_object()) c.fail("platform.set", set, "not an object of key -> value");
  for (auto& [k, v] : set.items())
    if (!v.is_string() && !v.is_number() && !v.is_boolean())
      c.fail("platform.set." + k, v, "not a string, number or boolean");
  s.set = set;
}

std::vector<std::string> read_strings(const Ctx& c, const json& v, const std::string& path);

bool is_element_type(const std::string& t) {
  for (const char* k : {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"})
    if (t == k) return true;
  return false;
}

AppOutputFile parse_app_output(const Ctx& c, const json& v, const std::string& at) {
  AppOutputFile o;
  if (v.is_string()) {
    o.path = read_string(c, v, at);
    return o;
  }
  object(c, v, at, {"file", "type"});
  o.path = read_string(c, required(c, v, at, "file", "a path in the run's folder"), at + ".file");
  if (v.contains("type")) o.type = read_string(c, v.at("type"), at + ".type");
  if (!is_element_type(o.type)) c.fail(at + ".type", v.at("type"), "unknown (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)");
  return o;
}

ApplicationSpec parse_application(const Ctx& c, const json& v) {
  object(c, v, "application", {"command", "outputs", "workdir", "timeout_s", "fork", "check_reproducible"});
  ApplicationSpec a;
  a.command = read_strings(c, required(c, v, "application", "command", "the program and its arguments"),
                           "application.command");
  if (v.contains("outputs")) {
    const json& o = v.at("outputs");
    if (!o.is_array()) c.fail("application.outputs", o, "not a list of files");
    for (size_t i = 0; i < o.size(); ++i)
      a.outputs.push_back(parse_app_output(c, o[i], fmt::format("application.outputs[{}]", i)));
  }
  if (v.contains("workdir")) a.workdir = read_string(c, v.at("workdir"), "application.workdir");
  if (v.contains("timeout_s")) {
    a.timeout_s = read_number(c, v.at("timeout_s"), "application.timeout_s");
    if (!(a.timeout_s > 0 && a.timeout_s <= 86400))
      c.fail("application.timeout_s", v.at("timeout_s"), "out of range; expected seconds in (0, 86400]");
  }
  if (v.contains("fork")) a.fork = read_bool(c, v.at("fork"), "application.fork");
  if (v.contains("check_reproducible"))
    a.check_reproducible = read_bool(c, v.at("check_reproducible"), "application.check_reproducible");
  return a;
}

void parse_run(const Ctx& c, const json& j, CampaignSpec& s) {
  if (int(j.contains("workload")) + int(j.contains("exec")) + int(j.contains("application")) != 1)
    c.error("give exactly one of 'workload', 'exec' and 'application'");
  if (j.contains("application")) {
    s.application = parse_application(c, j.at("application"));
    return;
  }
  if (j.contains("exec")) {
    if (!j.at("exec").is_object()) c.fail("exec", j.at("exec"), "not an object (a launch description)");
    s.exec = j.at("exec");
    return;
  }
  const json& w = object(c, j.at("workload"), "workload", {"name", "launch", "seed"});
  WorkloadSpec ws;
  ws.name = read_string(c, required(c, w, "workload", "name", "a workload name"), "workload.name");
  if (w.contains("launch")) ws.launch = read_string(c, w.at("launch"), "workload.launch");
  if (w.contains("seed")) ws.seed = read_u64(c, w.at("seed"), "workload.seed", 0, kU64Max);
  s.workload = ws;
}

uint64_t read_hold_ps(const Ctx& c, const json& f, Duration d) {
  const bool intermittent = d == Duration::Intermittent;
  if (!f.contains("hold_ns")) {
    if (intermittent) c.error("fault.hold_ns: missing (required > 0 for an intermittent fault)");
    return 0;
  }
  const json& v = f.at("hold_ns");
  const double ns = read_number(c, v, "fault.hold_ns");
  if (!(ns >= 0 && ns <= 1e15)) c.fail("fault.hold_ns", v, "out of range; expected a number of ns in [0, 1e15]");
  const auto ps = static_cast<uint64_t>(std::llround(ns * 1000));
  if (intermittent && ps == 0) c.fail("fault.hold_ns", v, "not > 0 (required for an intermittent fault)");
  if (!intermittent && ps != 0) c.fail("fault.hold_ns", v, "only for an intermittent fault");
  return ps;
}

FaultTemplate parse_fault(const Ctx& c, const json& j) {
  const json& f = object(c, j, "fault", {"model", "bits", "mask", "duration", "hold_ns"});
  FaultTemplate t;
  if (f.contains("model")) t.model = read_enum<FaultModel>(c, f.at("model"), "fault.model", kFaultModelCount);
  if (f.contains("bits") && t.model != FaultModel::MultiBitFlip)
    c.fail("fault.bits", f.at("bits"), "only for fault.model multi_bit_flip");
  if (t.model == FaultModel::MultiBitFlip)
    t.nbits = f.contains("bits") ? static_cast<unsigned>(read_u64(c, f.at("bits"), "fault.bits", 1, 64)) : 2;
  if (f.contains("mask") && t.model != FaultModel::XorMask)
    c.fail("fault.mask", f.at("mask"), "only for fault.model xor_mask");
  if (t.model == FaultModel::XorMask)
    t.mask = read_u64(c, required(c, f, "fault", "mask", "a non-zero integer for xor_mask"), "fault.mask", 1, kU64Max);
  if (f.contains("duration")) t.duration = read_enum<Duration>(c, f.at("duration"), "fault.duration", kDurationCount);
  t.hold_ps = read_hold_ps(c, f, t.duration);
  return t;
}

SizeSpec parse_size(const Ctx& c, const json& j) {
  const json& z = object(c, j, "size", {"count", "margin", "confidence", "p", "exhaustive"});
  SizeSpec s;
  if (z.contains("exhaustive")) {
    if (z.size() != 1) c.error("size: exhaustive takes no count, margin, confidence or p");
    if (!read_bool(c, z.at("exhaustive"), "size.exhaustive"))
      c.fail("size.exhaustive", z.at("exhaustive"), "only true (or give count, or margin and confidence)");
    s.exhaustive = true;
    return s;
  }
  const bool statistical = z.contains("margin") || z.contains("confidence") || z.contains("p");
  if (z.contains("count") == statistical) c.error("size: give either count, or margin and confidence");
  if (z.contains("count")) {
    s.count = read_u64(c, z.at("count"), "size.count", 1, kU64Max);
    return s;
  }
  const json& m = required(c, z, "size", "margin", "a number in (0, 0.5]");
  s.margin = read_number(c, m, "size.margin");
  if (!(s.margin > 0 && s.margin <= 0.5)) c.fail("size.margin", m, "out of range; expected a number in (0, 0.5]");
  const json& conf = required(c, z, "size", "confidence", "one of 0.90, 0.95, 0.99");
  s.confidence = read_number(c, conf, "size.confidence");
  try {
    s.t = t_for_confidence(s.confidence);
  } catch (const std::invalid_argument&) {
    c.fail("size.confidence", conf, "not one of 0.90, 0.95, 0.99");
  }
  if (z.contains("p")) {
    s.p = read_number(c, z.at("p"), "size.p");
    if (!(s.p > 0 && s.p < 1)) c.fail("size.p", z.at("p"), "out of range; expected a number in (0, 1)");
  }
  return s;
}

WindowSpec parse_window(const Ctx& c, const json& j) {
  const json& w = object(c, j, "window", {"from_ns", "to_ns"});
  WindowSpec s;
  s.from_ns = read_u64(c, required(c, w, "window", "from_ns", "an integer"), "window.from_ns", 0, kU64Max / 1000);
  s.to_ns = read_u64(c, required(c, w, "window", "to_ns", "an integer"), "window.to_ns", 0, kU64Max / 1000);
  if (s.to_ns <= s.from_ns) c.fail("window.to_ns", w.at("to_ns"), "not after window.from_ns");
  return s;
}

// Index ranges (gpu.sm0.regs[0:1023]) are checked here for their form; whether they fit the targets
// they match is known after the golden run (select_targets). An exclude removes whole targets.
void check_target_ranges(const Ctx& c, const json& j, const CampaignSpec& s) {
  for (size_t i = 0; i < s.targets.size(); ++i) try {
      parse_target_glob(s.targets[i]);
    } catch (const std::invalid_argument& e) {
      c.fail(fmt::format("targets[{}]", i), j.at("targets")[i], e.what());
    }
  for (size_t i = 0; i < s.exclude.size(); ++i) {
    bool range = false;
    try {
      range = parse_target_glob(s.exclude[i]).range.has_value();
    } catch (const std::invalid_argument&) {
      range = true;
    }
    if (range) c.fail(fmt::format("exclude[{}]", i), j.at("exclude")[i], "an exclude removes whole targets; no index range");
  }
}

void parse_run_options(const Ctx& c, const json& j, CampaignSpec& s) {
  if (j.contains("seed")) s.seed = read_u64(c, j.at("seed"), "seed", 0, kU64Max);
  if (j.contains("timeout_factor")) {
    s.timeout_factor = read_number(c, j.at("timeout_factor"), "timeout_factor");
    if (!(s.timeout_factor > 1 && std::isfinite(s.timeout_factor)))
      c.fail("timeout_factor", j.at("timeout_factor"), "out of range; expected a number > 1");
  }
  if (j.contains("workers")) s.workers = static_cast<unsigned>(read_u64(c, j.at("workers"), "workers", 0, 256));
  if (j.contains("early_stop")) s.early_stop = read_bool(c, j.at("early_stop"), "early_stop");
  if (j.contains("pruning")) s.pruning = read_bool(c, j.at("pruning"), "pruning");
}

TriggerSpec parse_trigger(const Ctx& c, const json& v) {
  object(c, v, "trigger", {"event", "sm"});
  TriggerSpec t;
  const json& e = required(c, v, "trigger", "event", "time, block_dispatch or warp_instruction");
  t.event = read_string(c, e, "trigger.event");
  if (t.event != "time" && t.event != "block_dispatch" && t.event != "warp_instruction")
    c.fail("trigger.event", e, "unknown (one of time, block_dispatch, warp_instruction)");
  if (v.contains("sm")) {
    if (t.event != "warp_instruction") c.error("trigger.sm: only with warp_instruction");
    t.sm = static_cast<unsigned>(read_u64(c, v.at("sm"), "trigger.sm", 0, 15));
  }
  return t;
}

BusSpec parse_bus(const Ctx& c, const json& v) {
  object(c, v, "bus", {"link", "field"});
  BusSpec b;
  b.link = read_string(c, required(c, v, "bus", "link", "a link name (gpu.smN.gmem_wr, ...)"), "bus.link");
  const json& f = required(c, v, "bus", "field", "address, data, byte_enable or command");
  b.field = read_string(c, f, "bus.field");
  if (b.field != "address" && b.field != "data" && b.field != "byte_enable" && b.field != "command")
    c.fail("bus.field", f, "unknown (one of address, data, byte_enable, command)");
  return b;
}

std::vector<std::string> read_strings(const Ctx& c, const json& v, const std::string& path);

InstOutputSpec parse_inst_output(const Ctx& c, const json& v) {
  object(c, v, "instruction_output", {"sm", "group", "lanes"});
  InstOutputSpec s;
  if (v.contains("sm")) s.sm = static_cast<unsigned>(read_u64(c, v.at("sm"), "instruction_output.sm", 0, 15));
  if (v.contains("group")) {
    s.group = read_string(c, v.at("group"), "instruction_output.group");
    try {
      if (parse_inst_group(s.group) == InstGroup::G_NODEST)
        c.fail("instruction_output.group", v.at("group"), "its instructions have no destination to corrupt");
    } catch (const std::invalid_argument& e) {
      c.fail("instruction_output.group", v.at("group"), e.what());
    }
  }
  if (v.contains("lanes")) {
    const std::string l = read_string(c, v.at("lanes"), "instruction_output.lanes");
    if (l != "one" && l != "warp") c.fail("instruction_output.lanes", v.at("lanes"), "unknown (one or warp)");
    s.warp = l == "warp";
  }
  return s;
}

RateSpec parse_rate(const Ctx& c, const json& v) {
  object(c, v, "rate", {"per_million_cycles", "sm", "components"});
  RateSpec r;
  const json& x = required(c, v, "rate", "per_million_cycles", "a number of faults per million cycles in (0, 1e6]");
  r.per_million_cycles = read_number(c, x, "rate.per_million_cycles");
  if (!(r.per_million_cycles > 0 && r.per_million_cycles <= 1e6))
    c.fail("rate.per_million_cycles", x, "out of range; expected a number in (0, 1e6]");
  if (v.contains("sm")) r.sm = static_cast<unsigned>(read_u64(c, v.at("sm"), "rate.sm", 0, 15));
  r.components = {kRateRegisters, "U_LDST", "U_INT", "U_FP32", "U_FP64", "U_SFU"};
  if (!v.contains("components")) return r;
  r.components = read_strings(c, v.at("components"), "rate.components");
  for (size_t i = 0; i < r.components.size(); ++i) {
    const std::string& n = r.components[i];
    if (n != kRateRegisters && n.rfind("U_", 0) != 0)
      c.fail(fmt::format("rate.components[{}]", i), v.at("components")[i],
             "unknown (one of registers, U_LDST, U_INT, U_FP32, U_FP64, U_SFU)");
    try {
      if (n != kRateRegisters) parse_inst_group(n);
    } catch (const std::invalid_argument&) {
      c.fail(fmt::format("rate.components[{}]", i), v.at("components")[i],
             "unknown (one of registers, U_LDST, U_INT, U_FP32, U_FP64, U_SFU)");
    }
  }
  return r;
}

// Which fault models go with which campaigns: an instruction output takes a flip (one or adjacent
// bits), a random value or zero, once; random_value needs the instruction-output fault list's drawn
// values (a state campaign would write 0).
void check_model(const Ctx& c, const json& j, const CampaignSpec& s) {
  const FaultModel m = s.fault.model;
  if (s.inst_output) {
    if (m != FaultModel::BitFlip && m != FaultModel::MultiBitFlip && m != FaultModel::RandomValue &&
        m != FaultModel::ZeroValue)
      c.fail("fault.model", j.at("fault").at("model"),
             "an instruction output takes bit_flip, multi_bit_flip, random_value or zero_value");
    if (s.fault.duration != Duration::Transient)
      c.fail("fault.duration", j.at("fault").at("duration"), "an instruction output is corrupted once; only transient");
  } else if (m == FaultModel::RandomValue) {
    c.fail("fault.model", j.at("fault").at("model"), "only with instruction_output");
  }
}

std::vector<std::string> read_strings(const Ctx& c, const json& v, const std::string& path) {
  if (!v.is_array() || v.empty()) c.fail(path, v, "not a non-empty list of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(read_string(c, v[i], fmt::format("{}[{}]", path, i)));
  return out;
}

double read_nonneg(const Ctx& c, const json& obj, const char* key, const std::string& path, double hi) {
  const json& v = obj.at(key);
  const double x = read_number(c, v, path);
  if (!(x >= 0 && x <= hi)) c.fail(path, v, fmt::format("out of range; expected a number in [0, {}]", hi));
  return x;
}

OutputCheckSpec parse_check(const Ctx& c, const json& v) {
  object(c, v, "check", {"outputs", "abs", "rel", "max_share", "command", "timeout_s"});
  OutputCheckSpec k;
  if (v.contains("outputs")) k.outputs = read_strings(c, v.at("outputs"), "check.outputs");
  if (v.contains("abs")) k.abs = read_nonneg(c, v, "abs", "check.abs", 1e300);
  if (v.contains("rel")) k.rel = read_nonneg(c, v, "rel", "check.rel", 1e300);
  if (v.contains("max_share")) k.max_share = read_nonneg(c, v, "max_share", "check.max_share", 1);
  if (v.contains("command")) {
    if (k.tolerant()) c.error("check.command: give either a command or abs/rel/max_share, not both");
    k.command = read_strings(c, v.at("command"), "check.command");
  }
  if (v.contains("timeout_s")) {
    if (k.command.empty()) c.error("check.timeout_s: only with check.command");
    k.timeout_s = read_nonneg(c, v, "timeout_s", "check.timeout_s", 86400);
    if (k.timeout_s <= 0) c.fail("check.timeout_s", v.at("timeout_s"), "not > 0");
  }
  return k;
}

// One listed fault; `at` is its path in messages ("faults[3]", or a CSV's column names on its line).
Fault parse_fault_entry(const Ctx& c, const json& e, const std::string& at, bool lenient) {
  if (!e.is_object()) c.fail(at, e, "not an object");
  if (!lenient)
    object(c, e, at, {"target", "idx", "bit", "nbits", "mask", "model", "duration", "hold_ps", "trigger", "time_ps",
                      "event", "count"});
  auto key = [&](const char* k) { return join_path(at, k); };
  auto u64 = [&](const char* k, uint64_t lo, uint64_t hi, uint64_t dflt) {
    return e.contains(k) ? read_u64(c, e.at(k), key(k), lo, hi) : dflt;
  };
  Fault f;
  f.target = read_string(c, required(c, e, at, "target", "a registered target name"), key("target"));
  f.index = u64("idx", 0, kU64Max, 0);
  f.bit = static_cast<unsigned>(u64("bit", 0, 63, 0));
  if (e.contains("model")) f.model = read_enum<FaultModel>(c, e.at("model"), key("model"), kFaultModelCount);
  f.nbits = static_cast<unsigned>(u64("nbits", 1, 64, f.model == FaultModel::MultiBitFlip ? 2 : 1));
  f.mask = u64("mask", 0, kU64Max, 0);
  if (f.model == FaultModel::XorMask && f.mask == 0) c.error(key("mask") + ": missing or 0 (required for xor_mask)");
  if (e.contains("duration")) f.duration = read_enum<Duration>(c, e.at("duration"), key("duration"), kDurationCount);
  f.hold_ps = u64("hold_ps", 0, kU64Max, 0);
  if ((f.duration == Duration::Intermittent) != (f.hold_ps > 0))
    c.error(key("hold_ps") + ": > 0 for an intermittent fault, else 0");
  const std::string trig = e.contains("trigger") ? read_string(c, e.at("trigger"), key("trigger"))
                           : e.contains("event") && e.at("event") != "" ? "event" : "time";
  if (trig == "time") {
    f.time_ps = read_u64(c, required(c, e, at, "time_ps", "the injection instant in ps"), key("time_ps"), 0, kU64Max);
  } else if (trig == "event") {
    f.trigger = TriggerKind::Event;
    f.event = read_string(c, required(c, e, at, "event", "block_dispatch or warp_instruction:smN"), key("event"));
    f.count = read_u64(c, required(c, e, at, "count", "the occurrence, from 1"), key("count"), 1, kU64Max);
  } else {
    c.fail(key("trigger"), e.at("trigger"), "unknown (time or event)");
  }
  return f;
}

// A CSV line's fields ("a,\"b,c\",d": quotes around a field that holds commas or quotes, "" for a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else if (ch != '\r' || quoted) {
      out.back() += ch;
    }
  }
  return out;
}

}  // namespace

std::vector<Fault> parse_fault_entries(const json& list, const std::string& where, bool lenient) {
  const Ctx c{where};
  if (!list.is_array() || list.empty()) c.fail("faults", list, "not a non-empty list of faults");
  std::vector<Fault> out;
  for (size_t i = 0; i < list.size(); ++i) {
    out.push_back(parse_fault_entry(c, list[i], fmt::format("faults[{}]", i), lenient));
    out.back().id = i;
  }
  return out;
}

std::vector<Fault> read_fault_csv(const std::string& path) {
  std::istringstream in(read_user_file(path, "faults CSV"));
  std::string line;
  if (!std::getline(in, line)) throw CampaignError(fmt::format("{}: empty; expected a header line of columns", path));
  const std::vector<std::string> header = csv_fields(line);
  std::vector<Fault> out;
  for (unsigned no = 2; std::getline(in, line); ++no) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> v = csv_fields(line);
    if (v.size() != header.size())
      throw CampaignError(fmt::format("{}:{}: {} fields, the header has {}", path, no, v.size(), header.size()));
    json row = json::object();
    for (size_t k = 0; k < v.size(); ++k)
      if (header[k] != "id" && !(v[k].empty() && header[k] != "target")) row[header[k]] = v[k];
    out.push_back(parse_fault_entry(Ctx{fmt::format("{}:{}", path, no)}, row, "", true));
    out.back().id = out.size() - 1;
  }
  if (out.empty()) throw CampaignError(fmt::format("{}: no fault (a header line, then one fault a line)", path));
  return out;
}

namespace {
// The listed faults of a campaign on an application: transient flips at instants (a CSV's are checked
// when it is read, by the engine).
void check_listed_application_faults(const Ctx& c, const CampaignSpec& s) {
  if (!s.application || !s.listed_faults) return;
  for (const Fault& f : *s.listed_faults)
    if (f.trigger != TriggerKind::Time || f.duration != Duration::Transient || f.model == FaultModel::StuckAt0 ||
        f.model == FaultModel::StuckAt1)
      c.error(fmt::format("faults[{}]: a campaign on an application injects transient bit flips at instants only", f.id));
}

// A faulty run of an application is a process of its own that arms one transient XOR at an instant of
// simulated time (platform/armed_flip.h): no bus, no events, nothing held.
void check_application_faults(const Ctx& c, const json& j, const CampaignSpec& s) {
  if (!s.application) return;
  if (s.bus) c.error("bus: a campaign on an application injects into registered state only");
  if (s.trigger.event != "time") c.error("trigger: a campaign on an application injects at instants of time only");
  if (s.fault.duration != Duration::Transient)
    c.fail("fault.duration", j.at("fault").at("duration"), "a campaign on an application injects transient faults only");
  if (s.fault.model == FaultModel::StuckAt0 || s.fault.model == FaultModel::StuckAt1)
    c.fail("fault.model", j.at("fault").at("model"),
           "a campaign on an application flips bits (bit_flip, multi_bit_flip, xor_mask) only");
}
}  // namespace

CampaignSpec parse_campaign(const json& j, const std::string& origin) {
  const Ctx c{origin};
  if (!j.is_object()) c.error("not a JSON object");
  object(c, j, "",
         {"name", "platform", "workload", "exec", "application", "targets", "exclude", "bus", "trigger", "fault", "size", "window",
          "seed", "timeout_factor", "workers", "early_stop", "check", "faults", "raw_fit_per_bit", "instruction_output",
          "rate", "pruning", "allocated_only"});
  CampaignSpec s;
  s.origin = origin;
  s.name = read_string(c, required(c, j, "", "name", "a string"), "name");
  parse_platform(c, required(c, j, "", "platform", "an object"), s);
  parse_run(c, j, s);
  if (j.contains("check")) s.check = parse_check(c, j.at("check"));
  if (j.contains("raw_fit_per_bit")) s.raw_fit_per_bit = read_nonneg(c, j, "raw_fit_per_bit", "raw_fit_per_bit", 1e12);
  if (j.contains("faults")) {
    for (const char* k :
         {"targets", "exclude", "bus", "trigger", "fault", "size", "window", "instruction_output", "rate", "allocated_only"})
      if (j.contains(k)) c.error(fmt::format("faults: a campaign lists its faults or draws them; remove '{}'", k));
    const json& f = j.at("faults");
    if (f.is_string())
      s.faults_csv = read_string(c, f, "faults");
    else
      s.listed_faults = parse_fault_entries(f, origin, false);
    check_listed_application_faults(c, s);
    parse_run_options(c, j, s);
    return s;
  }
  if (j.contains("rate")) {
    for (const char* k : {"targets", "exclude", "bus", "trigger", "window", "instruction_output", "fault"})
      if (j.contains(k))
        c.error(fmt::format("rate: its faults are bit flips at a rate over its components; remove '{}'", k));
    s.rate = parse_rate(c, j.at("rate"));
  } else if (j.contains("instruction_output")) {
    for (const char* k : {"targets", "exclude", "bus", "trigger", "window"})
      if (j.contains(k))
        c.error(fmt::format("instruction_output: its instants are the SM's instructions and its target their "
                            "destinations; remove '{}'", k));
    s.inst_output = parse_inst_output(c, j.at("instruction_output"));
  } else if (j.contains("bus")) {
    if (j.contains("targets") || j.contains("exclude")) c.error("bus: give either targets or bus, not both");
    s.bus = parse_bus(c, j.at("bus"));
  } else {
    s.targets = read_globs(c, required(c, j, "", "targets", "a list of name globs (or bus)"), "targets", true);
    if (j.contains("exclude")) s.exclude = read_globs(c, j.at("exclude"), "exclude", false);
    check_target_ranges(c, j, s);
  }
  if (j.contains("allocated_only")) {
    if (s.bus || s.inst_output)
      c.error("allocated_only: only with targets or rate (register-file words the kernels allocated)");
    s.allocated_only = read_bool(c, j.at("allocated_only"), "allocated_only");
  }
  if (j.contains("fault")) s.fault = parse_fault(c, j.at("fault"));
  check_model(c, j, s);
  s.size = parse_size(c, required(c, j, "", "size", "count, or margin and confidence"));
  if (j.contains("window")) s.window = parse_window(c, j.at("window"));
  if (j.contains("trigger")) s.trigger = parse_trigger(c, j.at("trigger"));
  if (s.bus && s.trigger.event != "time") c.error("trigger: a bus campaign's trigger is its link's transactions");
  // A bus fault corrupts one transaction as it crosses the link: it has no duration to hold and no
  // window (its instants are the link's transactions).
  if (s.bus && s.fault.duration != Duration::Transient)
    c.fail("fault.duration", j.at("fault").at("duration"), "a bus fault corrupts one transaction; only transient");
  if (s.bus && s.window) c.error("window: a bus campaign's instants are its link's transactions; remove window");
  // A command fault swaps read and write: there is no bit to choose, no mask and no value to force.
  if (s.bus && s.bus->field == "command" && s.fault.model != FaultModel::BitFlip)
    c.fail("fault.model", j.at("fault").at("model"), "bus.field command swaps read and write; only bit_flip");
  if (s.window && s.trigger.event != "time") c.error("window: only with the time trigger");
  if (s.size.exhaustive && (s.bus || s.trigger.event != "time"))
    c.error("size: exhaustive covers registered state at every clock edge; not with bus or trigger");
  check_application_faults(c, j, s);
  parse_run_options(c, j, s);
  return s;
}

CampaignSpec parse_campaign_text(const std::string& text, const std::string& origin) {
  if (std::string deep = json_depth_error(text, origin); !deep.empty()) throw CampaignError(deep);
  json j;
  try {
    j = json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {  // syntax, and numbers beyond a double (1e400)
    throw CampaignError(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  return parse_campaign(j, origin);
}

CampaignSpec load_campaign(const std::string& path) {
  return parse_campaign_text(read_user_file(path, "campaign file"), path);
}

}  // namespace gpuvp::fi
