#pragma once
#include <string>

namespace gpuvp {
// The configuration reference (docs/configuration.md) generated from the schema and the presets,
// so the document cannot drift from the code (a test compares them).
std::string config_reference_markdown();
}  // namespace gpuvp
