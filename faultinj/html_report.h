#pragma once
// The campaign report as one self-contained HTML page (no network: inline CSS, figures as inline
// SVG): configuration, AVF per class with 95 % Wilson intervals, per target and per structure tables,
// the fault profile over time on the golden run's scheduler phases, MTBF and FIT. Several stores are
// shown side by side, one column each. The figures are those of the text report (report.h).
#include <optional>
#include <string>
#include <vector>

#include "faultinj/store.h"

namespace gpuvp::fi {

std::string html_report(const std::vector<Store>& stores, std::optional<double> raw_fit_per_bit);

}  // namespace gpuvp::fi
