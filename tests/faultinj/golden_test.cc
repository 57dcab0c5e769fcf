// The golden run's scheduler phases (the fault profile's shading) are the same with the SystemC model
// and the Verilated RTL scheduler, phase by phase and cycle by cycle.
#include <catch2/catch.hpp>

#include "faultinj/engine.h"
#include "faultinj/job.h"

using namespace gpuvp;
using namespace gpuvp::fi;

TEST_CASE("golden: model and RTL schedulers report the same phases") {
  auto golden = [](const std::string& impl) {
    Config c = Config::preset("flexgrip");
    c.set("sm.count=2");
    c.set("scheduler.impl=" + impl);
    return run_golden([c] { return workload_job(c, "scalarProd", "fi16", 1); });
  };
  GoldenRun m = golden("model"), r = golden("rtl");
  REQUIRE(m.phases.size() > 4);
  REQUIRE(r.phases.size() == m.phases.size());
  for (size_t i = 0; i < m.phases.size(); ++i) {
    INFO("phase entry " << i);
    CHECK(r.phases[i].phase == m.phases[i].phase);
    CHECK(r.phases[i].start_ps == m.phases[i].start_ps);
  }
  // fi16 on 2 SMs with 2 blocks per core: 16 blocks in 4 batches, each dispatched once.
  size_t dispatches = 0;
  for (auto& p : m.phases) dispatches += p.phase == "dispatch";
  CHECK(dispatches == 4);
}
