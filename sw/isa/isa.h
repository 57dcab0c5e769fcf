#pragma once
// The decoded form of one gpuvp instruction: what the PTX assembler encodes into the binary words
// that live in system memory, and what an SM's decoder hands to its SIMT core. The binary encoding
// itself (encoding.h, docs/isa-encoding.md) is a serialisation of this struct.
//
// Registers: every PTX virtual register of a kernel is given a 64-bit slot (0..num_regs-1) in the
// thread's register file; every predicate register a predicate slot (0..num_preds-1), held by the
// SM as one lane bitmask per warp. A value narrower than 64 bits is stored zero-extended; the
// instruction's type says how to read it.
#include <cstdint>

namespace gpuvp::isa {

enum class Opcode : uint8_t {
  Nop,
  // data movement
  Mov,      // mov d, a | pack: mov.b64 d, {a,b[,c,d]} (flag Pack) | unpack: mov.b64 {d0,d1[,..]}, a (flag Unpack)
  Ld,       // ld.space.type d / {d0..dN-1}, [addr]; ops[0..vec-1] dests, ops[vec] Mem
  St,       // st.space.type [addr], a / {a0..}; ops[0] Mem, ops[1..vec] sources
  Cvta,     // cvta[.to].space d, a  (mod.space; flag ToSpace)
  Cvt,      // cvt.rnd.dtype.atype d, a (type = dtype, type2 = atype)
  // integer / float arithmetic
  Add, Sub, Mul, Mad, Mul24, Mad24, Fma, Div, Rem, Abs, Neg, Min, Max, Sad,
  Sqrt, Rsqrt, Rcp, Sin, Cos, Ex2, Lg2, Tanh, Copysign, Testp,
  // logic, bits
  And, Or, Xor, Not, Cnot, Lop3, Shl, Shr, Shf, Popc, Clz, Brev, Bfe, Bfi, Bfind, Prmt,
  // compare / select
  Setp,     // setp.cmp[.bool].type p[|q], a, b[, c]: ops[0] p, ops[1] q (None if absent), ops[2] a, ops[3] b, ops[4] c
  Set,      // set.cmp[.bool].dtype.stype d, a, b[, c] (type = dtype, type2 = stype)
  Selp,     // selp.type d, a, b, p
  Slct,     // slct.dtype.stype d, a, b, c (type2 = type of c: s32 or f32)
  // memory ordering, atomics, warp-level
  Atom,     // atom.space.op.type d, [addr], b[, c]: ops[0] d, ops[1] Mem, ops[2] b, ops[3] c (cas)
  Red,      // red.space.op.type [addr], b: ops[0] Mem, ops[1] b
  Bar,      // bar.sync / barrier.sync a[, b]: ops[0] barrier id, ops[1] thread count (None = all)
  BarWarp,  // bar.warp.sync mask
  Membar,   // membar.level / fence.*: mod.level
  Shfl,     // shfl.sync.mode.b32 d[|p], a, b, c, membermask: ops[0] d, ops[1] p (None), ops[2] a, ops[3] b, ops[4] c, ops[5] mask
  Vote,     // vote.sync.mode.type d, a, membermask: ops[0] d (pred or b32), ops[1] a (pred, may be negated), ops[2] mask
  Activemask,  // activemask.b32 d
  // control
  Bra,      // bra[.uni] target: ops[0] Target (absolute code address)
  Call,     // call[.uni] (ret), func, (args): ops[0] Target (callee entry); push return address, jump.
            // Argument/result copies are separate ld/st.local the assembler emits around it. Call of
            // a recursive function: ops[1] Mem, the end of its frame on the call stack (checked, the
            // return address stored in its last 8 bytes)
  Ret,      // no operands: pop the return address; ops[0] Mem: read it from local memory there
  Exit, Trap, Nanosleep,  // nanosleep.u32 a
  // Appended after the first encoding version, so the opcodes above keep their numbers.
  // Carry chain (PTX CC.CF): the carry is a predicate slot the assembler reserves per function,
  // always the last operand (docs/isa-encoding.md, "Carry flag"). add.cc/sub.cc/mad.cc are
  // Add/Sub/Mad with kCc (carry out only); these read it (and write it with kCc).
  Addc,     // addc[.cc].type d, a, b: ops[0] d, ops[1] a, ops[2] b, ops[3] carry
  Subc,     // subc[.cc].type d, a, b (borrow): ops[0] d, ops[1] a, ops[2] b, ops[3] carry
  Madc,     // madc.{lo,hi}[.cc].type d, a, b, c: ops[0] d, ops[1] a, ops[2] b, ops[3] c, ops[4] carry
  BarRed,   // bar.red.popc.u32 d / bar.red.{and,or}.pred p, a[, b], {!}c: ops[0] d, ops[1] barrier id,
            // ops[2] thread count (None = all), ops[3] c (pred, may be negated); and/or in mod.boolop
  Match,    // match.{any,all}.sync.{b32,b64} d[|p], a, membermask: ops[0] d, ops[1] p (None), ops[2] a,
            // ops[3] mask; mod.vote Any/All
  Vabsdiff4,  // vabsdiff4.dtype.atype.btype[.sat|.add] d, a, b, c (type = dtype, type2 = atype = btype;
              // .add: mod.atom = Add)
  Vprintf,  // a call of CUDA's extern vprintf (device printf): ops[0] Mem, the caller's 4-byte result
            // variable (None: no result), ops[1] Mem the format pointer's, ops[2] Mem the argument
            // buffer pointer's 8-byte variables; all per-thread local offsets (docs/isa-encoding.md)
  Count
};

enum class DType : uint8_t {
  None, Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64
};

inline unsigned bits_of(DType t) {
  switch (t) {
    case DType::Pred: return 1;
    case DType::B8: case DType::U8: case DType::S8: return 8;
    case DType::B16: case DType::U16: case DType::S16: case DType::F16: return 16;
    case DType::B32: case DType::U32: case DType::S32: case DType::F32: return 32;
    case DType::B64: case DType::U64: case DType::S64: case DType::F64: return 64;
    default: return 0;
  }
}
inline bool is_signed(DType t) { return t == DType::S8 || t == DType::S16 || t == DType::S32 || t == DType::S64; }
inline bool is_float(DType t) { return t == DType::F16 || t == DType::F32 || t == DType::F64; }

enum class Space : uint8_t { Generic, Global, Shared, Const, Param, Local };

enum class Cmp : uint8_t {
  None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs,      // integer (lo/ls/hi/hs unsigned) and ordered float
  Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan              // unordered float
};
enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
enum class AtomOp : uint8_t { None, Add, Min, Max, And, Or, Xor, Exch, Cas, Inc, Dec };
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class MemLevel : uint8_t { None, Cta, Gl, Sys };
enum class TestpMode : uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class PrmtMode : uint8_t { None, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };

// Boolean modifiers.
enum Flag : uint16_t {
  kSat = 1 << 0,
  kFtz = 1 << 1,
  kApprox = 1 << 2,
  kFull = 1 << 3,
  kUni = 1 << 4,        // bra.uni / call.uni: the assembler promises no divergence
  kNc = 1 << 5,         // ld.global.nc
  kVolatile = 1 << 6,
  kToSpace = 1 << 7,    // cvta.to.space (generic -> space); without it space -> generic
  kPack = 1 << 8,       // mov.b64 d, {a, b}
  kUnpack = 1 << 9,     // mov.b64 {a, b}, d
  kShfLeft = 1 << 10,   // shf.l (else shf.r)
  kShfWrap = 1 << 11,   // shf.*.wrap (else clamp)
  kShiftAmt = 1 << 12,  // bfind.shiftamt
  kCc = 1 << 13,        // .cc: the instruction writes the carry flag (add.cc, addc.cc, mad.lo.cc...)
  kRelaxed = 1 << 14,   // ld.relaxed / atom.relaxed etc.: no effect on a single-issue model
};

enum class SReg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, SmId, NSmId, Clock, ClockHi, Clock64, GlobalTimer, GlobalTimerLo,
  GlobalTimerHi, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe, DynamicSmemSize,
  TotalSmemSize, GridId, Count
};

enum class OpKind : uint8_t {
  None,
  Reg,     // reg = register slot
  Pred,    // reg = predicate slot; neg = logical not (!%p)
  Imm,     // imm = value bits (integers sign-/zero-extended to 64 bits; f32 immediates as their
           //       32-bit IEEE pattern, f64 as 64-bit pattern)
  SReg,    // reg = SReg id
  Mem,     // address: (reg == kNoReg ? 0 : R[reg]) + imm; symbols are resolved by the assembler
  Target,  // imm = absolute code address (system memory byte address)
  Sink,    // "_": a destination whose value is discarded
};

constexpr uint16_t kNoReg = 0xFFFF;
constexpr int kMaxOps = 6;

struct Operand {
  OpKind kind = OpKind::None;
  bool neg = false;
  uint16_t reg = kNoReg;
  int64_t imm = 0;
};

struct Mods {
  Space space = Space::Generic;
  Cmp cmp = Cmp::None;
  BoolOp boolop = BoolOp::None;
  Round round = Round::None;
  MulMode mul = MulMode::None;
  AtomOp atom = AtomOp::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  MemLevel level = MemLevel::None;
  TestpMode testp = TestpMode::None;
  PrmtMode prmt = PrmtMode::None;
  uint16_t flags = 0;
};

struct Inst {
  Opcode op = Opcode::Nop;
  DType type = DType::None;   // the instruction's main type (destination type for cvt/set/slct)
  DType type2 = DType::None;  // second type where PTX has one (cvt source, set/slct source, mul.wide source is `type`)
  uint8_t vec = 1;            // 1, 2 or 4 for ld/st .v2/.v4 (and the element count of pack/unpack)
  uint8_t nops = 0;
  int16_t guard = -1;         // predicate slot guarding the instruction, -1 = always
  bool guard_neg = false;     // @!%p
  Mods mod;
  Operand ops[kMaxOps];
  uint32_t size = 0;          // encoded size in bytes (next PC = this PC + size)
  // Source position of the PTX this came from (for error reports); 0 when unknown.
  uint32_t line = 0;
};

// Generic address space map (documented in docs/isa-encoding.md). Global memory and system
// memory are physical addresses below 2^40. Shared and local memory are visible to generic
// loads/stores through windows; cvta converts between the window and the space's own offsets.
constexpr uint64_t kSharedWindowBase = 0x0000'1000'0000'0000ull;
constexpr uint64_t kSharedWindowSize = 0x0000'0001'0000'0000ull;
constexpr uint64_t kLocalWindowBase = 0x0000'2000'0000'0000ull;
constexpr uint64_t kLocalWindowSize = 0x0000'0001'0000'0000ull;

}  // namespace gpuvp::isa
