#pragma once
// Absolute byte addresses of the platform's memories. Every address in the platform is absolute:
// the host bus routes by these ranges, SM pointers are global memory addresses, instruction
// addresses are system memory addresses, ld.const addresses are constant memory addresses.
#include <cstdint>

namespace gpuvp::amap {
constexpr uint64_t kGlobalBase = 0x1000'0000ull;        // nothing below: a null pointer is an error
constexpr uint64_t kSystemBase = 0x4'0000'0000ull;
constexpr uint64_t kConstBase = 0x6'0000'0000ull;
constexpr uint64_t kConfigBase = 0x7'0000'0000ull;      // configuration block, 64 x 32-bit registers
}  // namespace gpuvp::amap
