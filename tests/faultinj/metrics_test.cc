// Metrics: Wilson intervals, AVF tables, MTBF and FIT, against values worked by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include "faultinj/metrics.h"

using namespace gpuvp::fi;

TEST_CASE("metrics: Wilson interval") {
  // 5/10, z = 1.96: center 0.5, half = 1.96 sqrt(0.025 + 0.009604) / 1.38416 = 0.26341.
  Interval a = wilson(5, 10);
  CHECK(a.lo == Approx(0.2366).margin(1e-4));
  CHECK(a.hi == Approx(0.7634).margin(1e-4));
  // 0/10: center = half = 0.19208 / 1.38416 = 0.13877.
  Interval b = wilson(0, 10);
  CHECK(b.lo == 0.0);
  CHECK(b.hi == Approx(0.2775).margin(1e-4));
  Interval c = wilson(10, 10);
  CHECK(c.lo == Approx(0.7225).margin(1e-4));
  CHECK(c.hi == 1.0);
  Interval d = wilson(0, 0);
  CHECK(d.lo == 0.0);
  CHECK(d.hi == 1.0);
}

TEST_CASE("metrics: semantic structures group registered names across SMs") {
  const std::pair<const char*, const char*> known[] = {
      {"gpu.sm0.regs", "register file"},
      {"gpu.sm15.regs", "register file"},
      {"gpu.sm1.preds", "predicates"},
      {"gpu.sm0.warp[0].group_pc", "warp control"},
      {"gpu.sm3.warp[127].live", "warp control"},
      {"gpu.sm0.smem", "shared memory"},
      {"gpu.sm2.state", "SM control"},
      {"gpu.sm0.block_idx", "SM control"},
      {"gpu.sm0.l1d.tags", "L1 data caches"},
      {"gpu.sm7.l1d_data", "L1 data caches"},
      {"gpu.l2.tags", "L2 cache"},
      {"gpu.l2_data[3]", "L2 cache"},
      {"gpu.sched.num_blocks[3]", "block scheduler"},
      {"gpu.sched.state", "block scheduler"},
      {"gpu.arb_gmem_rd.grant", "arbiters"},
      {"gpu.arb_cfg.state", "arbiters"},
      {"gpu.cfg.param[0]", "configuration block"},
      {"gpu.gmem", "global memory"},
      {"gpu.cmem", "constant memory"},
      {"gpu.sysmem", "system memory"},
      {"bus:gpu.sm0.gmem_wr.data", "bus links"},
      {"top", "other"},
  };
  for (auto& [name, group] : known) {
    INFO(name);
    CHECK(structure_of(name) == group);
  }
}

TEST_CASE("metrics: AVF tables per class, target and structure") {
  std::vector<RunPoint> runs = {
      {"gpu.sched.state", Outcome::Masked, DueKind::None, "launch 0 (a)", "", ""},
      {"gpu.sched.state", Outcome::SDC, DueKind::None, "launch 1 (b)", "", ""},
      {"gpu.sched.num_blocks[0]", Outcome::SDC, DueKind::None, "launch 1 (b)", "", ""},
      {"gpu.sched.num_blocks[0]", Outcome::DUE, DueKind::Tlm, "", "", ""},
      {"gpu.sched.num_blocks[0]", Outcome::ToolError, DueKind::None, "launch 0 (a)", "fp32", ""},
      {"gpu.sched.num_blocks[1]", Outcome::Masked, DueKind::None, "launch 0 (a)", "int", "%r2"},
  };
  AvfTables t = avf_tables(runs);
  // Per kernel: every run, those without a launch under kNoLaunch; per class: instruction-output runs only.
  CHECK(t.per_kernel.size() == 3);
  CHECK(t.per_kernel.at("launch 0 (a)").runs == 3);
  CHECK(t.per_kernel.at("launch 0 (a)").injected() == 2);
  CHECK(t.per_kernel.at("launch 1 (b)").count(Outcome::SDC) == 2);
  CHECK(t.per_kernel.at(kNoLaunch).count(Outcome::DUE) == 1);
  CHECK(t.per_class.size() == 2);
  CHECK(t.per_class.at("fp32").count(Outcome::ToolError) == 1);
  // Per PTX register: register-file runs only (those naming one).
  CHECK(t.per_ptx_reg.size() == 1);
  CHECK(t.per_ptx_reg.at("%r2").runs == 1);
  CHECK(t.per_class.at("int").count(Outcome::Masked) == 1);
  CHECK(t.all.runs == 6);
  CHECK(t.all.injected() == 5);  // the tool error injected nothing
  CHECK(t.all.count(Outcome::SDC) == 2);
  CHECK(t.all.avf(Outcome::SDC) == Approx(0.4));
  CHECK(t.all.avf(Outcome::ToolError) == Approx(1.0 / 6));
  CHECK(t.all.by_due[static_cast<int>(DueKind::Tlm)] == 1);
  REQUIRE(t.per_target.size() == 3);
  CHECK(t.per_target.at("gpu.sched.num_blocks[0]").avf(Outcome::SDC) == Approx(0.5));
  REQUIRE(t.per_structure.size() == 1);  // all of it is the block scheduler
  const ClassCounts& sched = t.per_structure.at("block scheduler");
  CHECK(sched.runs == 6);
  CHECK(sched.injected() == 5);
  CHECK(sched.avf(Outcome::SDC) == Approx(0.4));
  // The interval of SDC overall is Wilson(2, 5).
  CHECK(t.all.ci(Outcome::SDC).lo == Approx(wilson(2, 5).lo));
}

TEST_CASE("metrics: an empty group divides by nothing") {
  ClassCounts none;
  CHECK(none.avf(Outcome::SDC) == 0.0);
  CHECK(none.ci(Outcome::SDC).hi == 1.0);
}

TEST_CASE("metrics: MTBF as the study defines it") {
  // cross section = 2 / 10 = 0.2, flux = 1 / 1e-3 s: MTBF = 1e-3 / 0.2 = 5e-3 s.
  CHECK(study_mtbf(2, 10, 1e-3) == Approx(5e-3));
  CHECK(std::isinf(study_mtbf(0, 10, 1e-3)));
  CHECK(format_number(study_mtbf(0, 10, 1e-3)) == "inf");
}

TEST_CASE("metrics: FIT and MTBF from a raw per-bit rate") {
  // 1e-4 FIT/bit x 1000 bits x AVF 0.2 = 0.02 FIT; MTBF = 1e9 / 0.02 = 5e10 h.
  CHECK(fit(1e-4, 1000, 0.2) == Approx(0.02));
  CHECK(mtbf_hours_of_fit(0.02) == Approx(5e10));
  CHECK(std::isinf(mtbf_hours_of_fit(0)));
  CHECK(format_number(0.25) == "0.25");
}
