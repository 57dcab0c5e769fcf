#pragma once
// JSON the user writes (configuration files, --set values, launch files, campaign files) is parsed
// only after a scan of its nesting: nlohmann's DOM (its destructor, dump, our own walks) recurses
// once per level, so 30,000 nested objects overflow the stack. Deeper than kMaxJsonDepth is refused
// with the line and column of the first bracket too deep.
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

}  // namespace gpuvp
