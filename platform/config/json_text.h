#pragma once
// JSON the user writes (configuration files, --set values, launch files, campaign files) is parsed
// only after a scan of its nesting: nlohmann's DOM (its destructor, dump, our own walks) recurses
// once per level, so 30,000 nested objects overflow the stack. Deeper than kMaxJsonDepth is refused
// with the line and column of the first bracket too deep.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <initializer_list>
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

// The document of a file the user wrote (`origin` names it): nesting checked first, then parsed;
// ConfigError "ORIGIN:LINE:COLUMN: ..." when it is not JSON. Comments are allowed when asked for.
nlohmann::json parse_user_json(const std::string& text, const std::string& origin, bool comments = false);

// Every object a user writes (configuration, launch, campaign, experiment, kernel-set files) refuses keys
// it does not know, through this one check: "WHERE: unknown key 'K' (known: A, B, ...)" for the first
// key of `obj` not in `known`, else "". Callers throw it as their own error.
std::string unknown_key_error(const nlohmann::json& obj, std::initializer_list<const char*> known,
                              const std::string& where);

// A value as JSON for a message: cut to 80 characters (an input may hold megabytes), invalid UTF-8
// (possible in a document built in code) replaced.
std::string json_shown(const nlohmann::json& v);

// A document as text for a file, a pipe or a terminal: strings that are not valid UTF-8 (a --set value,
// a path, a message built in code) are replaced rather than thrown on (nlohmann's default).
std::string json_dump(const nlohmann::json& v, int indent = -1);

// The same for a terminal: every character outside printable ASCII escaped (\uXXXX), so the text is
// valid JSON and holds nothing a terminal acts on.
std::string json_dump_ascii(const nlohmann::json& v, int indent = -1);

}  // namespace gpuvp
