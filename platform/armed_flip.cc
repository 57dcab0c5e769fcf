#include "platform/armed_flip.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <systemc>

namespace gpuvp {

namespace {

uint64_t number(const std::string& text, const std::string& s, int base, const char* what) {
  if (s.empty() || s[0] == '-' || s[0] == '+' || s[0] == ' ')
    throw std::invalid_argument(fmt::format("'{}': {} '{}' is not a number", text, what, s));
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, base);
  if (*end || errno == ERANGE) throw std::invalid_argument(fmt::format("'{}': {} '{}' is not a number", text, what, s));
  return v;
}

}  // namespace

std::string to_text(const ArmedFlip& f) {
  return fmt::format("{}[{}]^{:#x}@{}", f.target, f.index, f.mask, f.time_ps);
}

ArmedFlip parse_armed_flip(const std::string& text) {
  const size_t at = text.rfind('@'), caret = text.rfind('^'), open = text.rfind('[');
  if (at == std::string::npos || caret == std::string::npos || open == std::string::npos || !(open < caret && caret < at) ||
      text[caret - 1] != ']' || open == 0)
    throw std::invalid_argument(fmt::format("'{}': expected TARGET[INDEX]^0xMASK@TIME_PS", text));
  ArmedFlip f;
  f.target = text.substr(0, open);
  f.index = number(text, text.substr(open + 1, caret - 1 - open - 1), 10, "index");
  f.mask = number(text, text.substr(caret + 1, at - caret - 1), 0, "mask");
  f.time_ps = number(text, text.substr(at + 1), 10, "instant");
  if (f.mask == 0) throw std::invalid_argument(fmt::format("'{}': the mask is 0 (no bit to flip)", text));
  return f;
}

void check_armed_flip(Platform& p, const ArmedFlip& f) {
  Registry& reg = p.registry();
  if (!reg.contains(f.target)) throw std::invalid_argument(fmt::format("no target '{}' in the registry", f.target));
  const Target& t = reg.at(f.target);
  if (f.index >= t.count)
    throw std::invalid_argument(fmt::format("{}: word {} beyond its {} words", f.target, f.index, t.count));
  if (t.width < 64 && (f.mask >> t.width) != 0)
    throw std::invalid_argument(fmt::format("{}: mask {:#x} has bits beyond its width {}", f.target, f.mask, t.width));
}

ArmedFlipState strike_at_instant(Platform& p, const ArmedFlip& f) {
  ArmedFlipState state;
  if (!p.advance_to(f.time_ps)) return state;
  Registry& reg = p.registry();
  state.before = reg.read(f.target, f.index);
  state.after = state.before ^ f.mask;
  reg.write(f.target, state.after, f.index);
  state.struck = true;
  return state;
}

}  // namespace gpuvp
