#include "platform/config/json_text.h"

#include "platform/config/config.h"
#include "platform/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace gpuvp {

namespace {
// Line and column (1-based) of the byte at `i`.
TextPos position(const std::string& text, size_t i) {
  const size_t line_start = text.rfind('\n', i);
  const size_t line = size_t(std::count(text.begin(), text.begin() + long(i), '\n')) + 1;
  return TextPos{line, line_start == std::string::npos ? i + 1 : i - line_start};
}
}  // namespace

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
      if (++depth > kMaxJsonDepth) return position(text, i);
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

std::string json_syntax_error(const nlohmann::json::exception& e, const std::string& origin, const std::string& text) {
  // nlohmann's messages: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ...",
  // "[json.exception.out_of_range.406] number overflow parsing '1e400'".
  const std::string what = e.what();
  const size_t at = what.find("at line "), quote = what.find("parsing '");
  TextPos pos{0, 0};
  const auto after = [&](const char* sep, size_t from) {
    const size_t i = what.find(sep, from);
    return i == std::string::npos ? what : what.substr(i + 2);
  };
  std::string why = after("] ", 0);
  if (at != std::string::npos && std::sscanf(what.c_str() + at, "at line %zu, column %zu", &pos.line, &pos.column) == 2) {
    why = after(": ", at);
  } else if (quote != std::string::npos && what.back() == '\'') {
    const size_t i = text.find(what.substr(quote + 9, what.size() - quote - 10));
    if (i != std::string::npos) pos = position(text, i);
  }
  if (pos.line == 0) return fmt::format("{}: not valid JSON: {}", origin, why);
  return fmt::format("{}:{}:{}: not valid JSON: {}", origin, pos.line, pos.column, why);
}

std::string json_shown(const nlohmann::json& v) {
  std::string s = json_dump(v);
  return s.size() <= 80 ? s : cut_utf8(s, 77) + "...";
}

nlohmann::json parse_user_json(const std::string& text, const std::string& origin, bool comments) {
  if (std::string deep = json_depth_error(text, origin); !deep.empty()) throw ConfigError(deep);
  try {
    return nlohmann::json::parse(text, nullptr, true, comments);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(json_syntax_error(e, origin, text));
  }
}

std::string unknown_key_error(const nlohmann::json& obj, std::initializer_list<const char*> known,
                              const std::string& where) {
  if (!obj.is_object()) return "";
  for (auto& item : obj.items()) {
    if (std::any_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; })) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    const std::string key = item.key().size() <= 80 ? item.key() : cut_utf8(item.key(), 77) + "...";
    return fmt::format("{}{}unknown key '{}' (known: {})", where, where.empty() ? "" : ": ", key, list);
  }
  return "";
}

std::string json_dump(const nlohmann::json& v, int indent) {
  return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_dump_ascii(const nlohmann::json& v, int indent) {
  std::string s = v.dump(indent, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (char c : s) out += c == '\x7f' ? std::string("\\u007f") : std::string(1, c);  // DEL is ASCII, not printable
  return out;
}

}  // namespace gpuvp
