#include "faultinj/html_report.h"

#include "platform/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "faultinj/metrics.h"
#include "faultinj/report.h"

namespace gpuvp::fi {

namespace {

// HTML-escaped, and free of control characters and invalid UTF-8 (platform/text.h).
std::string esc(const std::string& text) {
  const std::string s = terminal_safe(text);
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

const char* colour(Outcome o) {
  switch (o) {
    case Outcome::Masked: return "#b8b8b8";
    case Outcome::MaskedTiming: return "#4c9be8";
    case Outcome::SDC: return "#d62728";
    case Outcome::DUE: return "#9467bd";
    case Outcome::Timeout: return "#ff9f1c";
    case Outcome::ToolError: return "#000000";
    case Outcome::Tolerable: return "#f4a6a6";
  }
  return "#000000";
}

const char* phase_colour(const std::string& phase) {
  if (phase == "configuration") return "#2ca02c";
  if (phase == "dispatch") return "#17becf";
  if (phase == "exchange") return "#8c564b";
  return nullptr;  // wait, idle: not shaded
}

struct Phase {
  std::string name;
  uint64_t start_ps = 0;
};

std::vector<Phase> phases_of(const std::optional<GoldenRecord>& g) {
  std::vector<Phase> out;
  if (!g) return out;
  try {
    for (const auto& p : nlohmann::json::parse(g->phases_json))
      out.push_back({p.at("phase").get<std::string>(), p.at("start_ps").get<uint64_t>()});
  } catch (const nlohmann::json::exception&) {
    return {};  // a malformed record: no phases drawn
  }
  return out;
}

// The row of a target in the profile: indexed registers grouped.
std::string row_of(const std::string& target) {
  static const std::regex idx(R"(\[\d+\]$)");
  return std::regex_replace(target, idx, "[*]");
}

// A time in ps as a readable label.
std::string time_label(double ps) {
  if (ps >= 1e6) return fmt::format("{:.4g} µs", ps / 1e6);
  if (ps >= 1e3) return fmt::format("{:.4g} ns", ps / 1e3);
  return fmt::format("{:.4g} ps", ps);
}

// AVF per class: horizontal bars with the 95 % Wilson interval as a whisker, 0 .. 100 %.
std::string avf_svg(const ClassCounts& c) {
  const int left = 110, width = 300, row = 22, h = kOutcomeCount * row + 30;
  std::string s = fmt::format(
      R"(<svg class="fig" viewBox="0 0 {} {}" width="{}" height="{}" role="img" aria-label="AVF per class">)",
      left + width + 20, h, left + width + 20, h);
  for (int t = 0; t <= 100; t += 25) {
    const double x = left + width * t / 100.0;
    s += fmt::format(R"(<line x1="{:.1f}" y1="4" x2="{:.1f}" y2="{}" stroke="#ddd"/>)", x, x, h - 22);
    s += fmt::format(R"(<text x="{:.1f}" y="{}" class="tick" text-anchor="middle">{} %</text>)", x, h - 8, t);
  }
  for (int i = 0; i < kOutcomeCount; ++i) {
    const auto o = static_cast<Outcome>(i);
    const double y = 6 + i * row;
    const Interval ci = c.ci(o);
    s += fmt::format(R"(<text x="{}" y="{:.1f}" class="lbl" text-anchor="end">{}</text>)", left - 6, y + 13,
                     to_string(o));
    s += fmt::format(R"(<rect x="{}" y="{:.1f}" width="{:.2f}" height="{}" fill="{}"><title>{}: {:.2f} %</title></rect>)",
                     left, y + 3, width * c.avf(o), row - 8, colour(o), to_string(o), 100 * c.avf(o));
    const double x0 = left + width * ci.lo, x1 = left + width * ci.hi, ym = y + 3 + (row - 8) / 2.0;
    s += fmt::format(R"(<path d="M{0:.1f} {1:.1f}H{2:.1f}M{0:.1f} {3:.1f}V{4:.1f}M{2:.1f} {3:.1f}V{4:.1f}" stroke="#333" fill="none"/>)",
                     x0, ym, x1, ym - 4, ym + 4);
  }
  return s + "</svg>";
}

// The fault profile: one point per run at its injection instant, one row per target (indexed
// registers grouped, the bit spreading the points), coloured by class, on the golden run's phases.
std::string profile_svg(const Store& st) {
  const auto golden = st.golden();
  std::map<uint64_t, Fault> faults;
  for (Fault& f : st.faults()) faults.emplace(f.id, std::move(f));
  const std::vector<RunRecord> runs = st.runs();
  if (runs.empty()) return R"(<p class="note">No runs: no fault profile to draw.</p>)";
  std::set<std::string> row_names;
  double lo = golden ? double(golden->start_ps) : HUGE_VAL, hi = golden ? double(golden->end_ps) : -HUGE_VAL;
  for (const RunRecord& r : runs) {
    const Fault& f = faults.at(r.fault_id);
    row_names.insert(row_of(f.target));
    lo = std::min(lo, double(f.time_ps));
    hi = std::max(hi, double(f.time_ps));
  }
  if (hi <= lo) hi = lo + 1;
  std::map<std::string, int> row_index;
  for (const auto& n : row_names) row_index.emplace(n, int(row_index.size()));
  // Row labels without the prefix they all share (given above the figure).
  std::string prefix = *row_names.begin();
  for (const auto& n : row_names) {
    size_t k = 0;
    while (k < prefix.size() && k < n.size() && prefix[k] == n[k]) ++k;
    prefix.resize(k);
  }
  prefix.resize(prefix.find_last_of('.') == std::string::npos ? 0 : prefix.find_last_of('.') + 1);
  const int left = 130, width = 330, row = 15, top = 8;
  const int plot_h = row * int(row_names.size()), h = top + plot_h + 34;
  auto xof = [&](double t) { return left + width * (t - lo) / (hi - lo); };
  std::string s = fmt::format(
      R"(<svg class="fig" viewBox="0 0 {} {}" width="{}" height="{}" role="img" aria-label="fault profile">)",
      left + width + 20, h, left + width + 20, h);
  // Phases: each lasts until the next one starts.
  const std::vector<Phase> ph = phases_of(golden);
  for (size_t i = 0; i < ph.size(); ++i) {
    const char* c = phase_colour(ph[i].name);
    if (!c) continue;
    const double a = std::max(lo, double(ph[i].start_ps));
    const double b = std::min(hi, i + 1 < ph.size() ? double(ph[i + 1].start_ps) : hi);
    if (b <= a) continue;
    // A phase too short to see as a band (a few cycles of a long kernel) is drawn as a line.
    const double w = xof(b) - xof(a);
    s += fmt::format(R"(<rect x="{:.2f}" y="{}" width="{:.2f}" height="{}" fill="{}" opacity="{}"><title>{}</title></rect>)",
                     xof(a), top, std::max(1.2, w), plot_h, c, w < 2 ? "0.75" : "0.2", ph[i].name);
  }
  for (const auto& [name, i] : row_index) {
    const int y = top + i * row;
    s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#eee"/>)", left, y + row, left + width, y + row);
    s += fmt::format(R"(<text x="{}" y="{}" class="lbl" text-anchor="end">{}</text>)", left - 6, y + row - 4,
                     esc(name.substr(prefix.size())));
  }
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>)", left, top, width, plot_h);
  for (int k = 0; k <= 4; ++k) {
    const double t = lo + (hi - lo) * k / 4;
    s += fmt::format(R"(<text x="{:.1f}" y="{}" class="tick" text-anchor="middle">{}</text>)", xof(t),
                     top + plot_h + 14, time_label(t));
  }
  s += fmt::format(R"(<text x="{}" y="{}" class="tick" text-anchor="middle">injection instant (simulated time)</text>)",
                   left + width / 2, top + plot_h + 29);
  // Masked runs first: the other classes are drawn on top of them.
  for (int pass = 0; pass < 2; ++pass)
    for (const RunRecord& r : runs) {
      const bool masked = r.outcome == Outcome::Masked;
      if (masked != (pass == 0)) continue;
      const Fault& f = faults.at(r.fault_id);
      const double y = top + row_index.at(row_of(f.target)) * row + 3 + (row - 6) * (f.bit % 32) / 31.0;
      s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.2" fill="{}"><title>fault {}: {} bit {} at {} ps: {}</title></circle>)",
                       xof(double(f.time_ps)), y, colour(r.outcome), f.id, esc(f.target), f.bit, f.time_ps,
                       to_string(r.outcome));
    }
  s += "</svg>";
  return prefix.empty() ? s : fmt::format(R"(<p class="note">Rows: the targets {}* (indexed registers grouped as [*]); points spread by bit. Hover a point for its fault.</p>)", esc(prefix)) + s;
}

std::string legend() {
  std::string s = R"(<p class="legend">)";
  for (int i = 0; i < kOutcomeCount; ++i) {
    const auto o = static_cast<Outcome>(i);
    s += fmt::format(R"(<span><i style="background:{}"></i>{}</span>)", colour(o), to_string(o));
  }
  for (const char* p : {"configuration", "dispatch", "exchange"})
    s += fmt::format(R"(<span><i class="ph" style="background:{}"></i>{} phase</span>)", phase_colour(p), p);
  return s + "</p>";
}

std::string class_table(const ClassCounts& c, size_t db) {
  std::string s = fmt::format(
      R"(<table><caption>{} runs, {} faults injected</caption><thead><tr><th>class</th><th>count</th><th>AVF (95 % Wilson interval)</th></tr></thead><tbody>)",
      c.runs, c.injected());
  for (int i = 0; i < kOutcomeCount; ++i) {
    const auto o = static_cast<Outcome>(i);
    const AvfText t = avf_text(c, o);
    s += fmt::format(R"(<tr><td><i class="dot" style="background:{}"></i>{}</td><td class="n">{}</td><td class="avf n" data-db="{}" data-class="{}">{} % [{}, {}]</td></tr>)",
                     colour(o), to_string(o), c.count(o), db, to_string(o), t.avf, t.lo, t.hi);
    for (int k = 1; o == Outcome::DUE && k < kDueKindCount; ++k)
      if (c.by_due[k])
        s += fmt::format(R"(<tr class="sub"><td>{}</td><td class="n">{}</td><td></td></tr>)",
                         to_string(static_cast<DueKind>(k)), c.by_due[k]);
  }
  const AvfText with = sdc_with_tolerable(c);
  return s + fmt::format(R"(</tbody></table><p class="note">AVF of a class = its runs / faults injected (runs &minus; tool errors), in %, with the 95 % Wilson score interval; tool_error is over all runs. SDC AVF counting tolerable runs as SDCs: {} % [{}, {}].</p>)",
                         with.avf, with.lo, with.hi);
}

// A target name that may break after its dots and before its brackets in a narrow column.
std::string breakable(const std::string& name) {
  std::string o;
  for (char c : name) {
    if (c == '[') o += "<wbr>";
    o += esc(std::string(1, c));
    if (c == '.' || c == '_') o += "<wbr>";
  }
  return o;
}

std::string group_table(const std::map<std::string, ClassCounts>& groups) {
  if (groups.empty()) return R"(<p class="note">No runs.</p>)";
  std::string s =
      "<table class=\"grp\"><thead><tr><th>name</th><th>runs</th><th title=\"masked\">msk</th>"
      "<th title=\"masked_timing\">tim</th><th>sdc</th><th>due</th><th title=\"timeout\">tmo</th>"
      "<th title=\"tool_error\">tool</th><th title=\"tolerable\">tol</th><th title=\"sdc runs / faults injected, %, 95 % Wilson interval\">SDC AVF</th></tr></thead><tbody>";
  for (const auto& [name, c] : groups) {
    const AvfText t = avf_text(c, Outcome::SDC);
    s += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{} %<br>[{}, {}]</td></tr>",
        breakable(name), c.runs, c.count(Outcome::Masked), c.count(Outcome::MaskedTiming), c.count(Outcome::SDC),
        c.count(Outcome::DUE), c.count(Outcome::Timeout), c.count(Outcome::ToolError), c.count(Outcome::Tolerable),
        t.avf, t.lo, t.hi);
  }
  return s + "</tbody></table>";
}

constexpr const char* kStyle = R"(
body{font-family:"DejaVu Sans",Arial,sans-serif;font-size:14px;color:#222;margin:20px 28px;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;border-bottom:2px solid #4c9be8;padding-bottom:3px;margin:26px 0 10px}
h3{font-size:14px;margin:0 0 6px;color:#333;word-break:break-all}
.cols{display:grid;gap:18px}.col{min-width:0;overflow-x:auto;background:#fafafa;border:1px solid #e4e4e4;padding:10px;border-radius:4px}
pre{font-family:"DejaVu Sans Mono",monospace;font-size:12px;white-space:pre-wrap;word-break:break-word;margin:0}
table{border-collapse:collapse;font-size:13px;margin:4px 0}caption{text-align:left;color:#555;padding-bottom:4px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left}th{background:#eef3fa}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.sub td{color:#666;padding-left:22px}table.grp{font-size:11.5px}table.grp th,table.grp td{padding:2px 3px}.note{color:#666;font-size:12px;margin:4px 0}
.fig{max-width:100%;height:auto;display:block;margin:6px 0}.tick{font-size:10px;fill:#555}.lbl{font-size:11px;fill:#222}
.legend span{margin-right:14px;white-space:nowrap;font-size:12px}.legend i,.dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
.legend i.ph{border-radius:0;opacity:.4}
)";

}  // namespace

std::string html_report(const std::vector<Store>& stores, std::optional<double> raw_fit_per_bit) {
  struct Col {
    const Store* st;
    AvfTables t;
    std::optional<GoldenRecord> golden;
  };
  std::vector<Col> cols;
  for (const Store& st : stores) cols.push_back({&st, report_tables(st), st.golden()});
  auto section = [&](const std::string& title, const auto& cell) {
    std::string s = fmt::format(
        R"x(<section><h2>{}</h2><div class="cols" style="grid-template-columns:repeat({},minmax(0,1fr))">)x", title,
        cols.size());
    for (size_t i = 0; i < cols.size(); ++i)
      s += fmt::format(R"(<div class="col"><h3>{}: {}</h3>{}</div>)", esc(cols[i].st->campaign().name),
                       esc(cols[i].st->path()), cell(i));
    return s + "</div></section>\n";
  };
  std::string title = "gpuvp campaign report";
  std::string s = fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{}</title><style>{}</style></head><body>
<h1>{}</h1><p class="note">{} result store{}: {}. AVF = runs of a class / faults injected, with 95 % Wilson score intervals; docs/campaigns.md explains every figure.</p>
)",
                              title, kStyle, title, cols.size(), cols.size() == 1 ? "" : "s, side by side", [&] {
                                std::string n;
                                for (auto& c : cols) n += (n.empty() ? "" : ", ") + esc(c.st->path());
                                return n;
                              }());
  s += section("Configuration", [&](size_t i) { return "<pre>" + esc(report_header(*cols[i].st)) + "</pre>"; });
  s += section("AVF per outcome class", [&](size_t i) {
    const std::string rate = rate_text(*cols[i].st);
    return class_table(cols[i].t.all, i) + avf_svg(cols[i].t.all) + (rate.empty() ? "" : "<p>" + esc(rate) + "</p>");
  });
  s += section("Fault profile over time", [&](size_t i) { return legend() + profile_svg(*cols[i].st); });
  s += section("Per structure (register file, predicates, warp control, ... across SMs)",
               [&](size_t i) { return group_table(cols[i].t.per_structure); });
  s += section("Per target", [&](size_t i) { return group_table(cols[i].t.per_target); });
  s += section(kPerKernelTitle, [&](size_t i) { return group_table(cols[i].t.per_kernel); });
  s += section(kPerClassTitle, [&](size_t i) {
    return cols[i].t.per_class.empty() ? std::string("<p class=\"note\">no instruction-output faults</p>")
                                       : group_table(cols[i].t.per_class);
  });
  s += section(kPerRegTitle, [&](size_t i) {
    return cols[i].t.per_ptx_reg.empty() ? std::string("<p class=\"note\">no register-file faults in allocated words</p>")
                                         : group_table(cols[i].t.per_ptx_reg);
  });
  s += section("ACE analysis and pruning (live bit-time / total bit-time over the campaign's fault space beside the injected AVF)",
               [&](size_t i) { return "<pre>" + esc(exhaustive_note(*cols[i].st) + lifetimes_text(*cols[i].st, cols[i].t)) + "</pre>"; });
  s += section("MTBF and FIT", [&](size_t i) {
    return "<pre>" + esc(mtbf_text(cols[i].t.all, cols[i].golden, raw_rate(*cols[i].st, raw_fit_per_bit),
                                    campaign_window(*cols[i].st))) + "</pre>";
  });
  return s + "</body></html>\n";
}

}  // namespace gpuvp::fi
