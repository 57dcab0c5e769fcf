#pragma once
// How many faults a campaign injects: statistical fault injection sizing (Leveugle et al., DATE 2009).
#include <cstdint>

namespace gpuvp::fi {

// n = N / (1 + e^2 (N - 1) / (t^2 p (1 - p))), rounded up and capped at N: the sample size that
// estimates a proportion of a population of N faults within margin e at the confidence whose
// two-sided normal quantile is t. Throws std::invalid_argument unless e > 0, t > 0, 0 < p < 1, N >= 0,
// and std::overflow_error when the result does not fit in 64 bits.
uint64_t leveugle_sample_size(double population, double margin, double t, double p = 0.5);

// The two-sided normal quantile for a confidence of 0.90, 0.95 or 0.99 (1.645, 1.96, 2.576);
// throws std::invalid_argument for any other confidence.
double t_for_confidence(double confidence);

}  // namespace gpuvp::fi
