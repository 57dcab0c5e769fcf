#pragma once
// Binary encoding of gpuvp instructions (docs/isa-encoding.md): a serialisation of isa::Inst into
// little-endian 32-bit words. The assembler encodes, the SM decodes what it fetched from memory.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sw/isa/isa.h"

namespace gpuvp::isa {

// Appends the encoding of `inst` to `out`; sets nothing in inst (inst.size is computed by encoded_size).
void encode(const isa::Inst& inst, std::vector<uint8_t>& out);
size_t encoded_size(const isa::Inst& inst);

// Decodes the instruction starting at bytes[0] (at most `avail` bytes readable). Returns false for a
// word that is not a valid instruction (bad opcode, operand kind, register index, truncated), with
// a reason in *why. Fills out.size. Never reads beyond avail.
bool decode(const uint8_t* bytes, size_t avail, isa::Inst& out, std::string* why);

// Bytes of the first word, enough to learn the instruction's size.
constexpr size_t kHeaderBytes = 8;
// Total size from a header (0 if the header is invalid).
size_t size_from_header(const uint8_t* header);

}  // namespace gpuvp::isa
