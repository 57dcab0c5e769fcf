// The block scheduler's parameters (scheduler.*) and the policy names, in one place.
#include <fmt/format.h>

#include <stdexcept>

#include "models/common/params.h"
#include "models/scheduler/block_scheduler.h"

namespace gpuvp {

namespace {
const bool declared = declare_params({
    "scheduler", "gpu.sched", "",
    {
        ParamDef::String("scheduler.policy", "round_robin", {"round_robin", "ordered", "even_odd", "random"},
                         "Batch scheduler: order in which SMs receive blocks. The concurrent dispatcher "
                         "(scheduler.kind = concurrent) has its own rule: any value but round_robin is refused there"),
        ParamDef::Int("scheduler.seed", 1, 0, 4294967295.0, "Seed of the random policy"),
        ParamDef::Int("scheduler.blocks_per_core", 0, 0, 64,
                      "Blocks per core written to the configuration block (0: most that fit)"),
    },
});
}  // namespace

SchedPolicy parse_sched_policy(const std::string& s) {
  if (s == "round_robin" || s == "rr" || s == "roundrobin") return SchedPolicy::RoundRobin;
  if (s == "ordered") return SchedPolicy::Ordered;
  if (s == "even_odd" || s == "evenodd") return SchedPolicy::EvenOdd;
  if (s == "random") return SchedPolicy::Random;
  throw std::invalid_argument(fmt::format("scheduler policy '{}' unknown (round_robin, ordered, even_odd, random)", s));
}

const char* to_string(SchedPolicy p) {
  switch (p) {
    case SchedPolicy::RoundRobin: return "round_robin";
    case SchedPolicy::Ordered: return "ordered";
    case SchedPolicy::EvenOdd: return "even_odd";
    case SchedPolicy::Random: return "random";
  }
  return "?";
}

bool interleaves_blocks(SchedPolicy p) { return p == SchedPolicy::RoundRobin; }

BlockSchedulerConfig BlockSchedulerConfig::from(const Params& p, unsigned num_sms, const Clock& clk) {
  (void)declared;
  BlockSchedulerConfig c;
  c.num_sms = num_sms;
  c.clock = clk;
  c.policy = parse_sched_policy(p.s("policy"));
  c.seed = static_cast<uint64_t>(p.i("seed"));
  c.path = p.instance();
  return c;
}

}  // namespace gpuvp
