// Rate mode: several faults per run at a rate (rate_mode.h; docs/campaigns.md, "Rate mode").
#include "faultinj/rate_mode.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "faultinj/engine.h"
#include "faultinj/fault_list.h"

namespace gpuvp::fi {

namespace {
constexpr uint64_t kSubStream = 0x726174655f737562;  // "rate_sub": the faults' stream, apart from the count's

std::string regs_target(unsigned sm) { return fmt::format("gpu.sm{}.regs", sm); }

const TargetDesc* find_target(const GoldenRun& g, const std::string& name) {
  for (const TargetDesc& t : g.targets)
    if (t.name == name) return &t;
  return nullptr;
}

// The components a fault can land in: the register file, and the units the golden run used.
std::vector<std::string> in_use(const RateSpec& r, const GoldenRun& g) {
  std::vector<std::string> out;
  for (const std::string& c : r.components) {
    if (c == kRateRegisters) {
      if (find_target(g, regs_target(r.sm))) out.push_back(c);
      continue;
    }
    const InstOccurrences* o = find_occurrences(g, {r.sm, parse_inst_group(c)});
    if (o && !o->seq.empty()) out.push_back(c);
  }
  return out;
}

// A uniform word of the register file: of the words the kernels allocated, unless the whole file
// is asked for or the golden run recorded no allocation (an application's).
Fault register_fault(const RateSpec& r, const GoldenRun& g, SplitMix64& rng) {
  const TargetDesc& t = *find_target(g, regs_target(r.sm));
  const WordRanges words = r.whole_regfile ? WordRanges{} : allocated_words(g, r.sm);
  Fault f;
  f.target = t.name;
  f.index = words.empty() ? rng.uniform(t.count) : nth_word(words, rng.uniform(word_count(words)));
  f.bit = unsigned(rng.uniform(t.width));
  const uint64_t first = (g.start_ps + g.period_ps - 1) / g.period_ps;
  const uint64_t edges = std::max<uint64_t>(1, edge_count(g.start_ps, g.end_ps, g.period_ps));
  f.time_ps = (first + rng.uniform(edges)) * g.period_ps;
  return f;
}

Fault unit_fault(const RateSpec& r, const GoldenRun& g, const std::string& c, SplitMix64& rng) {
  const InstOutputTarget where{r.sm, parse_inst_group(c)};
  const InstOccurrences& o = *find_occurrences(g, where);
  Fault f;
  f.target = inst_output_target(where);
  f.trigger = TriggerKind::Event;
  f.event = kInstOutputEvent;
  f.count = rng.uniform(o.seq.size()) + 1;
  f.index = rng.uniform(32);
  f.bit = unsigned(rng.uniform(64));
  const uint64_t t = o.ps[f.count - 1];
  f.time_ps = t >= g.period_ps ? t - g.period_ps : 0;  // one cycle before it issues, as engine.cc forks
  return f;
}
}  // namespace

std::string rate_event(const RateSpec& r) {
  std::string comps;
  for (const std::string& c : r.components) comps += (comps.empty() ? "" : ",") + c;
  return fmt::format("rate:{}:{}{}", r.per_million_cycles, comps, r.whole_regfile ? ":all" : "");
}

std::optional<RateSpec> parse_rate_event(const std::string& event) {
  if (event.rfind("rate:", 0) != 0) return std::nullopt;
  const size_t colon = event.find(':', 5);
  if (colon == std::string::npos) return std::nullopt;
  RateSpec r;
  try {
    r.per_million_cycles = std::stod(event.substr(5, colon - 5));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string rest = event.substr(colon + 1);
  const size_t all = rest.find(':');
  if (all != std::string::npos) {
    if (rest.substr(all) != ":all") return std::nullopt;
    r.whole_regfile = true;
    rest.resize(all);
  }
  std::stringstream comps(rest);
  for (std::string c; std::getline(comps, c, ',');) r.components.push_back(c);
  return r;
}

std::vector<InstOutputTarget> rate_inst_targets(const RateSpec& r) {
  std::vector<InstOutputTarget> out;
  for (const std::string& c : r.components)
    if (c != kRateRegisters) out.push_back({r.sm, parse_inst_group(c)});
  return out;
}

double rate_mean(const RateSpec& r, uint64_t kernel_cycles) { return r.per_million_cycles * double(kernel_cycles) / 1e6; }

uint64_t poisson(uint64_t seed, double mean) {
  SplitMix64 rng(seed);
  const double u = double(rng.next() >> 11) * 0x1p-53;
  double p = std::exp(-mean), cdf = p;
  uint64_t k = 0;
  while (u > cdf && p > 0) {
    ++k;
    p *= mean / double(k);
    cdf += p;
  }
  return k;
}

std::vector<Fault> rate_faults(const RateSpec& r, const GoldenRun& g, uint64_t n, uint64_t seed) {
  const double mean = rate_mean(r, g.kernel_cycles);
  SplitMix64 seeds(seed);
  std::vector<Fault> out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    Fault f;
    f.id = i;
    f.target = fmt::format("gpu.sm{}.rate", r.sm);
    f.event = rate_event(r);
    f.mask = seeds.next();
    f.count = poisson(f.mask, mean);
    const std::vector<Fault> subs = expand_rate_fault(f, g);
    f.time_ps = subs.empty() ? g.start_ps : subs.front().time_ps;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Fault> expand_rate_fault(const Fault& run, const GoldenRun& g) {
  const std::optional<RateSpec> r = parse_rate_event(run.event);
  if (!r) throw std::invalid_argument(fmt::format("event '{}' is not a rate event", run.event));
  const std::vector<std::string> comps = in_use(*r, g);
  if (comps.empty() && run.count)
    throw std::invalid_argument(fmt::format("none of the components of '{}' was in use on SM {} in the golden run",
                                            run.event, r->sm));
  SplitMix64 rng(run.mask ^ kSubStream);
  std::vector<Fault> subs;
  for (uint64_t k = 0; k < run.count; ++k) {
    const std::string& c = comps[rng.uniform(comps.size())];
    subs.push_back(c == kRateRegisters ? register_fault(*r, g, rng) : unit_fault(*r, g, c, rng));
  }
  std::stable_sort(subs.begin(), subs.end(), [](const Fault& a, const Fault& b) { return a.time_ps < b.time_ps; });
  return subs;
}

}  // namespace gpuvp::fi
