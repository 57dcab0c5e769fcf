#pragma once
// SystemC elaborates one platform per process: a study runs each platform in a forked child that
// sends its result (or its error) back through a pipe as JSON (wear and aging studies).
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuvp {

// f() in a forked child, its JSON result returned; std::runtime_error "`what` failed: why" when it
// threw or the child ended abnormally.
nlohmann::json json_in_child(const std::function<nlohmann::json()>& f, const std::string& what);

}  // namespace gpuvp
