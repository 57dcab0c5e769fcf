#pragma once
// Device printf's formatting (CUDA's vprintf, docs/sm.md "Device printf"): a C printf format and
// the argument buffer nvcc packs for it (each argument aligned to its size: int-sized conversions
// 4 bytes, l/ll integers, doubles (floats promoted), strings and pointers 8). Free of the SM so it
// can be tested against the host's snprintf.
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpuvp::sm {

// Where the formatter reads what the format refers to. A read that fails has reported its error
// and returns false; formatting stops there.
class PrintfSource {
 public:
  virtual ~PrintfSource() = default;
  // `size` (4 or 8) bytes at byte offset `off` of the argument buffer, little-endian.
  virtual bool arg(uint64_t off, unsigned size, uint64_t& value) = 0;
  // The NUL-terminated string at device address `addr` (a %s argument), without the NUL.
  virtual bool string(uint64_t addr, std::string& s) = 0;
};

// Formats `fmt` into `out`; `nargs` is the number of arguments the conversions took (CUDA's return
// value). %% prints %, a conversion gpuvp does not know (or `*` widths) is printed as written and
// takes no argument, a null %s prints "(null)". False when a read of the source failed.
bool format_printf(const std::string& fmt, PrintfSource& src, std::string& out, int& nargs);
// The same with the text bounded to `max_bytes` (the printf FIFO's size): text beyond it is never
// made; `cut` says it would have been longer. Arguments are still read and counted.
bool format_printf(const std::string& fmt, PrintfSource& src, std::string& out, int& nargs, size_t max_bytes,
                   bool& cut);

}  // namespace gpuvp::sm
