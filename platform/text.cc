#include "platform/text.h"

#include <cstdint>

namespace gpuvp {

namespace {

// The length of the valid UTF-8 sequence at s[i] and its code point, or 0 when the byte there does not
// start one (stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF, cut short).
size_t utf8_at(std::string_view s, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const uint8_t c = b(0);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  size_t n = 0;
  uint32_t min = 0;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void escape_byte(std::string& out, uint8_t c) { out += fmt::format("\\x{:02x}", c); }

// Characters a terminal acts on rather than shows.
bool is_control(uint32_t cp) {
  return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

template <class Keep>
std::string filtered(std::string_view s, Keep keep) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = utf8_at(s, i, cp);
    if (n == 0) {
      escape_byte(out, static_cast<uint8_t>(s[i]));
      ++i;
      continue;
    }
    if (keep(cp)) out.append(s.substr(i, n));
    else if (cp < 0x100) escape_byte(out, static_cast<uint8_t>(cp));
    else out += fmt::format("\\u{{{:04x}}}", cp);
    i += n;
  }
  return out;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  return filtered(s, [](uint32_t) { return true; });
}

size_t utf8_boundary(std::string_view s, size_t pos) {
  if (pos >= s.size()) return s.size();
  while (pos > 0 && (static_cast<uint8_t>(s[pos]) & 0xC0) == 0x80) --pos;  // s[pos] continues a character
  return pos;
}

std::string cut_utf8(std::string_view s, size_t max_bytes) {
  std::string v = valid_utf8(s);
  v.resize(utf8_boundary(v, max_bytes));
  return v;
}

std::string terminal_safe(std::string_view s) {
  return filtered(s, [](uint32_t cp) { return !is_control(cp); });
}

}  // namespace gpuvp
