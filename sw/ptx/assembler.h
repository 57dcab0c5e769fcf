#pragma once
// PTX assembler: lays out registers, memories and code of a parsed module and encodes it into an
// Image (docs/isa-encoding.md describes the register-slot model and the memory layouts).
#include <string>

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

}  // namespace gpuvp::ptx
