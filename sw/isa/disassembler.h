#pragma once
// PTX-like text of encoded gpuvp instructions (`gpuvp disasm`, traces, tests). Register slots print
// as %r<slot>, predicate slots as %p<slot>; symbols are shown as the resolved addresses/offsets.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sw/isa/isa.h"

namespace gpuvp::isa {

// One instruction, without address or newline, e.g. "@!%p1 ld.global.nc.v2.f32 {%r3, %r4}, [%r7+16];".
std::string disassemble(const isa::Inst& inst);

// `n` bytes of code placed at `base`: one "address:  text" line per instruction. Words that do not
// decode print as ".invalid <hex word>  // reason" and the listing resumes at the next word.
std::string disassemble(const uint8_t* code, size_t n, uint64_t base);

}  // namespace gpuvp::isa
