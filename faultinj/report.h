#pragma once
// The text report of a campaign, from its store alone.
#include <optional>
#include <string>

#include "faultinj/store.h"

namespace gpuvp::fi {

// Campaign name and configuration, golden figures, runs done / total, counts and AVF with 95 %
// Wilson intervals per outcome class (DUE by kind), per target and per structure, the study's MTBF
// for SDCs (exec time = the golden execution window) and, given a raw upset rate in FIT per bit,
// FIT and MTBF for SDCs and DUEs over the golden run's state bits.
std::string text_report(const Store& store, std::optional<double> raw_fit_per_bit);

}  // namespace gpuvp::fi
