// Where a PTX text's kernels are, read from its tokens only (the text need not parse): a module the
// assembler refuses can be assembled without the kernels it refuses (assembler.h).
#include "sw/ptx/assembler.h"
#include "sw/ptx/lexer.h"

namespace gpuvp::ptx {

namespace {

using detail::T;
using detail::Tok;

bool is(const Tok& t, const char* s) { return t.k != T::End && t.k != T::Str && t.s == s; }

// The '}' closing the body that starts at or after t[j]; 0 for a declaration (';' before any '{') or
// an unbalanced body.
size_t body_end(const std::vector<Tok>& t, size_t j) {
  while (t[j].k != T::End && !is(t[j], "{") && !is(t[j], ";")) ++j;
  if (!is(t[j], "{")) return 0;
  for (int depth = 0; t[j].k != T::End; ++j) {
    if (is(t[j], "{")) ++depth;
    if (is(t[j], "}") && --depth == 0) return j;
  }
  return 0;
}

}  // namespace

std::vector<EntrySpan> entry_spans(const std::string& text) {
  const std::vector<Tok> t = detail::lex(text, "");
  std::vector<EntrySpan> out;
  int depth = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    depth += int(is(t[i], "{")) - int(is(t[i], "}"));
    if (depth != 0 || !is(t[i], ".entry") || t[i + 1].k != T::Ident) continue;
    size_t b = i;  // the linkage directives before .entry belong to it
    while (b > 0 && (is(t[b - 1], ".visible") || is(t[b - 1], ".weak") || is(t[b - 1], ".extern"))) --b;
    const size_t e = body_end(t, i + 2);
    if (e == 0) continue;  // a declaration: no body to leave out
    out.push_back({t[i + 1].s, t[b].off, t[e].off + 1});
    i = e;
  }
  return out;
}

std::string without_spans(const std::string& text, const std::vector<EntrySpan>& spans) {
  std::string out = text;
  for (const EntrySpan& s : spans)
    for (size_t k = s.begin; k < s.end && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  return out;
}

}  // namespace gpuvp::ptx
