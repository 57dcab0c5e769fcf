// FlexGripPlus pipeline timing: stage occupancies per instruction and the packet recurrence.
// Cycle counts are those of the VHDL state machines (FlexGripPlus_4.4/RTL and the FlexGripPlus_P
// files it instantiates); docs/sm.md ("FlexGripPlus timing") names the file of each rule.
#include "models/sm/flexgrip_pipeline.h"

#include <algorithm>

#include "models/common/registry.h"

namespace gpuvp::sm {

using namespace isa;

namespace {

// Stage costs that do not depend on the instruction.
constexpr unsigned kSchedIssue = 2;      // warp_scheduler: issue state + GAP per packet
constexpr unsigned kFetchFixed = 2;      // pipeline_fetch: IDLE + STALL (lane 0 adds one cycle per word)
constexpr unsigned kDecodeCycles = 2;    // pipeline_decode: IDLE + STALL (decoding is combinational)
constexpr unsigned kCheckCycles = 2;     // warp_checker: IDLE + DONE
constexpr unsigned kReadOpsBase = 6;     // pipeline_read: READ_OPS + READ_OPS_WAIT + READ_OPS_DONE
constexpr unsigned kReadPreShort = 4;    // lane 0, 32-bit / immediate form: CALC_MASK .. CHECK_PRED_FLAGS
constexpr unsigned kReadPreLong = 8;     // lane 0, 64-bit form: + one predicate read (2) per lane group
constexpr unsigned kReadPreNext = 2;     // lanes >= 1: IDLE -> CHECK_PRED_FLAGS, mask reused
constexpr unsigned kRegOperand = 5;      // read_source_ops through the GPRS arbiter, per 32-bit register
constexpr unsigned kUniformBase = 6;     // shared/constant broadcast read: arbiter, controller, handshake
constexpr unsigned kWriteReg = 8;        // pipeline_write: WRITE_GPRS .. DONE
constexpr unsigned kWriteNone = 4;       // no destination
constexpr unsigned kWritePred = 3;       // COMPUTE_PRED_REGS + WRITE_PRED_REGS
// Global/shared gather (read stage) and scatter (write stage): fixed cycles around the per-thread
// loop (arbitration, effective address, done detection).
constexpr unsigned kGatherBefore = 9, kGatherAfter = 4;
constexpr unsigned kScatterBefore = 7, kScatterAfter = 6;

// Execute stage: combinational integer SPs (ALU_EXEC + ALU_DONE), moves, or the iterative FPU
// (its count_cycles + 10 of handshake). SFU, integer division and FP64 are not in the FlexGripPlus
// FPU: they take the reciprocal's time (docs/sm.md lists these estimates).
unsigned execute_cycles(const Inst& in) {
  constexpr unsigned kInt = 3, kMove = 2, kFAdd = 25, kFMul = 26, kFMad = 30, kFConv = 13, kFSet = 15, kSfu = 25;
  const bool f = is_float(in.type);
  switch (in.op) {
    case Opcode::Nop: case Opcode::Mov: case Opcode::Ld: case Opcode::St: case Opcode::Cvta:
    case Opcode::Bar: case Opcode::BarRed: case Opcode::BarWarp: case Opcode::Membar:
      return kMove;
    case Opcode::Cvt: return is_float(in.type) || is_float(in.type2) ? kFConv : kInt;
    case Opcode::Add: case Opcode::Sub: return f ? kFAdd : kInt;
    case Opcode::Mul: return f ? kFMul : kInt;
    case Opcode::Mad: case Opcode::Fma: return f ? kFMad : kInt;
    case Opcode::Abs: case Opcode::Neg: case Opcode::Min: case Opcode::Max: case Opcode::Copysign:
    case Opcode::Testp:
      return f ? kFConv : kInt;
    case Opcode::Setp: case Opcode::Set: return is_float(in.type2) || (in.op == Opcode::Setp && f) ? kFSet : kInt;
    case Opcode::Div: case Opcode::Rem: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Rcp: case Opcode::Sin:
    case Opcode::Cos: case Opcode::Ex2: case Opcode::Lg2: case Opcode::Tanh:
      return kSfu;
    default: return in.type == DType::F64 ? kSfu : kInt;
  }
}

// Index of the first source operand (the ones before it are destinations or the address).
int first_source(const Inst& in) {
  switch (in.op) {
    case Opcode::Ld: return in.vec + 1;  // the address is read by the gather (its fixed cycles)
    case Opcode::St: case Opcode::Red: return 1;
    case Opcode::Atom: return 2;
    case Opcode::Setp: case Opcode::Shfl: case Opcode::Match: return 2;
    case Opcode::BarRed: return 1;
    case Opcode::Bra: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap: case Opcode::Bar:
    case Opcode::BarWarp: case Opcode::Nanosleep: case Opcode::Membar: case Opcode::Nop:
      return 0;
    default: return 1;
  }
}

bool header_sreg(SReg r) {  // block and grid dimensions and the block index live in the block header
  return r >= SReg::NtidX && r <= SReg::NctaidZ;
}

// Is the memory operand a broadcast read of one word for every lane (parameters, s[imm], c[imm])?
bool uniform_access(const Inst& in, const Operand& mo) {
  if (in.mod.space == Space::Param) return true;
  return mo.reg == kNoReg && (in.mod.space == Space::Shared || in.mod.space == Space::Const);
}

int mem_operand(const Inst& in) {
  switch (in.op) {
    case Opcode::Ld: return in.vec;
    case Opcode::St: case Opcode::Red: return 0;
    case Opcode::Atom: return 1;
    default: return -1;
  }
}

unsigned data_words(const Inst& in) { return std::max(1u, bits_of(in.type) * in.vec / 32); }

// Read-operand phase beyond its base: register reads are serialised through one arbiter; a uniform
// shared/constant read runs in parallel with them on its own arbiter.
unsigned operand_cycles(const Inst& in) {
  unsigned regs = 0, uniform = 0;
  for (int i = first_source(in); i < in.nops; ++i) {
    const Operand& o = in.ops[i];
    if (o.kind == OpKind::Reg) regs += kRegOperand + (bits_of(in.type) > 32 ? 1 : 0);
    else if (o.kind == OpKind::Pred) regs += kRegOperand;
    else if (o.kind == OpKind::SReg && header_sreg(SReg(o.reg))) uniform = std::max(uniform, kUniformBase + 2);
    else if (o.kind == OpKind::SReg) regs += kRegOperand;  // R0 (packed thread id) and the like
  }
  int mi = mem_operand(in);
  if (mi >= 0 && uniform_access(in, in.ops[mi])) uniform = std::max(uniform, kUniformBase + 4 * data_words(in));
  return std::max(regs, uniform);
}

bool has_immediate(const Inst& in) {
  for (int i = first_source(in); i < in.nops; ++i)
    if (in.ops[i].kind == OpKind::Imm) return true;
  return false;
}

bool writes_predicate(const Inst& in) { return in.op == Opcode::Setp; }

// G80 "half" instructions (32 bits): an unguarded ALU operation on registers, one destination.
unsigned instruction_words(const Inst& in) {
  if (in.guard >= 0 || mem_operand(in) >= 0 || first_source(in) != 1 || writes_predicate(in)) return 2;
  if (in.nops > 3 || bits_of(in.type) > 32) return 2;
  for (int i = 0; i < in.nops; ++i)
    if (in.ops[i].kind != OpKind::Reg) return 2;
  return 1;
}

unsigned write_cycles(const Inst& in) {
  if (writes_predicate(in)) return kWriteNone + kWritePred;
  const int srcs = first_source(in);
  bool reg_dst = false;
  for (int i = 0; i < srcs && i < in.nops; ++i) reg_dst |= in.ops[i].kind == OpKind::Reg;
  if (in.op == Opcode::St || in.op == Opcode::Red || !reg_dst) return kWriteNone;
  unsigned bits = bits_of(in.type) * (in.op == Opcode::Ld ? in.vec : 1);
  return kWriteReg + (bits > 32 ? bits / 32 - 1 : bits < 32 ? 2 : 0);
}

bool folds(const Inst& in) {
  if (in.op == Opcode::Cvta) return true;
  if (in.op == Opcode::Ld && in.mod.space == Space::Param && in.ops[in.vec].reg == kNoReg) return true;
  return in.op == Opcode::Mov && in.nops == 2 && in.ops[1].kind == OpKind::SReg && header_sreg(SReg(in.ops[1].reg));
}

}  // namespace

FgCosts flexgrip_costs(const Inst& in, unsigned packets, bool fold_operands) {
  FgCosts c;
  c.folded = fold_operands && folds(in);
  c.words = instruction_words(in);
  const bool control = first_source(in) == 0 && in.op != Opcode::Nop;
  const bool short_pre = c.words == 1 || has_immediate(in) || (control && in.guard < 0);
  const unsigned ops = kReadOpsBase + operand_cycles(in);
  for (FgPacket* p : {&c.first, &c.rest}) {
    p->o[kSched] = kSchedIssue;
    p->o[kFetch] = kFetchFixed;
    p->o[kDecode] = kDecodeCycles;
    p->o[kRead] = (p == &c.first ? (short_pre ? kReadPreShort : kReadPreLong + 2 * packets) : kReadPreNext) + ops;
    p->o[kExecute] = execute_cycles(in);
    p->o[kWrite] = write_cycles(in);
    p->o[kCheck] = kCheckCycles;
  }
  c.first.o[kFetch] += c.words;
  int mi = mem_operand(in);
  if (mi >= 0 && !uniform_access(in, in.ops[mi])) {
    const bool gather = in.op == Opcode::Ld || in.op == Opcode::Atom;
    c.mem_stage = gather ? kRead : kWrite;
    c.mem_words = data_words(in);
    for (FgPacket* p : {&c.first, &c.rest}) {
      unsigned before = gather ? p->o[kRead] + kGatherBefore : kScatterBefore;
      p->o[c.mem_stage] = before + (gather ? kGatherAfter : kScatterAfter);
      p->mem_before = before;
    }
  }
  return c;
}

uint64_t flexgrip_setup_cycles(unsigned blocks, unsigned threads_per_block, unsigned param_words, unsigned warps) {
  // streaming_multiprocessor_cntlr: IDLE, then per block the block ids (2), the 16-byte header one byte
  // per cycle, each parameter word read and written byte by byte (6), R0 of each thread (3) and the
  // block's end (2); three cycles to move to the warp generator, which writes each warp's pool
  // entry (3) plus one per block and three to finish; two to hand over to the warp scheduler.
  const uint64_t per_block = 2 + 16 + 6ull * param_words + 1 + 3ull * threads_per_block + 2;
  return 1 + blocks * per_block + 3 + (1 + 3ull * warps + blocks + 2) + 2;
}

void FlexgripPipeline::reset(uint64_t t) { std::fill(std::begin(free_), std::end(free_), t); }

uint64_t FlexgripPipeline::start(Cursor& c) {
  const unsigned s = c.next;
  uint64_t at = std::max(c.t, free_[s]);
  if (s > 0) free_[s - 1] = at + 1;  // the stage before held the packet until this one took it
  c.t = at;
  return at;
}

void FlexgripPipeline::finish(Cursor& c, uint64_t end) {
  c.t = end;
  if (++c.next == kFgStages) free_[kFgStages - 1] = end + 1;
}

void FlexgripPipeline::run(Cursor& c, const FgPacket& p, unsigned until) {
  while (c.next < until) {
    const unsigned s = c.next;
    finish(c, start(c) + p.o[s]);
  }
}

uint64_t FlexgripPipeline::hash(uint64_t h) const {
  for (unsigned s = 0; s < kFgStages; ++s) h = word_digest(h + s, free_[s] + 1) ^ (h << 1);
  return h;
}

}  // namespace gpuvp::sm
