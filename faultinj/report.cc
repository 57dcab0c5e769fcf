#include "faultinj/report.h"

#include "faultinj/rate_mode.h"

#include <fmt/format.h>

#include <map>

#include "faultinj/campaign_file.h"
#include "faultinj/metrics.h"
#include <nlohmann/json.hpp>
#include "platform/config/json_text.h"

namespace gpuvp::fi {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string size_line(const SizeSpec& z) {
  if (z.exhaustive) return "exhaustive (every bit of the targets at every clock edge of the window)";
  if (z.count) return fmt::format("{} faults", *z.count);
  return fmt::format("margin {} at confidence {} (t = {}, p = {})", z.margin, z.confidence, z.t, z.p);
}

std::string fault_line(const FaultTemplate& f) {
  std::string s = to_string(f.model);
  if (f.model == FaultModel::MultiBitFlip) s += fmt::format(" ({} bits)", f.nbits);
  if (f.model == FaultModel::XorMask) s += fmt::format(" (mask {:#x})", f.mask);
  s += std::string(", ") + to_string(f.duration);
  if (f.duration == Duration::Intermittent) s += fmt::format(" (held {} ps)", f.hold_ps);
  return s;
}

// An application's outputs by default: its standard output and the files it names (faultinj/app_run.h).
std::string check_line(const OutputCheckSpec& k, bool application) {
  std::string outs = !k.outputs.empty() ? join(k.outputs)
                     : application      ? "standard output and the output files"
                                        : "the buffers the kernel wrote";
  if (!k.command.empty()) return fmt::format("{}, by the command {} (timeout {} s)", outs, join(k.command), k.timeout_s);
  if (!k.tolerant()) return outs + ", exactly";
  std::string t = fmt::format("|faulty - golden| <= {} + {} x |golden|", k.abs.value_or(0), k.rel.value_or(0));
  if (k.max_share) t += fmt::format(", up to {} of the elements beyond it", *k.max_share);
  return fmt::format("{}, tolerable when {}", outs, t);
}

std::string application_lines(const ApplicationSpec& a) {
  std::vector<std::string> files;
  for (const AppOutputFile& f : a.outputs) files.push_back(f.type == "u8" ? f.path : f.path + " (" + f.type + ")");
  return fmt::format("  application: {}\n  output files: {}\n  wall-time limit: {}\n", join(a.command),
                     files.empty() ? "none" : join(files),
                     a.timeout_s > 0 ? fmt::format("{} s", a.timeout_s) : "10 x the golden run's, at least 10 s");
}

std::string spec_lines(const CampaignSpec& s) {
  std::string out = fmt::format("  platform: preset {}{}\n", s.preset, s.set.empty() ? "" : ", set " + json_dump(s.set));
  if (s.workload)
    out += fmt::format("  workload: {} (launch {}, seed {})\n", s.workload->name,
                       s.workload->launch.empty() ? "default" : s.workload->launch, s.workload->seed);
  else if (s.exec)
    out += fmt::format("  exec: {}\n", s.exec->dump());
  else
    out += application_lines(*s.application);
  if (s.lists_faults()) {
    out += s.faults_csv.empty() ? fmt::format("  faults: {} listed in the file\n", s.listed_faults->size())
                                : fmt::format("  faults: listed in {}\n", s.faults_csv);
  } else {
    out += fmt::format("  targets: {}{}\n", join(s.targets), s.exclude.empty() ? "" : " minus " + join(s.exclude));
    out += fmt::format("  fault: {}\n  size: {}\n", fault_line(s.fault), size_line(s.size));
    out += s.window ? fmt::format("  window: {} .. {} ns\n", s.window->from_ns, s.window->to_ns)
                    : "  window: the golden execution window\n";
  }
  out += "  output check: " + check_line(s.check, s.application.has_value()) + "\n";
  if (s.application)  // each run is a process with a wall-time limit: no simulated bound, no early stop
    return out + fmt::format("  workers {}\n", s.workers ? std::to_string(s.workers) : "= CPUs");
  return out + fmt::format("  timeout factor {}, workers {}, early stop {}\n", s.timeout_factor,
                           s.workers ? std::to_string(s.workers) : "= CPUs", s.early_stop ? "on" : "off");
}

std::string campaign_lines(const CampaignInfo& c) {
  std::string out = fmt::format("Campaign: {}\n  created {}, build {}, seed {}, file hash {}\n", c.name, c.created,
                                c.build_id, c.seed, c.file_hash);
  try {
    return out + spec_lines(parse_campaign_text(c.file_text, "campaign file"));
  } catch (const CampaignError& e) {
    return out + fmt::format("  (the stored campaign file does not parse: {})\n", e.what());
  }
}

std::string golden_lines(const std::optional<GoldenRecord>& g) {
  if (!g) return "Golden run: not recorded\n";
  return fmt::format(
      "Golden run\n  execution window {} .. {} ps ({} ps), simulation end {} ps, {} kernel cycles\n"
      "  output {} bytes (hash {}), {} state bits, {} s host time\n",
      g->start_ps, g->end_ps, g->end_ps - g->start_ps, g->sim_end_ps, g->kernel_cycles, g->output_bytes,
      g->output_hash, g->state_bits, format_number(g->host_seconds, 4));
}

std::string avf_cell(const ClassCounts& c, Outcome o) {
  const AvfText t = avf_text(c, o);
  return fmt::format("{:>6} % [{:>6}, {:>6}]", t.avf, t.lo, t.hi);
}

std::string shard_lines(const std::optional<ShardInfo>& s) {
  if (!s) return "";
  if (s->index > 0)
    return fmt::format("Shard {} of {}: faults with id % {} = {} of the {} of the campaign (fault list hash {})\n",
                       s->index, s->count, s->count, s->index - 1, s->full_fault_count, s->fault_list_hash);
  if (s->count > 1)
    return fmt::format("Merged from {} shards{} ({} faults in the campaign, fault list hash {})\n", s->count,
                       s->missing.empty() ? "" : ", missing shards " + s->missing, s->full_fault_count,
                       s->fault_list_hash);
  return "";
}

std::string class_table(const ClassCounts& c) {
  std::string out = fmt::format("Outcomes ({} runs, {} faults injected = runs - tool errors)\n"
                                "  AVF of a class = its runs / faults injected, in %, [95 % Wilson score interval]\n",
                                c.runs, c.injected());
  out += fmt::format("  {:<22} {:>8}  {}\n", "class", "count", "AVF");
  for (int i = 0; i < kOutcomeCount; ++i) {
    const auto o = static_cast<Outcome>(i);
    out += fmt::format("  {:<22} {:>8}  {}\n", to_string(o), c.count(o), avf_cell(c, o));
    for (int k = 1; o == Outcome::DUE && k < kDueKindCount; ++k)
      if (c.by_due[k])
        out += fmt::format("    {:<20} {:>8}\n", to_string(static_cast<DueKind>(k)), c.by_due[k]);
  }
  const AvfText with = sdc_with_tolerable(c);
  out += fmt::format("  SDC AVF counting tolerable runs as SDCs too (sdc + tolerable) / injected: {:>6} % [{:>6}, {:>6}]\n",
                     with.avf, with.lo, with.hi);
  return out + "  (tool_error is over all runs; the other classes over the faults injected)\n";
}

std::string group_table(const char* title, const std::map<std::string, ClassCounts>& groups) {
  std::string out = fmt::format("{} (counts of runs; SDC AVF = sdc runs / faults injected there, %, [95 % Wilson "
                                "interval])\n  {:<36} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {}\n", title, "name",
                                "runs", "masked", "timing", "sdc", "due", "tmout", "tool", "tol", "SDC AVF");
  for (const auto& [name, c] : groups)
    out += fmt::format("  {:<36} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {}\n", name, c.runs,
                       c.count(Outcome::Masked), c.count(Outcome::MaskedTiming), c.count(Outcome::SDC),
                       c.count(Outcome::DUE), c.count(Outcome::Timeout), c.count(Outcome::ToolError),
                       c.count(Outcome::Tolerable), avf_cell(c, Outcome::SDC));
  return out;
}

}  // namespace

namespace {
AvfText percent(uint64_t k, uint64_t n) {
  const Interval ci = wilson(k, n);
  const double avf = n == 0 ? 0.0 : double(k) / double(n);
  return {fmt::format("{:.2f}", 100 * avf), fmt::format("{:.2f}", 100 * ci.lo), fmt::format("{:.2f}", 100 * ci.hi)};
}
}  // namespace

AvfText avf_text(const ClassCounts& c, Outcome o) {
  return percent(c.count(o), o == Outcome::ToolError ? c.runs : c.injected());
}

AvfText sdc_with_tolerable(const ClassCounts& c) {
  return percent(c.count(Outcome::SDC) + c.count(Outcome::Tolerable), c.injected());
}

RawRate raw_rate(const Store& store, std::optional<double> given) {
  if (given) return {*given, "--raw-fit"};
  try {
    const CampaignSpec spec = parse_campaign_text(store.campaign().file_text, "campaign file");
    if (spec.raw_fit_per_bit) return {*spec.raw_fit_per_bit, "the campaign file's raw_fit_per_bit"};
  } catch (const CampaignError&) {
    // an unreadable stored file: the default, as for a file without the key
  }
  return {kDefaultRawFitPerBit, "default: 1000 FIT per Mbit, unprotected SRAM at sea level (Baumann 2005; "
                                "docs/reliability.md); give the design's own with raw_fit_per_bit or --raw-fit"};
}

std::optional<WindowSpec> campaign_window(const Store& store) {
  try {
    const CampaignSpec spec = parse_campaign_text(store.campaign().file_text, "campaign file");
    if (spec.window && spec.trigger.event == "time" && !spec.lists_faults()) return spec.window;
  } catch (const CampaignError&) {
    // an unreadable stored file: the execution window, as for a campaign without one
  }
  return std::nullopt;
}

std::string mtbf_text(const ClassCounts& c, const std::optional<GoldenRecord>& g, const RawRate& raw,
                      const std::optional<WindowSpec>& window) {
  if (!g) return "MTBF: needs the golden run\n";
  // The flux is one fault per stretch of time the faults were drawn from: a windowed campaign's faults
  // all struck inside its window, so its cross section is per window, not per execution.
  const uint64_t exposure_ps = window ? (window->to_ns - window->from_ns) * 1000 : g->end_ps - g->start_ps;
  const double exec_s = static_cast<double>(exposure_ps) * 1e-12;
  const std::string what = window ? fmt::format("the campaign's window {} .. {} ns, where its faults struck",
                                                window->from_ns, window->to_ns)
                                  : "the execution window";
  const uint64_t sdc = c.count(Outcome::SDC);
  std::string out = fmt::format(
      "MTBF (study: cross section = SDC / injected = {} / {}, flux = 1 / {} s): {} s\n"
      "  the FlexGripPlus study's figure: simulated seconds between SDCs if one fault struck every {}\n"
      "  (flux = 1 / {}); comparable only with that study, not a field MTBF\n",
      sdc, c.injected(), format_number(exec_s), format_number(study_mtbf(sdc, c.injected(), exec_s)),
      window ? "window" : "execution", what);
  out += fmt::format("FIT (failures per 10^9 device hours) = raw FIT/bit x state bits x AVF; MTBF (hours) = 10^9 / FIT\n"
                     "  raw rate {} FIT/bit ({})\n", format_number(raw.fit_per_bit), raw.source);
  for (Outcome o : {Outcome::SDC, Outcome::DUE}) {
    const double f = fit(raw.fit_per_bit, g->state_bits, c.avf(o));
    out += fmt::format("{} FIT = {} FIT/bit x {} bits x AVF {}: {} FIT, MTBF {} h\n", to_string(o),
                       format_number(raw.fit_per_bit), g->state_bits, format_number(c.avf(o)), format_number(f),
                       format_number(mtbf_hours_of_fit(f)));
  }
  return out;
}

AvfTables report_tables(const Store& store) {
  std::map<uint64_t, std::string> target_of;
  for (const Fault& f : store.faults()) target_of[f.id] = f.target;
  std::vector<RunPoint> points;
  for (const RunRecord& r : store.runs())
    points.push_back({target_of[r.fault_id], r.outcome, r.due_kind, r.kernel, r.inst_class, r.reg_name});
  return avf_tables(points);
}

std::string rate_text(const Store& store) {
  std::map<uint64_t, uint64_t> count_of;  // rate runs' faults: id -> the faults the run received
  for (const Fault& f : store.faults())
    if (is_rate(f)) count_of[f.id] = f.count;
  uint64_t runs = 0, faults = 0;
  for (const RunRecord& r : store.runs())
    if (auto it = count_of.find(r.fault_id); it != count_of.end()) ++runs, faults += it->second;
  if (runs == 0) return {};
  return fmt::format("Rate mode: {} runs, mean faults per run {:.3f} (faults a run received, the Poisson draw: the "
                     "exports' count column; total {})\n",
                     runs, double(faults) / double(runs), faults);
}

// A campaign on an application: how its faulty runs ran (forked, or fresh processes and why).
std::string route_line(const Store& store) {
  const auto route = store.meta("application_runs");
  return route ? fmt::format("Faulty runs: {}\n", *route) : "";
}

std::string report_header(const Store& store) {
  const uint64_t faults = store.fault_count(), runs = store.run_count();
  return campaign_lines(store.campaign()) + shard_lines(store.shard()) + golden_lines(store.golden()) +
         fmt::format("Runs: {} of {} done ({} pending)\n", runs, faults, faults - runs) + route_line(store);
}

namespace {
struct AceSum {
  uint64_t bits = 0;
  double live = 0, total = 0;
  std::string ace() const { return total > 0 ? fmt::format("{:.2f}", 100 * live / total) : "-"; }
  void add(const AceSum& o) { bits += o.bits, live += o.live, total += o.total; }
};
// A target's ACE over the campaign's fault space, and over the whole target and execution window.
struct AceRow {
  AceSum space, whole;
  void add(const AceRow& o) { space.add(o.space), whole.add(o.whole); }
};

// Runs not masked over faults injected, %: what the ACE AVF bounds (none without injected faults).
std::optional<double> failure_avf_value(const ClassCounts* c) {
  if (!c || c->injected() == 0) return std::nullopt;
  const uint64_t masked = c->count(Outcome::Masked) + c->count(Outcome::MaskedTiming);
  return 100.0 * double(c->injected() - masked) / double(c->injected());
}

std::string failure_avf(const ClassCounts* c) {
  const auto v = failure_avf_value(c);
  return v ? fmt::format("{:.2f}", *v) : "-";
}

constexpr const char* kAceRow = "  {:<36} {:>10} {:>8} {:>10} {:>12} {:>10}\n";

std::string ace_rows(const std::map<std::string, AceRow>& rows, const std::map<std::string, ClassCounts>& counts) {
  std::string out;
  for (const auto& [name, a] : rows) {
    auto it = counts.find(name);
    out += fmt::format(kAceRow, name, a.space.bits, a.space.ace(), failure_avf(it == counts.end() ? nullptr : &it->second),
                       a.whole.bits, a.whole.ace());
  }
  return out;
}

// A kernel's row has no injected AVF or whole-target figure (the runs are counted per launch in the
// outcome tables): name, bits and ACE only, as the header says.
std::string kernel_ace_rows(const std::map<std::string, AceRow>& rows) {
  std::string out;
  for (const auto& [name, a] : rows) out += fmt::format("  {:<36} {:>10} {:>8}\n", name, a.space.bits, a.space.ace());
  return out;
}

// One observed target of the stored summary; a store from before fault-space figures has the whole
// target's only (then both columns show them).
AceRow ace_row(const nlohmann::json& o) {
  AceRow r;
  r.whole = {o.at("bits"), o.at("live_bit_ps"), o.at("total_bit_ps")};
  r.space = r.whole;
  if (o.contains("space")) r.space = {o["space"].at("bits"), o["space"].at("live_bit_ps"), o["space"].at("total_bit_ps")};
  return r;
}

std::string pruned_line(const Store& store) {
  uint64_t dead = 0, shared = 0, runs = 0;
  for (const RunRecord& r : store.runs()) {
    ++runs;
    if (r.detail.rfind("pruned: dead", 0) == 0) ++dead;
    if (r.detail.rfind("pruned: same live", 0) == 0) ++shared;
  }
  return fmt::format("  runs recorded without simulating: {} in dead intervals (masked), {} sharing a live interval's run; "
                     "{} simulated, of {} runs\n", dead, shared, runs - dead - shared, runs);
}
}  // namespace

std::string exhaustive_note(const Store& store) {
  try {
    if (!parse_campaign_text(store.campaign().file_text, "campaign file").size.exhaustive) return {};
  } catch (const CampaignError&) {
    return {};
  }
  return "  size.exhaustive: every bit at every clock edge of the window is a fault of this store (pruned ones\n"
         "  included): once every run is done, each AVF above is exact, with no sampling error (the intervals do not apply)\n";
}

namespace {
// The stored lifetimes summary (meta `lifetimes`) summed per target, structure and kernel.
struct AceTables {
  bool pruning = false;
  std::map<std::string, AceRow> per_target, per_structure, per_kernel;
  std::vector<std::string> unobserved;
  nlohmann::json window_ps;
};

std::optional<AceTables> ace_tables(const Store& store) {
  const auto text = store.meta("lifetimes");
  if (!text) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(*text);
  AceTables a;
  a.pruning = j.at("pruning").get<bool>();
  a.window_ps = j.value("window_ps", nlohmann::json());
  a.unobserved = j.at("unobserved").get<std::vector<std::string>>();
  for (const auto& o : j.at("observed")) {
    const std::string name = o.at("name");
    const AceRow r = ace_row(o);
    a.per_target[name] = r;
    a.per_structure[structure_of(name)].add(r);
    const auto& ks = o.at("kernels");
    for (size_t k = 0; k < ks.size(); ++k)
      a.per_kernel[fmt::format("kernel {}", k)].add({{r.space.bits, ks[k][0].get<double>(), ks[k][1].get<double>()}, {}});
  }
  return a;
}

nlohmann::json sum_json(const AceSum& s) {
  return {{"bits", s.bits}, {"live_bit_ps", s.live}, {"total_bit_ps", s.total},
          {"ace_avf", s.total > 0 ? nlohmann::json(100 * s.live / s.total) : nlohmann::json()}};
}

// Rows by name: the fault space's figures, the injected failure AVF beside them and the whole target's.
nlohmann::json rows_json(const std::map<std::string, AceRow>& rows, const std::map<std::string, ClassCounts>& counts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, a] : rows) {
    auto it = counts.find(name);
    const ClassCounts* c = it == counts.end() ? nullptr : &it->second;
    const auto inj = failure_avf_value(c);
    nlohmann::json r = sum_json(a.space);
    r["injected"] = c ? c->injected() : 0;
    r["injected_failure_avf"] = inj ? nlohmann::json(*inj) : nlohmann::json();
    r["whole"] = sum_json(a.whole);
    out[name] = r;
  }
  return out;
}
}  // namespace

std::string lifetimes_text(const Store& store, const AvfTables& t) {
  const auto a = ace_tables(store);
  if (!a) return {};
  std::string out = fmt::format(
      "ACE analysis of the golden run over the campaign's fault space (the words and window its faults are drawn\n"
      "from: a register file's words the kernels allocated, an index range's words; ACE AVF = live bit-time / total\n"
      "bit-time there, %: an upper bound of the injected failure AVF = runs not masked / faults injected, %; observed\n"
      "targets only). 'whole': the same over every word of the target and the whole execution window\n"
      "  pruning: {}\n", a->pruning ? "on (faults in dead intervals masked without a run, one run per live interval)" : "off");
  out += pruned_line(store);
  out += "Per structure\n" + fmt::format(kAceRow, "structure", "bits", "ACE AVF", "inj. AVF", "bits whole", "ACE whole") +
         ace_rows(a->per_structure, t.per_structure);
  out += "Per target\n" + fmt::format(kAceRow, "target", "bits", "ACE AVF", "inj. AVF", "bits whole", "ACE whole") +
         ace_rows(a->per_target, t.per_target);
  out += "Per kernel (observed targets together, the kernel's part of the window)\n" +
         fmt::format("  {:<36} {:>10} {:>8}\n", "kernel", "bits", "ACE AVF") + kernel_ace_rows(a->per_kernel);
  out += fmt::format("  not observed (reads not all seen: no ACE figure, never pruned): {}\n",
                     a->unobserved.empty() ? "none" : join(a->unobserved));
  return out;
}

nlohmann::json json_report(const Store& store) {
  const AvfTables t = report_tables(store);
  const auto failure = failure_avf_value(&t.all);
  nlohmann::json out = {{"campaign", store.campaign().name}, {"faults", store.fault_count()}, {"runs", store.run_count()},
                        {"injected", t.all.injected()},
                        {"injected_failure_avf", failure ? nlohmann::json(*failure) : nlohmann::json()},
                        {"ace", nullptr}};
  const auto a = ace_tables(store);
  if (!a) return out;
  nlohmann::json kernels = nlohmann::json::object();  // the fault space's figures only (no injected, no whole)
  for (const auto& [name, k] : a->per_kernel) kernels[name] = sum_json(k.space);
  out["ace"] = {{"pruning", a->pruning}, {"window_ps", a->window_ps}, {"unobserved", a->unobserved},
                {"structures", rows_json(a->per_structure, t.per_structure)},
                {"targets", rows_json(a->per_target, t.per_target)}, {"kernels", kernels}};
  return out;
}

std::string text_report(const Store& store, std::optional<double> raw_fit_per_bit) {
  const AvfTables t = report_tables(store);
  std::string out = report_header(store) + "\n";
  out += class_table(t.all) + exhaustive_note(store) + rate_text(store) + "\n";
  out += group_table("Per target", t.per_target) + "\n";
  out += group_table("Per structure (docs/campaigns.md, \"Structures\")", t.per_structure) + "\n";
  out += group_table(kPerKernelTitle, t.per_kernel) + "\n";
  if (!t.per_class.empty()) out += group_table(kPerClassTitle, t.per_class) + "\n";
  if (!t.per_ptx_reg.empty()) out += group_table(kPerRegTitle, t.per_ptx_reg) + "\n";
  if (std::string l = lifetimes_text(store, t); !l.empty()) out += l + "\n";
  return out + mtbf_text(t.all, store.golden(), raw_rate(store, raw_fit_per_bit), campaign_window(store));
}

}  // namespace gpuvp::fi
