#pragma once
// JSON the user writes (configuration files, --set values, launch files, campaign files) is parsed
// only after a scan of its nesting: nlohmann's DOM (its destructor, dump, our own walks) recurses
// once per level, so 30,000 nested objects overflow the stack. Deeper than kMaxJsonDepth is refused
// with the line and column of the first bracket too deep.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace gpuvp {

constexpr int kMaxJsonDepth = 64;

struct TextPos {
  size_t line = 1, column = 1;
};

// Where the bracket that goes deeper than kMaxJsonDepth is (outside strings and // or /* */
// comments), or nothing.
std::optional<TextPos> json_too_deep(const std::string& text);

// "ORIGIN:LINE:COLUMN: nested deeper than 64 levels" when `text` is too deep, else "".
std::string json_depth_error(const std::string& text, const std::string& origin);

// "ORIGIN:LINE:COLUMN: not valid JSON: WHY" for an exception of json::parse of `text`. A number beyond
// a double (1e400) comes without a position: it is that of the number's first occurrence.
std::string json_syntax_error(const nlohmann::json::exception& e, const std::string& origin, const std::string& text);

// A value as JSON for a message: cut to 80 characters (an input may hold megabytes), invalid UTF-8
// (possible in a document built in code) replaced.
std::string json_shown(const nlohmann::json& v);

}  // namespace gpuvp
