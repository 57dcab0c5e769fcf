#pragma once
// PTX lexer and token stream (internal to sw/ptx): splits PTX text into tokens, and gives the
// parser stages cursor helpers and the "file:line:column: message: statement" error format.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp::ptx::detail {

enum class T { Ident, Num, Str, Punct, End };
struct Tok {
  T k = T::End;
  std::string s;
  uint32_t line = 0, col = 0;
  size_t off = 0;
};

// Tokens of src, ending with one T::End token. Throws ParseError (unterminated comment/string).
std::vector<Tok> lex(const std::string& src, const std::string& file);

// A PTX integer literal (decimal, 0x hex, 0 octal, optional U suffix) as 64 bits; false when
// malformed or out of range.
bool parse_int(const std::string& s0, int64_t& v);

// Cursor over the tokens of one source; the parser stages derive from it.
class TokenStream {
 public:
  TokenStream(const std::string& src, const std::string& file) : src_(src), file_(file), toks_(lex(src, file)) {}

 protected:
  const std::string& src_;
  std::string file_;
  std::vector<Tok> toks_;
  size_t p_ = 0;
  size_t stmt_ = 0;  // first token of the current statement, for messages

  const Tok& cur() const { return toks_[p_]; }
  const Tok& peek(size_t k = 1) const;
  bool at(const char* s) const { return cur().k != T::End && cur().k != T::Str && cur().s == s; }
  bool accept(const char* s) {
    if (!at(s)) return false;
    ++p_;
    return true;
  }
  const Tok& next() {
    const Tok& t = toks_[p_];
    if (t.k != T::End) ++p_;
    return t;
  }
  // The current statement's source text, whitespace collapsed (directives: up to the line end).
  std::string stmt_text() const;
  [[noreturn]] void err(const Tok& t, const std::string& msg) const;
  void expect(const char* s);
  std::string ident(const char* what);
  uint64_t number(const char* what);
};

}  // namespace gpuvp::ptx::detail
