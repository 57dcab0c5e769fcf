// The configuration block's register table is the one description: names, reset values and access
// agree with block-scheduler.md, and docs/config-block.md shows exactly this table.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "sw/isa/config_regs.h"

using namespace gpuvp;

TEST_CASE("config regs: FlexGripPlus reset values and names, unique indices") {
  // block-scheduler.md: blocks_per_core 1, num_gprs 0x0B, shmem_size 0x10, block 16x16x1, grid 3x1.
  CHECK(cfgreg::reset_value(cfgreg::kBlocksPerCore) == 1);
  CHECK(cfgreg::reset_value(cfgreg::kNumGprs) == 0x0B);
  CHECK(cfgreg::reset_value(cfgreg::kShmemSize) == 0x10);
  CHECK(cfgreg::reset_value(cfgreg::kBlockX) == 16);
  CHECK(cfgreg::reset_value(cfgreg::kBlockY) == 16);
  CHECK(cfgreg::reset_value(cfgreg::kBlockZ) == 1);
  CHECK(cfgreg::reset_value(cfgreg::kGridX) == 3);
  CHECK(cfgreg::reset_value(cfgreg::kGridY) == 1);
  CHECK(cfgreg::reset_value(cfgreg::kParamBase + 5) == 0);
  CHECK(cfgreg::name(cfgreg::kParamSize) == "param_size");
  CHECK(cfgreg::name(cfgreg::kParamBase + 3) == "param[3]");
  CHECK(cfgreg::name(25) == "reg[25]");
  CHECK(cfgreg::access(cfgreg::kStatus) == cfgreg::Access::ReadOnly);
  CHECK(cfgreg::access(cfgreg::kControl) == cfgreg::Access::Start);
  unsigned n = 0;
  const cfgreg::Field* f = cfgreg::fields(&n);
  std::set<unsigned> idx;
  std::set<std::string> names;
  for (unsigned i = 0; i < n; ++i) {
    CHECK(idx.insert(f[i].index).second);
    CHECK(names.insert(f[i].name).second);
    CHECK(f[i].index < cfgreg::kParamBase);
  }
}

TEST_CASE("config regs: docs/config-block.md holds the generated table") {
  std::ifstream in(std::string(GPUVP_TEST_DATA) + "/../../docs/config-block.md");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK_THAT(ss.str(), Catch::Matchers::Contains(cfgreg::reference_markdown()));
}
