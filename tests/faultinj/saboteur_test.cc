// The bus saboteur: a corrupted write address lands where the bounds check says, and an early stop
// never changes an outcome.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/subprocess.h"
#include "engine_job.h"
#include "faultinj/saboteur.h"
#include "faultinj/export_csv.h"

using namespace gpuvp;
using namespace gpuvp::fi;
using namespace gpuvp::fi::test;

namespace {

// vectorAdd's only global writes are its stores to c: the first transaction through SM 0's write
// port is c[0]'s store (block 0, the lowest lane first on flexgrip's lane-by-lane port), at kBufC.
Fault address_flip(uint64_t id, unsigned bit) {
  Fault f;
  f.id = id;
  f.target = target_name("gpu.sm0.gmem_wr", BusField::Address);
  f.bit = bit;
  f.trigger = TriggerKind::Event;
  f.event = "gpu.sm0.gmem_wr";
  f.count = 1;
  return f;
}

std::map<uint64_t, RunResult> run(const Config& c, const std::vector<Fault>& faults) {
  JobFactory make = [c] { return with_saboteur(exec_job(c, vector_add_desc(), "saboteur test"), "gpu.sm0.gmem_wr", "address"); };
  GoldenRun g = run_golden(make);
  REQUIRE(g.info["transaction_ps"].size() == kN);  // one store per element, lane by lane
  std::map<uint64_t, RunResult> out;
  run_faults(make, g, faults, {}, [&](const RunResult& r) { out[r.fault_id] = r; });
  REQUIRE(out.size() == faults.size());
  return out;
}

}  // namespace

TEST_CASE("saboteur: a corrupted write address is a DUE outside every allocation, an SDC inside one") {
  // c[0] is at kBufC = gmem + 0x900. Bit 2: c[1] (inside c, mapped): c[0] keeps its zero and c[1]
  // is written twice: SDC. Bit 20: gmem + 0x100900, far beyond every allocation (a, b, c are 1 KiB
  // each from gmem + 0x100): the bounds check answers an address error: DUE, out of bounds. Bit
  // 39: beyond the 40-bit space of global memory altogether: also an address error.
  auto r = run(engine_config(), {address_flip(0, 2), address_flip(1, 20), address_flip(2, 39)});
  CHECK(r[0].outcome == Outcome::SDC);
  CHECK(r[1].outcome == Outcome::DUE);
  CHECK(r[1].due == DueKind::OutOfBounds);
  CHECK(r[2].outcome == Outcome::DUE);
  CHECK(r[2].due == DueKind::OutOfBounds);

  // Without the bounds check, the store at gmem + 0x100900 lands in unused global memory: c[0]
  // stays 0 where the golden run has 0 + 1 = 1: SDC.
  Config off = engine_config();
  off.set("gmem.check_bounds=false");
  auto r2 = run(off, {address_flip(0, 20)});
  CHECK(r2[0].outcome == Outcome::SDC);
}

TEST_CASE("saboteur: a transaction that has already passed cannot be corrupted: a tool error") {
  Fault late = address_flip(0, 2);
  late.count = kN + 1;  // there are only kN stores
  auto r = run(engine_config(), {late});
  CHECK(r[0].outcome == Outcome::ToolError);
}

TEST_CASE("early stop: a campaign gives the same outcomes with and without it, and stops some runs early") {
  const std::string dir = gpuvp::test::temp_path("early");
  std::string mk = "mkdir -p " + dir;
  REQUIRE(std::system(mk.c_str()) == 0);
  auto campaign = [&](bool early) {
    std::string file = dir + (early ? "/on.json" : "/off.json");
    std::ofstream(file) << R"({"name": "early", "platform": {"preset": "flexgrip", "set": {"sm.count": 1}},
      "workload": {"name": "scalarProd", "launch": "fi16"}, "targets": ["gpu.sched.*"],
      "size": {"count": 150}, "seed": 21, "workers": 2, "early_stop": )" +
                                std::string(early ? "true" : "false") + "}";
    std::string db = dir + (early ? "/on.db" : "/off.db");
    std::remove(db.c_str());
    auto r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} --db {} -q", file, db));
    REQUIRE(r.status == 0);
    auto e = gpuvp::test::run_gpuvp(fmt::format("campaign export {} --csv -", db));
    REQUIRE(e.status == 0);
    return e.out;
  };
  // Columns: ...,outcome(13),due_kind(14),detail(15),end_ps(16),kernel_cycles(17),early_stop(18),...
  auto rows = [](const std::string& csv) {
    std::vector<std::vector<std::string>> v;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      v.push_back(fi::test::split_csv(line));  // an SDC's detail holds commas (quoted)
    }
    return v;
  };
  auto on = rows(campaign(true)), off = rows(campaign(false));
  REQUIRE(on.size() == 150);
  REQUIRE(off.size() == 150);
  int early = 0;
  for (size_t i = 0; i < on.size(); ++i) {
    INFO("fault " << i);
    CHECK(on[i][13] == off[i][13]);
    CHECK(on[i][14] == off[i][14]);
    if (on[i][13] != "sdc" && on[i][13] != "due" && on[i][13] != "timeout") {
      CHECK(on[i][16] == off[i][16]);  // end of the kernel: the golden one for an early stop
      CHECK(on[i][17] == off[i][17]);
    }
    early += on[i][18] == "1";
    CHECK(off[i][18] == "0");
  }
  CHECK(early > 0);
  WARN(early << " of 150 runs stopped early");
}
