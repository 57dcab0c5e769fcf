// Text on its way to JSON, SQLite and terminals (platform/text.h): valid UTF-8, cut on character
// boundaries, no control characters for a terminal. Expected bytes worked out by hand from the UTF-8
// encoding rules.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "platform/config/json_text.h"
#include "platform/text.h"

using gpuvp::cut_utf8;
using gpuvp::terminal_safe;
using gpuvp::utf8_boundary;
using gpuvp::valid_utf8;

TEST_CASE("text: valid UTF-8 passes unchanged and every other byte is escaped") {
  const std::string ok = "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80";  // é (2 bytes), 漢 (3), 😀 (4)
  CHECK(valid_utf8(ok) == ok);
  CHECK(valid_utf8("caf\xe9") == "caf\\xe9");                  // Latin-1 é
  CHECK(valid_utf8("\xe6\xbc") == "\\xe6\\xbc");                // 漢 cut short
  CHECK(valid_utf8("\xc0\xaf") == "\\xc0\\xaf");                // overlong '/'
  CHECK(valid_utf8("\xed\xa0\x80") == "\\xed\\xa0\\x80");       // a UTF-16 surrogate
  CHECK(valid_utf8("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  CHECK(valid_utf8("\x80x") == "\\x80x");                       // a stray continuation byte
  // What nlohmann's encoder throws on, it now takes.
  CHECK_NOTHROW(nlohmann::json(valid_utf8("caf\xe9")).dump());
}

TEST_CASE("text: truncation ends on a character boundary") {
  const std::string han = "\xe6\xbc\xa2\xe6\xbc\xa2";  // 漢漢: 6 bytes
  CHECK(cut_utf8(han, 6) == han);
  CHECK(cut_utf8(han, 5) == "\xe6\xbc\xa2");
  CHECK(cut_utf8(han, 4) == "\xe6\xbc\xa2");
  CHECK(cut_utf8(han, 3) == "\xe6\xbc\xa2");
  CHECK(cut_utf8(han, 2) == "");
  CHECK(utf8_boundary(han, 4) == 3);
  CHECK(utf8_boundary(han, 99) == 6);
  // A path of 405 three-byte characters (1215 bytes) cut at 1000 bytes keeps 333 of them (999 bytes).
  std::string path;
  while (path.size() < 1217) path += "\xe8\xb7\xaf";
  path.resize(1217 - 1217 % 3);
  const std::string cut = cut_utf8(path, 1000);
  CHECK(cut.size() == 999);
  CHECK(valid_utf8(cut) == cut);
  // json_shown cuts long values at 77 bytes, never inside a character.
  const std::string shown = gpuvp::json_shown(nlohmann::json(path));
  CHECK(valid_utf8(shown) == shown);
}

TEST_CASE("text: a terminal gets no control characters, newlines and tabs aside") {
  CHECK(terminal_safe("a\tb\nc") == "a\tb\nc");
  CHECK(terminal_safe("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07");  // would set the window title
  CHECK(terminal_safe("\x1b[31mred") == "\\x1b[31mred");
  CHECK(terminal_safe(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(terminal_safe("\r\x7f") == "\\x0d\\x7f");
  CHECK(terminal_safe("\xc2\x9b" "31m") == "\\x9b31m");        // C1 CSI, U+009B
  CHECK(terminal_safe("\xe2\x80\xae" "txt") == "\\u{202e}txt");  // right-to-left override
  CHECK(terminal_safe("caf\xe9") == "caf\\xe9");
  CHECK(terminal_safe("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(terminal_safe("a\xe2\x80\xa8" "b") == "a\\u{2028}b");  // line separator
}
