#pragma once
// PTX assembler: lays out registers, memories and code of a parsed module and encodes it into an
// Image (docs/isa-encoding.md describes the register-slot model and the memory layouts).
#include <string>
#include <vector>

#include "sw/ptx/image.h"
#include "sw/ptx/parser.h"
#include "sw/ptx/schedule.h"

namespace gpuvp::ptx {

// Throws ParseError (file:line:column of the offending instruction) for what cannot be laid out:
// too many register/predicate slots, frames beyond 2 GiB, inconsistent dynamic shared memory use.
Image assemble(const Module& parsed, const Layout& layout);

// parse(), reschedule() (Schedule::Nvcc keeps the PTX's order) and assemble().
Image assemble_text(const std::string& text, const std::string& source_name, const Layout& layout,
                    Schedule schedule = Schedule::Nvcc);

// A kernel's definition in a PTX text: its name and bytes [begin, end), from its linkage directive to
// the '}' closing its body.
struct EntrySpan {
  std::string name;
  size_t begin = 0, end = 0;
};

// The .entry definitions of `text`, in order, found from its tokens alone (the text need not parse).
// Throws ParseError only for what cannot be split into tokens (an unterminated comment or string).
std::vector<EntrySpan> entry_spans(const std::string& text);

// `text` with `spans` blanked, their line breaks kept: the rest assembles without them and its messages
// keep their line numbers.
std::string without_spans(const std::string& text, const std::vector<EntrySpan>& spans);

}  // namespace gpuvp::ptx
