#include "faultinj/run_context.h"

#include <fmt/format.h>

#include "faultinj/instruction_output.h"
#include "faultinj/rate_mode.h"
#include "models/sm/sm_config.h"

namespace gpuvp::fi {

int launch_at(const std::vector<LaunchSpan>& launches, uint64_t ps) {
  for (size_t k = 0; k < launches.size(); ++k)
    if (launches[k].start_ps <= ps && ps <= launches[k].end_ps) return static_cast<int>(k);
  return -1;
}

RunContexts::RunContexts(const GoldenRun& g)
    : g_(g), transactions_(g.info.value("transaction_ps", std::vector<uint64_t>{})) {}

FaultContext RunContexts::of(const Fault& f) const {
  FaultContext c;
  if (is_rate(f)) return c;
  if (const auto t = parse_inst_output_target(f.target)) {
    // The instruction's own issue instant and class: the fork stands a cycle before it.
    const InstOccurrences* o = find_occurrences(g_, *t);
    if (!o || f.count == 0 || f.count > o->ps.size()) return c;
    c.launch = launch_at(g_.launches, o->ps[f.count - 1]);
    if (f.count <= o->cls.size()) c.cls = o->cls[f.count - 1];
    return c;
  }
  std::optional<uint64_t> ps = f.time_ps;
  if (f.trigger != TriggerKind::Time) ps = event_instant(g_, transactions_, f);
  if (!ps) return c;
  c.launch = launch_at(g_.launches, *ps);
  if (const std::optional<unsigned> sm = regs_target_sm(f.target)) {
    c.alloc = alloc_of(g_, *sm, f.index, *ps);
    c.word = f.index;
  }
  return c;
}

void RunContexts::reg_place(const FaultContext& c, RunRecord& r) const {
  if (c.alloc < 0 || size_t(c.alloc) >= g_.reg_allocs.size()) return;
  const RegPlace p = place_in(g_, g_.reg_allocs[size_t(c.alloc)], c.word);
  r.reg_warp = int(p.warp);
  r.reg_lane = int(p.lane);
  r.reg_name = p.reg;
}

std::string RunContexts::kernel(const FaultContext& c) const {
  if (c.launch < 0 || size_t(c.launch) >= g_.launches.size()) return "";
  return fmt::format("launch {} ({})", c.launch, g_.launches[size_t(c.launch)].kernel);
}

std::string RunContexts::inst_class(const FaultContext& c) {
  return c.cls < 0 ? "" : inst_class_name(static_cast<InstClass>(c.cls));
}

}  // namespace gpuvp::fi
