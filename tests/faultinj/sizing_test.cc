// Sizing: Leveugle's sample size, checked against values worked by hand.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "faultinj/sizing.h"

using namespace gpuvp::fi;

TEST_CASE("sizing: Leveugle sample size for a large population") {
  // t^2 p (1-p) = 3.8416 * 0.25 = 0.9604; e^2 (N-1) = 99.9999; 1 + 99.9999 / 0.9604 = 105.12318;
  // 1e6 / 105.12318 = 9512.6 -> 9513.
  CHECK(leveugle_sample_size(1e6, 0.01, 1.96) == 9513);
  // N = 1000, e = 5 %: 1 + 0.0025 * 999 / 0.9604 = 3.60048; 1000 / 3.60048 = 277.7 -> 278.
  CHECK(leveugle_sample_size(1000, 0.05, 1.96) == 278);
}

TEST_CASE("sizing: small populations are nearly or wholly sampled") {
  // 1 + 1e-4 * 99 / 0.9604 = 1.010308; 100 / 1.010308 = 98.98 -> 99.
  CHECK(leveugle_sample_size(100, 0.01, 1.96) == 99);
  CHECK(leveugle_sample_size(1, 0.01, 1.96) == 1);
  CHECK(leveugle_sample_size(0, 0.01, 1.96) == 0);
}

TEST_CASE("sizing: p other than one half needs fewer faults") {
  // p = 0.1: t^2 p (1-p) = 3.8416 * 0.09 = 0.345744; 1 + 99.9999 / 0.345744 = 290.2311;
  // 1e6 / 290.2311 = 3445.5 -> 3446.
  CHECK(leveugle_sample_size(1e6, 0.01, 1.96, 0.1) == 3446);
}

TEST_CASE("sizing: bad arguments and confidence quantiles") {
  CHECK_THROWS_AS(leveugle_sample_size(100, 0, 1.96), std::invalid_argument);
  CHECK_THROWS_AS(leveugle_sample_size(100, 0.01, 1.96, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(leveugle_sample_size(-1, 0.01, 1.96), std::invalid_argument);
  CHECK(t_for_confidence(0.90) == 1.645);
  CHECK(t_for_confidence(0.95) == 1.96);
  CHECK(t_for_confidence(0.99) == 2.576);
  CHECK_THROWS_AS(t_for_confidence(0.8), std::invalid_argument);
}

TEST_CASE("sizing: a sample too large for 64 bits is refused") {
  CHECK_THROWS_AS(leveugle_sample_size(1e30, 1e-12, 1.96), std::overflow_error);
}
