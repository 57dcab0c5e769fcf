#include "models/memory/atomic_extension.h"

#include <cstring>

namespace gpuvp {

namespace {
template <typename T>
T as(uint64_t v) {
  T t;
  std::memcpy(&t, &v, sizeof(T));
  return t;
}
template <typename T>
uint64_t bits(T t) {
  uint64_t v = 0;
  std::memcpy(&v, &t, sizeof(T));
  return v;
}

template <typename T>
uint64_t apply_int(isa::AtomOp op, T old, T b, T c) {
  using isa::AtomOp;
  switch (op) {
    case AtomOp::Add: return bits<T>(T(old + b));
    case AtomOp::Min: return bits<T>(b < old ? b : old);
    case AtomOp::Max: return bits<T>(b > old ? b : old);
    case AtomOp::And: return bits<T>(T(old & b));
    case AtomOp::Or: return bits<T>(T(old | b));
    case AtomOp::Xor: return bits<T>(T(old ^ b));
    case AtomOp::Exch: return bits<T>(b);
    case AtomOp::Cas: return bits<T>(old == b ? c : old);
    // PTX: inc/dec wrap at b, unsigned: ((old >= b) ? 0 : old+1), (((old == 0) | (old > b)) ? b : old-1)
    case AtomOp::Inc: return bits<T>(old >= b ? T(0) : T(old + 1));
    case AtomOp::Dec: return bits<T>((old == 0 || old > b) ? b : T(old - 1));
    default: return bits<T>(old);
  }
}
}  // namespace

uint64_t apply_atomic(isa::AtomOp op, isa::DType type, uint64_t old, uint64_t b, uint64_t c) {
  using isa::DType;
  switch (type) {
    case DType::F32:
      if (op == isa::AtomOp::Add) return bits<float>(as<float>(old) + as<float>(b));
      return apply_int<uint32_t>(op, uint32_t(old), uint32_t(b), uint32_t(c));
    case DType::F64:
      if (op == isa::AtomOp::Add) return bits<double>(as<double>(old) + as<double>(b));
      return apply_int<uint64_t>(op, old, b, c);
    case DType::S32: return apply_int<int32_t>(op, int32_t(old), int32_t(b), int32_t(c)) & 0xFFFFFFFFull;
    case DType::S64: return apply_int<int64_t>(op, int64_t(old), int64_t(b), int64_t(c));
    case DType::U64: case DType::B64: return apply_int<uint64_t>(op, old, b, c);
    default: return apply_int<uint32_t>(op, uint32_t(old), uint32_t(b), uint32_t(c));
  }
}

}  // namespace gpuvp
