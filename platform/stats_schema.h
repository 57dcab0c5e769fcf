#pragma once
// The fields of the statistics schema (docs/statistics.md), for checking paths into statistics files.
#include <nlohmann/json.hpp>

namespace gpuvp {

// A statistics document holding every field of the schema once, for checking a path into statistics
// before anything runs (gpuvp sweep's metrics): one SM with one scheduler and each kind of cache, one
// launch that ran on it, one arbiter, an L2, and the fields saying what ran of every command. What
// varies in shape with the configuration or the command (`config`, exec's `launch`, the energy and
// wear sections) is null: a path is checked up to it.
nlohmann::json stats_skeleton();

}  // namespace gpuvp
