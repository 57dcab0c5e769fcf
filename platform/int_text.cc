#include "platform/int_text.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>

namespace gpuvp {

namespace {

// Digits of `base` from `s`, all of them, without overflow; false if there are none or one is not a digit.
bool digits(const char* s, unsigned base, uint64_t& v, bool& overflow) {
  if (*s == '\0') return false;
  v = 0;
  overflow = false;
  for (; *s; ++s) {
    const int c = std::tolower(static_cast<unsigned char>(*s));
    unsigned d = std::isdigit(c) ? unsigned(c - '0') : (c >= 'a' && c <= 'f') ? unsigned(c - 'a' + 10) : 99;
    if (d >= base) return false;
    if (v > (~uint64_t{0} - d) / base) overflow = true;
    v = v * base + d;
  }
  return true;
}


}  // namespace

const char* parse_int_text(const std::string& text, IntText& out) {
  size_t i = 0;
  out = IntText{};
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) out.neg = text[i++] == '-';
  const bool hex = text.size() > i + 1 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X');
  bool overflow = false;
  if (!digits(text.c_str() + i + (hex ? 2 : 0), hex ? 16 : 10, out.mag, overflow)) return "is not an integer";
  if (overflow) return "is out of the range of 64-bit integers";
  return nullptr;
}

const char* parse_json_int(const nlohmann::json& v, IntText& out) {
  out = IntText{};
  if (v.is_number_unsigned()) {
    out.mag = v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    out = {x < 0, x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x)};
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::floor(d) != d) return "is not an integer";
    if (std::fabs(d) > 9007199254740992.0) return "is beyond exact integers in a JSON number (write it as a string)";
    out = {d < 0, static_cast<uint64_t>(std::fabs(d))};
  } else if (v.is_string()) {
    return parse_int_text(v.get_ref<const std::string&>(), out);
  } else {
    return "is not an integer";
  }
  return nullptr;
}

}  // namespace gpuvp
