#include "platform/config/json_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuvp {

std::optional<TextPos> json_too_deep(const std::string& text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (ch == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = std::min(text.find('\n', i), text.size());
    } else if (ch == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = std::min(text.find("*/", i + 2), text.size()) + 1;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxJsonDepth) {
        const size_t line_start = text.rfind('\n', i);
        const size_t line = size_t(std::count(text.begin(), text.begin() + long(i), '\n')) + 1;
        return TextPos{line, line_start == std::string::npos ? i + 1 : i - line_start};
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

std::string json_depth_error(const std::string& text, const std::string& origin) {
  auto at = json_too_deep(text);
  if (!at) return "";
  return fmt::format("{}:{}:{}: nested deeper than {} levels", origin, at->line, at->column, kMaxJsonDepth);
}

}  // namespace gpuvp
