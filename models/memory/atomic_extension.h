#pragma once
// TLM extension that turns a write transaction into an atomic read-modify-write performed by the
// memory target itself, so atomics stay atomic though reads and writes use separate arbiters.
// The data pointer holds the operand(s) on entry and the old value on return.
#include <tlm>

#include <cstdint>

#include "sw/isa/isa.h"

namespace gpuvp {

struct AtomicExtension : tlm::tlm_extension<AtomicExtension> {
  isa::AtomOp op = isa::AtomOp::None;
  isa::DType type = isa::DType::U32;  // 32 or 64 bits; F32/F64 for float add, S32/S64 for signed min/max
  uint64_t operand = 0;               // b
  uint64_t compare = 0;               // cas: compare value (b is the compare, c the new value in PTX)
  uint64_t old = 0;                   // result: the value before the operation

  tlm_extension_base* clone() const override { return new AtomicExtension(*this); }
  void copy_from(const tlm_extension_base& e) override { *this = static_cast<const AtomicExtension&>(e); }
};

// Applies op to `old` (the memory value) and returns the new memory value. Shared by the global
// memory target and the SMs' shared-memory atomics, so both follow PTX semantics identically.
uint64_t apply_atomic(isa::AtomOp op, isa::DType type, uint64_t old, uint64_t b, uint64_t c);

}  // namespace gpuvp
