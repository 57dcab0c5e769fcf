// Binary instruction encoding, version 1 (layout tables in docs/isa-encoding.md).
//
//   w0: [3:0] magic 0xB  [11:4] opcode  [16:12] type  [21:17] type2  [23:22] vec code (0:1 1:2 2:4)
//       [26:24] nops  [31:27] total size in words
//   w1: [15:0] flags  [16] guarded  [17] guard_neg  [28:18] guard slot  [31:29] prmt mode
//   w2: [2:0] space  [7:3] cmp  [9:8] boolop  [13:10] round  [15:14] mul  [19:16] atom
//       [22:20] shfl  [25:23] vote  [27:26] level  [30:28] testp  [31] reserved (0)
//   then per operand a descriptor word
//       [3:0] kind  [4] neg  [6:5] imm form (0: imm = 0, 1: one word sign-extended, 2: two words)
//       [15:7] reserved (0)  [31:16] reg
//   followed by its 0, 1 or 2 immediate words (low word first).
// w0..w1 (kHeaderBytes) are enough to learn the size; the magic nibble, reserved bits, enum
// ranges and the size cross-check make random words fail to decode with high probability.
#include "sw/isa/encoding.h"

#include <fmt/format.h>

namespace gpuvp::isa {
namespace {

constexpr uint32_t kMagic = 0xB;
constexpr unsigned kHeaderWords = 3;
constexpr unsigned kMaxGuard = (1u << 11) - 1;

uint32_t rd32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
void wr32(std::vector<uint8_t>& out, uint32_t w) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(w >> (8 * i)));
}
uint32_t field(uint32_t w, unsigned lo, unsigned bits) { return (w >> lo) & ((1u << bits) - 1); }

// Immediate form: 0 none, 1 fits a sign-extended 32-bit word, 2 needs two words.
unsigned imm_form(int64_t imm) {
  if (imm == 0) return 0;
  return imm == int64_t(int32_t(imm)) ? 1 : 2;
}

unsigned vec_code(uint8_t vec) { return vec == 4 ? 2 : vec == 2 ? 1 : vec == 1 ? 0 : 3; }

size_t words_of(const isa::Inst& inst) {
  size_t w = kHeaderWords;
  for (int i = 0; i < inst.nops && i < isa::kMaxOps; ++i) w += 1 + imm_form(inst.ops[i].imm);
  return w;
}

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

}  // namespace

size_t encoded_size(const isa::Inst& inst) { return words_of(inst) * 4; }

void encode(const isa::Inst& inst, std::vector<uint8_t>& out) {
  const auto& m = inst.mod;
  unsigned nops = inst.nops > isa::kMaxOps ? isa::kMaxOps : inst.nops;
  uint32_t w0 = kMagic | uint32_t(inst.op) << 4 | (uint32_t(inst.type) & 31) << 12 |
                (uint32_t(inst.type2) & 31) << 17 | vec_code(inst.vec) << 22 | uint32_t(nops) << 24 |
                uint32_t(words_of(inst)) << 27;
  uint32_t w1 = uint32_t(m.flags);
  if (inst.guard >= 0)
    w1 |= 1u << 16 | uint32_t(inst.guard_neg) << 17 | (uint32_t(inst.guard) & kMaxGuard) << 18;
  w1 |= (uint32_t(m.prmt) & 7) << 29;
  uint32_t w2 = (uint32_t(m.space) & 7) | (uint32_t(m.cmp) & 31) << 3 | (uint32_t(m.boolop) & 3) << 8 |
                (uint32_t(m.round) & 15) << 10 | (uint32_t(m.mul) & 3) << 14 |
                (uint32_t(m.atom) & 15) << 16 | (uint32_t(m.shfl) & 7) << 20 |
                (uint32_t(m.vote) & 7) << 23 | (uint32_t(m.level) & 3) << 26 |
                (uint32_t(m.testp) & 7) << 28;
  wr32(out, w0);
  wr32(out, w1);
  wr32(out, w2);
  for (unsigned i = 0; i < nops; ++i) {
    const auto& o = inst.ops[i];
    unsigned form = imm_form(o.imm);
    wr32(out, (uint32_t(o.kind) & 15) | uint32_t(o.neg) << 4 | form << 5 | uint32_t(o.reg) << 16);
    if (form >= 1) wr32(out, uint32_t(uint64_t(o.imm)));
    if (form == 2) wr32(out, uint32_t(uint64_t(o.imm) >> 32));
  }
}

size_t size_from_header(const uint8_t* header) {
  uint32_t w0 = rd32(header);
  if (field(w0, 0, 4) != kMagic) return 0;
  if (field(w0, 4, 8) >= uint32_t(isa::Opcode::Count)) return 0;
  uint32_t words = field(w0, 27, 5);
  if (words < kHeaderWords) return 0;
  return size_t(words) * 4;
}

bool decode(const uint8_t* bytes, size_t avail, isa::Inst& out, std::string* why) {
  out = isa::Inst{};
  if (avail < kHeaderWords * 4) return fail(why, fmt::format("truncated header ({} bytes)", avail));
  uint32_t w0 = rd32(bytes), w1 = rd32(bytes + 4), w2 = rd32(bytes + 8);
  if (field(w0, 0, 4) != kMagic) return fail(why, fmt::format("bad magic in word {:#010x}", w0));
  uint32_t op = field(w0, 4, 8), type = field(w0, 12, 5), type2 = field(w0, 17, 5);
  uint32_t vc = field(w0, 22, 2), nops = field(w0, 24, 3), words = field(w0, 27, 5);
  constexpr uint32_t kTypes = uint32_t(isa::DType::F64) + 1;
  if (op >= uint32_t(isa::Opcode::Count)) return fail(why, fmt::format("bad opcode {}", op));
  if (type >= kTypes || type2 >= kTypes) return fail(why, fmt::format("bad type {}/{}", type, type2));
  if (vc == 3) return fail(why, "bad vector width");
  if (nops > unsigned(isa::kMaxOps)) return fail(why, fmt::format("too many operands ({})", nops));
  if (size_t(words) * 4 > avail) return fail(why, fmt::format("truncated: needs {} bytes, {} available", words * 4, avail));
  if (words < kHeaderWords) return fail(why, fmt::format("bad size {} words", words));

  // Word 1: flags, guard, prmt.
  uint32_t flags = field(w1, 0, 16);
  if (flags >> 15) return fail(why, fmt::format("unknown flag bits {:#x}", flags));
  bool guarded = field(w1, 16, 1), gneg = field(w1, 17, 1);
  uint32_t gslot = field(w1, 18, 11), prmt = field(w1, 29, 3);
  if (!guarded && (gneg || gslot)) return fail(why, "guard fields set without a guard");
  if (prmt > uint32_t(isa::PrmtMode::Rc16)) return fail(why, "bad prmt mode");

  // Word 2: enum modifiers, each range-checked.
  struct F { unsigned lo, bits, max; const char* name; };
  static constexpr F kF[] = {
      {0, 3, unsigned(isa::Space::Local), "space"},     {3, 5, unsigned(isa::Cmp::Nan), "cmp"},
      {8, 2, unsigned(isa::BoolOp::Xor), "boolop"},     {10, 4, unsigned(isa::Round::Rpi), "round"},
      {14, 2, unsigned(isa::MulMode::Wide), "mul"},     {16, 4, unsigned(isa::AtomOp::Dec), "atom"},
      {20, 3, unsigned(isa::ShflMode::Idx), "shfl"},    {23, 3, unsigned(isa::VoteMode::Ballot), "vote"},
      {26, 2, unsigned(isa::MemLevel::Sys), "level"},   {28, 3, unsigned(isa::TestpMode::Subnormal), "testp"},
  };
  uint32_t v[10];
  for (int i = 0; i < 10; ++i) {
    v[i] = field(w2, kF[i].lo, kF[i].bits);
    if (v[i] > kF[i].max) return fail(why, fmt::format("bad {} modifier {}", kF[i].name, v[i]));
  }
  if (w2 >> 31) return fail(why, "reserved modifier bit set");

  out.op = isa::Opcode(op);
  out.type = isa::DType(type);
  out.type2 = isa::DType(type2);
  out.vec = uint8_t(1u << vc);
  out.nops = uint8_t(nops);
  out.guard = guarded ? int16_t(gslot) : int16_t(-1);
  out.guard_neg = gneg;
  auto& m = out.mod;
  m.flags = uint16_t(flags);
  m.prmt = isa::PrmtMode(prmt);
  m.space = isa::Space(v[0]);
  m.cmp = isa::Cmp(v[1]);
  m.boolop = isa::BoolOp(v[2]);
  m.round = isa::Round(v[3]);
  m.mul = isa::MulMode(v[4]);
  m.atom = isa::AtomOp(v[5]);
  m.shfl = isa::ShflMode(v[6]);
  m.vote = isa::VoteMode(v[7]);
  m.level = isa::MemLevel(v[8]);
  m.testp = isa::TestpMode(v[9]);

  // Operands: never step past `words` (already checked against avail).
  size_t pos = kHeaderWords;
  for (uint32_t i = 0; i < nops; ++i) {
    if (pos >= words) return fail(why, fmt::format("operand {} beyond instruction size", i));
    uint32_t d = rd32(bytes + 4 * pos++);
    uint32_t kind = field(d, 0, 4), neg = field(d, 4, 1), form = field(d, 5, 2), reg = field(d, 16, 16);
    if (kind > uint32_t(isa::OpKind::Sink)) return fail(why, fmt::format("operand {}: bad kind {}", i, kind));
    if (form == 3) return fail(why, fmt::format("operand {}: bad immediate form", i));
    if (field(d, 7, 9)) return fail(why, fmt::format("operand {}: reserved bits set", i));
    if (pos + form > words) return fail(why, fmt::format("operand {}: immediate beyond instruction size", i));
    int64_t imm = 0;
    if (form == 1) imm = int32_t(rd32(bytes + 4 * pos));
    if (form == 2) imm = int64_t(uint64_t(rd32(bytes + 4 * pos)) | uint64_t(rd32(bytes + 4 * pos + 4)) << 32);
    pos += form;
    auto k = isa::OpKind(kind);
    // Kind-specific validity; `neg` only means something on a predicate.
    if (neg && k != isa::OpKind::Pred) return fail(why, fmt::format("operand {}: negation on a non-predicate", i));
    switch (k) {
      case isa::OpKind::None:
      case isa::OpKind::Sink:
        if (reg != isa::kNoReg || imm) return fail(why, fmt::format("operand {}: stray fields", i));
        break;
      case isa::OpKind::Reg:
      case isa::OpKind::Pred:
        if (reg == isa::kNoReg) return fail(why, fmt::format("operand {}: missing register", i));
        break;
      case isa::OpKind::SReg:
        if (reg >= uint32_t(isa::SReg::Count)) return fail(why, fmt::format("operand {}: bad special register {}", i, reg));
        break;
      case isa::OpKind::Imm:
      case isa::OpKind::Target:
        if (reg != isa::kNoReg) return fail(why, fmt::format("operand {}: register on an immediate", i));
        break;
      case isa::OpKind::Mem:
        break;
    }
    out.ops[i].kind = k;
    out.ops[i].neg = neg;
    out.ops[i].reg = uint16_t(reg);
    out.ops[i].imm = imm;
  }
  if (pos != words) return fail(why, fmt::format("size {} words but operands end at {}", words, pos));
  out.size = words * 4;
  return true;
}

}  // namespace gpuvp::isa
