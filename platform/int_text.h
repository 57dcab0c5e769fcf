#pragma once
// Integers the user writes (exec arguments, launch files, CLI options) are decimal or 0x
// hexadecimal, exactly, with every bit of 64. strtoull's base 0 and CLI11's own conversion read
// a leading zero as octal (010 is 8) and wrap -1 to 2^64 - 1; everything the user types goes
// through this one reader instead.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace gpuvp {

struct IntText {
  bool neg = false;
  uint64_t mag = 0;
};

// Optional sign, then decimal digits or 0x and hexadecimal digits. Returns nullptr and sets `out`,
// or the reason the text is not such an integer ("is not an integer", "is out of the range of 64-bit
// integers").
const char* parse_int_text(const std::string& text, IntText& out);

// An integer in a JSON value, exactly: a JSON integer, an integral JSON number up to 2^53 (2.0, 1e3),
// or a string parse_int_text reads. Returns nullptr and sets `out`, or the reason it is not one.
const char* parse_json_int(const nlohmann::json& v, IntText& out);

}  // namespace gpuvp
