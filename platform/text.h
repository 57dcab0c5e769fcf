#pragma once
// Text that came from a user or a store (names, paths, messages, kernel output) on its way to JSON,
// SQLite or a terminal. One place decides what such text may hold:
// - valid_utf8: JSON and SQLite get valid UTF-8 only (nlohmann's dump throws on anything else); a
//   byte that is not part of a valid UTF-8 sequence is written as the four characters \xNN, so a
//   Latin-1 path stays recognisable.
// - cut_utf8: every truncation ends on a character boundary.
// - terminal_safe: a terminal gets no control characters (an ESC in a campaign name would change
//   the title and colours of whoever reads the report): C0 controls but newline and tab, DEL, the C1
//   controls, the line and paragraph separators and the bidirectional overrides are written as \xNN or
//   \u{NNNN}.
#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace gpuvp {

std::string valid_utf8(std::string_view s);

// At most `max_bytes` of valid_utf8(s), cut before a character that would not fit whole.
std::string cut_utf8(std::string_view s, size_t max_bytes);

// The last character boundary at or before `pos` in valid UTF-8 text.
size_t utf8_boundary(std::string_view s, size_t pos);

std::string terminal_safe(std::string_view s);

// fmt::print to standard output or standard error, the formatted text made terminal_safe.
template <class... Args>
void print_out(fmt::format_string<Args...> f, Args&&... args) {
  std::fputs(terminal_safe(fmt::format(f, std::forward<Args>(args)...)).c_str(), stdout);
}
template <class... Args>
void print_err(fmt::format_string<Args...> f, Args&&... args) {
  std::fputs(terminal_safe(fmt::format(f, std::forward<Args>(args)...)).c_str(), stderr);
}

}  // namespace gpuvp
