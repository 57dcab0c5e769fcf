// Instruction classes: the same split the latency classes of the handlers use (exec_*.cc), so an
// instruction that waits lat.sfu is counted as sfu and occupies a special function unit.
#include "models/sm/inst_class.h"

namespace gpuvp {

using isa::DType;
using isa::Opcode;
using isa::Space;

const char* inst_class_name(InstClass c) {
  static const char* const kNames[] = {"int",    "fp32",  "fp64",   "sfu",     "move",    "global",     "const", "param",
                                       "shared", "local", "atomic", "control", "barrier", "warp_level", "other"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(InstClass::Count));
  return kNames[size_t(c)];
}

const char* stall_reason_name(StallReason r) {
  static const char* const kNames[] = {"no_warp",   "fetch",  "pending_load", "dependency",
                                       "unit_busy", "barrier", "memory_port", "nanosleep"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(StallReason::Count));
  return kNames[size_t(r)];
}

namespace sm {

namespace {
bool is_float_type(DType t) { return t == DType::F16 || t == DType::F32 || t == DType::F64; }

InstKind memory_kind(const isa::Inst& in) {
  if (in.op == Opcode::Atom || in.op == Opcode::Red) return {InstClass::Atomic, UnitClass::Ldst};
  switch (in.mod.space) {
    case Space::Const: return {InstClass::Const, UnitClass::Ldst};
    case Space::Param: return {InstClass::Param, UnitClass::Ldst};
    case Space::Shared: return {InstClass::Shared, UnitClass::Ldst};
    case Space::Local: return {InstClass::Local, UnitClass::Ldst};
    default: return {InstClass::Global, UnitClass::Ldst};  // global and generic addresses
  }
}

// Arithmetic by type: fp64 on the fp64 units, other floats and integers on the lanes (a conversion
// with an fp64 side is fp64, as on the hardware).
InstKind arith_kind(const isa::Inst& in) {
  if (in.type == DType::F64 || (in.op == Opcode::Cvt && in.type2 == DType::F64)) return {InstClass::Fp64, UnitClass::Fp64};
  if (is_float_type(in.type) || (in.op == Opcode::Cvt && is_float_type(in.type2))) return {InstClass::Fp32, UnitClass::Lanes};
  return {InstClass::Int, UnitClass::Lanes};
}
}  // namespace

InstKind classify(const isa::Inst& in) {
  switch (in.op) {
    case Opcode::Ld: case Opcode::St: case Opcode::Atom: case Opcode::Red: return memory_kind(in);
    case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Rcp: case Opcode::Sin: case Opcode::Cos:
    case Opcode::Ex2: case Opcode::Lg2: case Opcode::Tanh: case Opcode::Div: case Opcode::Rem:
      return {InstClass::Sfu, UnitClass::Sfu};
    case Opcode::Mov: case Opcode::Cvta: return {InstClass::Move, UnitClass::Lanes};
    case Opcode::Bra: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap:
    case Opcode::Nanosleep:
      return {InstClass::Control, UnitClass::None};
    case Opcode::Bar: case Opcode::BarRed: case Opcode::BarWarp: case Opcode::Membar:
      return {InstClass::Barrier, UnitClass::None};
    case Opcode::Shfl: case Opcode::Vote: case Opcode::Match: case Opcode::Activemask:
      return {InstClass::WarpLevel, UnitClass::Lanes};
    case Opcode::Nop: case Opcode::Vprintf: return {InstClass::Other, UnitClass::None};
    default: return arith_kind(in);
  }
}

namespace {
// How many leading operands are destinations (isa.h documents each opcode's operand order).
unsigned dest_operands(const isa::Inst& in) {
  switch (in.op) {
    case Opcode::Nop: case Opcode::St: case Opcode::Red: case Opcode::Bar: case Opcode::BarWarp:
    case Opcode::Membar: case Opcode::Bra: case Opcode::Call: case Opcode::Ret: case Opcode::Exit:
    case Opcode::Trap: case Opcode::Nanosleep: case Opcode::Vprintf:
      return 0;
    case Opcode::Ld: return in.vec;
    case Opcode::Setp: case Opcode::Shfl: case Opcode::Match: return 2;  // d and an optional second p
    case Opcode::Mov: return (in.mod.flags & isa::kUnpack) ? unsigned(in.nops) - 1 : 1;
    default: return 1;
  }
}
}  // namespace

RegAccesses reg_accesses(const isa::Inst& in) {
  RegAccesses r;
  const unsigned dests = dest_operands(in);
  for (unsigned i = 0; i < in.nops; ++i) {
    const isa::Operand& o = in.ops[i];
    if (o.kind == isa::OpKind::Mem && o.reg != isa::kNoReg) ++r.reads;
    else if (o.kind == isa::OpKind::Reg) ++(i < dests ? r.writes : r.reads);
  }
  return r;
}

power::ActivityLog::InstEvents power_events(const isa::Inst& in, InstClass cls) {
  const RegAccesses r = reg_accesses(in);
  return {unit_event(cls), r.reads, r.writes,
          cls == InstClass::Shared || cls == InstClass::Param || cls == InstClass::Local};
}

}  // namespace sm

}  // namespace gpuvp
