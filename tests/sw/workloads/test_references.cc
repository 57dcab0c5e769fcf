// CPU references and comparisons against small hand-worked examples.
#include <catch2/catch.hpp>

#include "sw/workloads/bfs.h"
#include "sw/workloads/conv3x3.h"
#include "sw/workloads/grayFilter.h"
#include "sw/workloads/histogram.h"
#include "sw/workloads/mandelbrot.h"
#include "sw/workloads/matVec.h"
#include "sw/workloads/matrixMul.h"
#include "sw/workloads/nearestNeighbour.h"
#include "sw/workloads/reduction.h"
#include "sw/workloads/scalarProd.h"
#include "sw/workloads/timerSpin.h"
#include "sw/workloads/vectorAdd.h"

using namespace gpuvp::wl;
using Catch::Matchers::Contains;

TEST_CASE("vectorAdd reference and check", "[workloads]") {
  vector_add::Inputs in{{1.0f, 2.5f, -3.0f}, {3.0f, -0.5f, 3.0f}};
  REQUIRE(vector_add::reference(in) == std::vector<double>{4.0, 2.0, 0.0});
  auto ok = vector_add::check(in, {4.0f, 2.0f, 0.0f});
  CHECK(ok.ok);
  CHECK(ok.mismatches == 0);
  CHECK(ok.output.size() == 3 * sizeof(float));
  CHECK(vector_add::check(in, {4.0f, 2.00001f, 0.0f}).ok);  // within 1e-5 relative
  auto bad = vector_add::check(in, {4.0f, 2.5f, 1.0f});
  CHECK_FALSE(bad.ok);
  CHECK(bad.mismatches == 2);
  CHECK_THAT(bad.message, Contains("c[1]") && Contains("got 2.5 expected 2"));
  CHECK_FALSE(vector_add::check(in, {4.0f, 2.0f}).ok);  // short output
}

TEST_CASE("scalarProd reference and tolerance", "[workloads]") {
  scalar_prod::Inputs in{2, 3, {1, 2, 3, 1, 0, -1}, {4, 5, 6, 1, 1, 1}};
  REQUIRE(scalar_prod::reference(in) == std::vector<double>{32.0, 0.0});
  CHECK(scalar_prod::check(in, {32.0f, 0.0f}).ok);
  // Tolerance is relative to sum |a_i b_i| (2 for the second pair), so a cancelling sum may be off by 2e-5.
  CHECK(scalar_prod::check(in, {32.0f, 1.5e-5f}).ok);
  auto bad = scalar_prod::check(in, {32.0f, 1e-3f});
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("C[1]"));
}

TEST_CASE("grayFilter reference by hand", "[workloads]") {
  CHECK(gray_filter::gray(255, 0, 0) == Approx(76.245));
  CHECK(gray_filter::gray(10, 20, 30) == Approx(18.15));  // 2.99 + 11.74 + 3.42
  CHECK(gray_filter::gray(255, 255, 255) == Approx(255.0));
  CHECK(gray_filter::gray(0, 0, 0) == 0.0);
  gray_filter::Inputs in{2, 1, {10, 0}, {20, 0}, {30, 1}};
  CHECK(gray_filter::check(in, {18.15f, 0.114f}).ok);
  auto bad = gray_filter::check(in, {18.15f, 0.115f});
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("gray[1]"));
}

TEST_CASE("nearestNeighbour reference by hand", "[workloads]") {
  CHECK(nearest_neighbour::distance(3, 4, 0, 0) == 5.0);
  nearest_neighbour::Inputs in{{3, 4, 1, 1, 7, 9}, 1, 1};
  REQUIRE(in.records() == 3);
  auto ref = nearest_neighbour::reference(in);
  CHECK(ref[0] == Approx(std::sqrt(13.0)));
  CHECK(ref[1] == 0.0);
  CHECK(ref[2] == 10.0);  // 6, 8
  CHECK(nearest_neighbour::check(in, {3.6055512f, 0.0f, 10.0f}).ok);
  CHECK_FALSE(nearest_neighbour::check(in, {3.6055512f, 0.0f, 10.01f}).ok);
}

TEST_CASE("timerSpin check", "[workloads]") {
  timer_spin::Inputs in{{1000, 1500}, 100};
  CHECK(timer_spin::check(in, {{100, 200}, {1100, 1800}, {0, 1}}, 2).ok);
  auto short_spin = timer_spin::check(in, {{100, 200}, {1099, 1800}, {0, 1}}, 2);
  CHECK_FALSE(short_spin.ok);
  CHECK_THAT(short_spin.message, Contains("block 0") && Contains("999"));
  CHECK_FALSE(timer_spin::check(in, {{100, 200}, {1100, 1800}, {0, 2}}, 2).ok);   // SM id out of range
  CHECK_FALSE(timer_spin::check(in, {{5000, 200}, {1100, 1800}, {0, 1}}, 2).ok);  // end before start
  CHECK(timer_spin::check(in, {{100, 200}, {1100, 1800}, {0, 1}}, 2).output.size() == 2 * 8 + 2 * 8 + 2 * 4);
}

TEST_CASE("timerSpin generator: spin times from the config", "[workloads]") {
  auto in = timer_spin::generate({"t", {{"blocks", 3}, {"spin_ns", 700}, {"sleep_ns", 50}}}, 1);
  CHECK(in.spin_ns == std::vector<uint64_t>{700, 700, 700});
  CHECK(in.sleep_ns == 50);
  auto j = timer_spin::generate({"t", {{"blocks", 50}, {"spin_ns", 700}, {"jitter_ns", 100}}}, 1);
  for (auto s : j.spin_ns) {
    CHECK(s >= 700);
    CHECK(s <= 800);
  }
}

TEST_CASE("reduction reference: grid-stride slices per block", "[workloads]") {
  reduction::Inputs in;
  in.blocks = 2;
  in.threads = 32;
  for (int i = 0; i < 128; ++i) in.in.push_back(float(i));
  // Block 0 owns 0..31 and 64..95, block 1 owns 32..63 and 96..127.
  REQUIRE(reduction::reference(in) == std::vector<double>{496 + 2544, 1520 + 3568});
  CHECK(reduction::check(in, {3040.0f, 5088.0f}).ok);
  auto bad = reduction::check(in, {3040.0f, 5088.5f});
  CHECK_FALSE(bad.ok);  // exact comparison
  CHECK_THAT(bad.message, Contains("out[1]"));
}

TEST_CASE("matrixMul reference by hand", "[workloads]") {
  matrix_mul::Inputs in{2, 2, 2, {1, 2, 3, 4}, {5, 6, 7, 8}};
  REQUIRE(matrix_mul::reference(in) == std::vector<double>{19, 22, 43, 50});
  CHECK(matrix_mul::check(in, {19, 22, 43, 50}).ok);
  matrix_mul::Inputs r{2, 3, 1, {1, 0, -1, 2, 2, 2}, {1, 2, 3}};  // (2x3) * (3x1)
  REQUIRE(matrix_mul::reference(r) == std::vector<double>{-2, 12});
  auto bad = matrix_mul::check(in, {19, 22, 43, 51});
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("C[3]") && Contains("got 51") && Contains("expected 50"));
}

TEST_CASE("histogram reference by hand", "[workloads]") {
  histogram::Inputs in{{0, 1, 1, 255, 255, 255}};
  auto bins = histogram::reference(in);
  REQUIRE(bins.size() == 256);
  CHECK(bins[0] == 1);
  CHECK(bins[1] == 2);
  CHECK(bins[255] == 3);
  CHECK(bins[2] == 0);
  CHECK(histogram::check(in, bins).ok);
  bins[7] = 1;
  auto bad = histogram::check(in, bins);
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("bins[7]: got 1 expected 0"));
}

TEST_CASE("mandelbrot iterations of known points", "[workloads]") {
  CHECK(mandelbrot::iterations(2.0f, 0.0f, 100) == 2);    // 0 -> 2 -> 6
  CHECK(mandelbrot::iterations(1.0f, 0.0f, 100) == 3);    // 0 -> 1 -> 2 -> 5
  CHECK(mandelbrot::iterations(0.5f, 0.0f, 100) == 5);    // .5, .75, 1.0625, 1.6289, 3.1533
  CHECK(mandelbrot::iterations(0.0f, 0.0f, 100) == 100);  // in the set
  CHECK(mandelbrot::iterations(-1.0f, 0.0f, 100) == 100); // period 2
  CHECK(mandelbrot::iterations(-2.0f, 0.0f, 100) == 100); // fixed at 2, |z|^2 = 4 is not > 4
  CHECK(mandelbrot::iterations(0.0f, 1.0f, 100) == 100);  // i -> -1+i -> -i -> ...
  CHECK(mandelbrot::iterations(2.0f, 0.0f, 1) == 1);      // capped
  mandelbrot::Inputs in{2, 1, 50, 1.0f, 0.0f, 1.0f, 1.0f};
  REQUIRE(mandelbrot::reference(in) == std::vector<int32_t>{3, 2});
  auto bad = mandelbrot::check(in, {3, 4});
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("out[1]: got 4 expected 2"));
}

TEST_CASE("bfs level steps on a 5-node graph by hand", "[workloads]") {
  // 0 - 1, 0 - 2, 1 - 3, 2 - 3, 3 - 4
  auto g = bfs::Graph::from_adjacency({{1, 2}, {0, 3}, {0, 3}, {1, 2, 4}, {3}});
  REQUIRE(g.nodes == std::vector<int32_t>{0, 2, 2, 2, 4, 2, 6, 3, 9, 1});
  auto s = bfs::initial(5, 0);
  bfs::step(g, s);
  CHECK(s.cost == std::vector<int32_t>{0, 1, 1, -1, -1});
  CHECK(s.updating == std::vector<uint8_t>{0, 1, 1, 0, 0});
  CHECK(s.mask == std::vector<uint8_t>{0, 0, 0, 0, 0});
  CHECK(bfs::update(s));
  CHECK(s.mask == std::vector<uint8_t>{0, 1, 1, 0, 0});
  CHECK(s.visited == std::vector<uint8_t>{1, 1, 1, 0, 0});
  bfs::Inputs in{g, s, 1};
  auto next = bfs::reference(in);  // one bfsStep from level 1
  CHECK(next.cost == std::vector<int32_t>{0, 1, 1, 2, -1});
  CHECK(next.updating == std::vector<uint8_t>{0, 0, 0, 1, 0});
  CHECK(next.mask == std::vector<uint8_t>{0, 0, 0, 0, 0});
  CHECK(bfs::check(in, next).ok);
  in.levels = 0;  // to the end
  auto full = bfs::reference(in);
  CHECK(full.cost == std::vector<int32_t>{0, 1, 1, 2, 3});
  CHECK(full.visited == std::vector<uint8_t>{1, 1, 1, 1, 1});
  auto wrong = next;
  wrong.cost[4] = 3;
  in.levels = 1;
  auto bad = bfs::check(in, wrong);
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("cost[4]: got 3 expected -1"));
}

TEST_CASE("matVec reference by hand", "[workloads]") {
  // A = [[1, 2], [3, 4]] column-major, x = (1, -1): y = (1 - 2, 3 - 4).
  mat_vec::Inputs in{2, 2, {1, 3, 2, 4}, {1, -1}};
  REQUIRE(mat_vec::reference(in) == std::vector<double>{-1, -1});
  CHECK(mat_vec::check(in, {-1, -1}).ok);
  auto bad = mat_vec::check(in, {-1, -0.5f});
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.message, Contains("y[1]") && Contains("expected -1"));
}

TEST_CASE("conv3x3 reference by hand", "[workloads]") {
  // A 2 x 1 image (3, 5) and the weights 0 except the centre row (1, 2, 4): clamped borders give
  // out(0) = 1*3 + 2*3 + 4*5 = 29 and out(1) = 1*3 + 2*5 + 4*5 = 33.
  conv3x3::Inputs in{2, 1, {3, 5}, {0, 0, 0, 1, 2, 4, 0, 0, 0}};
  REQUIRE(conv3x3::reference(in) == std::vector<double>{29, 33});
  CHECK(conv3x3::check(in, {29, 33}).ok);
  CHECK_FALSE(conv3x3::check(in, {29, 34}).ok);
}
