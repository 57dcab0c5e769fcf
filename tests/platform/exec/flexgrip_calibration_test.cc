// The flexgrip preset against the FlexGripPlus RTL (tests/data/calibration/flexgrip_vectoradd.csv):
// vectorAdd, 64 threads per block, 1..16 SMs at 8, 16 and 32 blocks. The speed-up from 1 SM must be
// within 10 % of the soft GPU's and the 1-SM times within 15 % (docs/validation.md;
// scripts/flexgrip-calibration prints the table).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "../../common/subprocess.h"

namespace {

struct Point {
  unsigned sms, blocks;
  double rtl_cycles;  // 100 MHz: ns / 10
};

std::vector<Point> rtl_table() {
  std::ifstream in(std::string(GPUVP_TEST_DATA) + "/calibration/flexgrip_vectoradd.csv");
  REQUIRE(in);
  std::vector<Point> v;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == 's') continue;
    unsigned s = 0, b = 0;
    double ns = 0;
    char c1 = 0, c2 = 0;
    std::istringstream f(line);
    REQUIRE((f >> s >> c1 >> b >> c2 >> ns));
    v.push_back({s, b, ns / 10});
  }
  return v;
}

double gpuvp_cycles(unsigned sms, unsigned blocks) {
  const unsigned n = blocks * 64;
  auto r = gpuvp::test::run_gpuvp(fmt::format(
      "exec --preset flexgrip --set sm.count={} --ptx {}/../../sw/kernels/vectorAdd.ptx --kernel vectorAdd --grid {} "
      "--block 64 --arg buf:f32:{}:rand=1 --arg buf:f32:{}:rand=2 --arg buf:f32:{} --arg u32:{}",
      sms, GPUVP_TEST_DATA, blocks, n, n, n, n));
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(": ([0-9]+) cycles")));
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("flexgrip calibration: speed-ups from 1 SM within 10 % of the FlexGripPlus RTL, 1-SM times within 15 %") {
  const std::vector<Point> table = rtl_table();
  REQUIRE(table.size() == 15);
  std::map<unsigned, std::pair<double, double>> one_sm;  // blocks -> (RTL, gpuvp) cycles on 1 SM
  for (const Point& p : table)
    if (p.sms == 1) one_sm[p.blocks] = {p.rtl_cycles, gpuvp_cycles(1, p.blocks)};
  for (auto& [blocks, t] : one_sm) {
    INFO(blocks << " blocks on 1 SM: RTL " << t.first << " cycles, gpuvp " << t.second);
    CHECK(std::abs(t.second / t.first - 1) <= 0.15);
  }
  for (const Point& p : table) {
    if (p.sms == 1) continue;
    const auto& [rtl1, sim1] = one_sm.at(p.blocks);
    const double sim = gpuvp_cycles(p.sms, p.blocks);
    const double rtl_speedup = rtl1 / p.rtl_cycles, sim_speedup = sim1 / sim;
    INFO(p.sms << " SMs, " << p.blocks << " blocks: RTL speed-up " << rtl_speedup << ", gpuvp " << sim_speedup);
    CHECK(std::abs(sim_speedup / rtl_speedup - 1) <= 0.10);
  }
}
