#pragma once
// The library's own messages to the program's stderr. A program may have closed or redirected it to a
// full device: a message that cannot be written is dropped, never an exception (fmt::print throws),
// which in an exit handler would abort the program and lose its status.
#include <fmt/format.h>

#include <cstdio>

namespace gpuvp::cudart {

template <typename... A>
void say(fmt::format_string<A...> f, A&&... a) noexcept {
  try {
    const std::string s = fmt::format(f, std::forward<A>(a)...);
    std::fwrite(s.data(), 1, s.size(), stderr);
  } catch (...) {  // out of memory formatting: the message is lost, the program is not
  }
}

}  // namespace gpuvp::cudart
