#pragma once
// A bounds-checked little-endian view of untrusted bytes: every read names what it reads, and one
// past the end is a FatbinError instead of a read outside the buffer.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "sw/fatbin/fatbin.h"

namespace gpuvp::fatbin {

// Throws unless [off, off + len) lies inside `size` bytes (overflow-safe), naming the field.
inline void need_range(const std::string& what, const std::string& field, uint64_t off, uint64_t len, uint64_t size) {
  if (off > size || len > size - off)
    throw FatbinError(fmt::format("{}: {} at offset {:#x} ({} bytes) reaches past the end ({:#x} bytes)", what, field,
                                  off, len, size));
}

class Bytes {
 public:
  Bytes(const void* data, size_t size, std::string what)
      : p_(static_cast<const uint8_t*>(data)), n_(size), what_(std::move(what)) {}

  size_t size() const { return n_; }
  const std::string& what() const { return what_; }

  void need(uint64_t off, uint64_t len, const std::string& field) const { need_range(what_, field, off, len, n_); }
  uint64_t le(uint64_t off, unsigned width, const std::string& field) const {
    need(off, width, field);
    uint64_t v = 0;
    for (unsigned i = width; i-- > 0;) v = (v << 8) | p_[off + i];
    return v;
  }
  uint16_t u16(uint64_t off, const std::string& field) const { return uint16_t(le(off, 2, field)); }
  uint32_t u32(uint64_t off, const std::string& field) const { return uint32_t(le(off, 4, field)); }
  uint64_t u64(uint64_t off, const std::string& field) const { return le(off, 8, field); }
  std::string str(uint64_t off, uint64_t len, const std::string& field) const {
    need(off, len, field);
    return std::string(reinterpret_cast<const char*>(p_ + off), size_t(len));
  }
  uint8_t at(uint64_t off) const { return uint8_t(le(off, 1, "byte")); }
  // The bytes [off, off + len) as a view of their own, named `what` in its messages.
  Bytes sub(uint64_t off, uint64_t len, const std::string& field, std::string what) const {
    need(off, len, field);
    return Bytes(p_ + off, size_t(len), std::move(what));
  }

 private:
  const uint8_t* p_;
  size_t n_;
  std::string what_;
};

}  // namespace gpuvp::fatbin
