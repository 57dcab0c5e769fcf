// PTX lexer and token stream.
#include "sw/ptx/lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sw/ptx/parser.h"

namespace gpuvp::ptx::detail {

std::vector<Tok> lex(const std::string& src, const std::string& file) {
  std::vector<Tok> out;
  uint32_t line = 1;
  size_t ls = 0, i = 0, n = src.size();
  auto ident_start = [](char c) { return std::isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; };
  auto ident_char = [](char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; };
  while (i < n) {
    char c = src[i];
    if (c == '\n') { ++line; ls = ++i; continue; }
    if (std::isspace((unsigned char)c)) { ++i; continue; }
    if (c == '/' && i + 1 < n && src[i + 1] == '/') { while (i < n && src[i] != '\n') ++i; continue; }
    if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      size_t e = src.find("*/", i + 2);
      if (e == std::string::npos) throw ParseError(file, line, uint32_t(i - ls + 1), "unterminated comment", "");
      for (size_t j = i; j < e; ++j)
        if (src[j] == '\n') { ++line; ls = j + 1; }
      i = e + 2;
      continue;
    }
    Tok t;
    t.line = line;
    t.col = uint32_t(i - ls + 1);
    t.off = i;
    size_t b = i;
    if (ident_start(c)) {
      ++i;
      for (;;) {
        if (i < n && ident_char(src[i])) ++i;
        else if (i + 1 < n && src[i] == ':' && src[i + 1] == ':') i += 2;  // shared::cta, L1::no_allocate
        else break;
      }
      t.k = T::Ident;
    } else if (std::isdigit((unsigned char)c)) {
      ++i;
      while (i < n && (std::isalnum((unsigned char)src[i]) || src[i] == '.' ||
                       ((src[i] == '-' || src[i] == '+') && (src[i - 1] == 'e' || src[i - 1] == 'E') &&
                        src.compare(b, 2, "0x") && src.compare(b, 2, "0f") && src.compare(b, 2, "0d"))))
        ++i;
      t.k = T::Num;
    } else if (c == '"') {
      ++i;
      while (i < n && src[i] != '"' && src[i] != '\n') ++i;
      if (i >= n || src[i] != '"') throw ParseError(file, line, t.col, "unterminated string", "");
      ++i;
      t.k = T::Str;
    } else {
      ++i;
      t.k = T::Punct;
    }
    t.s = src.substr(b, i - b);
    out.push_back(std::move(t));
  }
  Tok e;
  e.line = line;
  e.col = uint32_t(i - ls + 1);
  e.off = n;
  out.push_back(e);
  return out;
}

bool parse_int(const std::string& s0, int64_t& v) {
  std::string s = s0;
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
  if (s.empty()) return false;
  int base = 10;
  size_t b = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, b = 2;
  else if (s.size() > 1 && s[0] == '0') base = 8, b = 1;
  uint64_t acc = 0;
  for (size_t j = b; j < s.size(); ++j) {
    int d = std::isdigit((unsigned char)s[j]) ? s[j] - '0'
            : std::isxdigit((unsigned char)s[j]) ? std::tolower(s[j]) - 'a' + 10 : 99;
    if (d >= base) return false;
    if (acc > (~uint64_t(0) - uint64_t(d)) / uint64_t(base)) return false;
    acc = acc * uint64_t(base) + uint64_t(d);
  }
  v = int64_t(acc);
  return true;
}

const Tok& TokenStream::peek(size_t k) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }

std::string TokenStream::stmt_text() const {
  size_t b = toks_[stmt_].off;
  size_t e = src_.find(';', b);
  size_t nl = src_.find('\n', b);
  if (e == std::string::npos || (nl != std::string::npos && nl < e && toks_[stmt_].s[0] == '.'))
    e = nl == std::string::npos ? src_.size() : nl;
  else
    ++e;
  std::string out;
  for (size_t j = b; j < e && j < src_.size(); ++j) {
    char c = src_[j];
    if (std::isspace((unsigned char)c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void TokenStream::err(const Tok& t, const std::string& msg) const {
  throw ParseError(file_, t.line, t.col, msg, stmt_text());
}

void TokenStream::expect(const char* s) {
  if (!accept(s)) err(cur(), cur().k == T::End ? fmt::format("expected '{}' before end of file", s)
                                               : fmt::format("expected '{}', got '{}'", s, cur().s));
}

std::string TokenStream::ident(const char* what) {
  if (cur().k != T::Ident || cur().s[0] == '.') err(cur(), fmt::format("expected {}, got '{}'", what, cur().s));
  return next().s;
}

uint64_t TokenStream::number(const char* what) {
  if (cur().k != T::Num) err(cur(), fmt::format("expected {}, got '{}'", what, cur().s));
  const Tok& t = next();
  int64_t v;
  if (!parse_int(t.s, v)) err(t, fmt::format("bad integer '{}'", t.s));
  return uint64_t(v);
}

}  // namespace gpuvp::ptx::detail
