#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "sw/isa/encoding.h"

using namespace gpuvp;
using isa::Inst;
using isa::OpKind;
using isa::Opcode;

namespace {

bool same(const Inst& a, const Inst& b) {
  if (a.op != b.op || a.type != b.type || a.type2 != b.type2 || a.vec != b.vec || a.nops != b.nops ||
      a.guard != b.guard || a.guard_neg != b.guard_neg)
    return false;
  const auto &x = a.mod, &y = b.mod;
  if (x.space != y.space || x.cmp != y.cmp || x.boolop != y.boolop || x.round != y.round || x.mul != y.mul ||
      x.atom != y.atom || x.shfl != y.shfl || x.vote != y.vote || x.level != y.level || x.testp != y.testp ||
      x.prmt != y.prmt || x.flags != y.flags)
    return false;
  for (int i = 0; i < isa::kMaxOps; ++i) {
    const auto &o = a.ops[i], &p = b.ops[i];
    if (o.kind != p.kind || o.neg != p.neg || o.reg != p.reg || o.imm != p.imm) return false;
  }
  return true;
}

isa::Operand reg(uint16_t r) { return {OpKind::Reg, false, r, 0}; }
isa::Operand imm(int64_t v) { return {OpKind::Imm, false, isa::kNoReg, v}; }

Inst roundtrip(const Inst& in) {
  std::vector<uint8_t> buf;
  isa::encode(in, buf);
  REQUIRE(buf.size() == isa::encoded_size(in));
  REQUIRE(isa::size_from_header(buf.data()) == buf.size());
  Inst out;
  std::string why;
  REQUIRE(isa::decode(buf.data(), buf.size(), out, &why));
  REQUIRE(out.size == buf.size());
  return out;
}

}  // namespace

TEST_CASE("encode/decode round trips every opcode", "[encoding]") {
  for (unsigned op = 0; op < unsigned(Opcode::Count); ++op) {
    Inst in;
    in.op = Opcode(op);
    in.type = isa::DType(op % 17);
    in.type2 = isa::DType((op * 7) % 17);
    in.vec = op % 3 == 0 ? 4 : op % 3 == 1 ? 2 : 1;
    in.guard = op % 2 ? int16_t(op) : int16_t(-1);
    in.guard_neg = op % 4 == 1;
    in.mod.space = isa::Space(op % 6);
    in.mod.cmp = isa::Cmp(op % 19);
    in.mod.boolop = isa::BoolOp(op % 4);
    in.mod.round = isa::Round(op % 9);
    in.mod.mul = isa::MulMode(op % 4);
    in.mod.atom = isa::AtomOp(op % 11);
    in.mod.shfl = isa::ShflMode(op % 5);
    in.mod.vote = isa::VoteMode(op % 5);
    in.mod.level = isa::MemLevel(op % 4);
    in.mod.testp = isa::TestpMode(op % 7);
    in.mod.prmt = isa::PrmtMode(op % 7);
    in.mod.flags = uint16_t((op * 0x1357) & 0x7FFF);
    in.nops = uint8_t(op % 7);
    const isa::Operand pool[] = {
        reg(uint16_t(op)),
        {OpKind::Pred, true, 3, 0},
        imm(-1),
        imm(0x123456789abcdefll),
        {OpKind::SReg, false, uint16_t(isa::SReg::Clock64), 0},
        {OpKind::Mem, false, isa::kNoReg, 16},
        {OpKind::Target, false, isa::kNoReg, 0x80001000},
        {OpKind::Sink, false, isa::kNoReg, 0},
        {OpKind::Mem, false, 7, -8},
    };
    for (int i = 0; i < in.nops; ++i) in.ops[i] = pool[(op + i) % 9];
    Inst out = roundtrip(in);
    INFO("opcode " << op);
    CHECK(same(in, out));
  }
}

TEST_CASE("encoded sizes: header plus descriptor plus immediate words", "[encoding]") {
  Inst add;
  add.op = Opcode::Add;
  add.type = isa::DType::S32;
  add.nops = 3;
  add.ops[0] = reg(1);
  add.ops[1] = reg(2);
  add.ops[2] = imm(5);
  CHECK(isa::encoded_size(add) == 4 * (3 + 1 + 1 + 2));
  add.ops[2] = imm(0);  // zero immediate takes no extra word
  CHECK(isa::encoded_size(add) == 4 * (3 + 3));
  add.ops[2] = imm(int64_t(1) << 40);  // 64-bit immediate takes two
  CHECK(isa::encoded_size(add) == 4 * (3 + 1 + 1 + 3));
  std::vector<uint8_t> buf;
  isa::encode(add, buf);
  // w0: magic 0xB, opcode, type S32, nops 3, 8 words.
  uint32_t w0 = buf[0] | buf[1] << 8 | buf[2] << 16 | uint32_t(buf[3]) << 24;
  CHECK((w0 & 0xF) == 0xB);
  CHECK(((w0 >> 4) & 0xFF) == unsigned(Opcode::Add));
  CHECK(((w0 >> 12) & 31) == unsigned(isa::DType::S32));
  CHECK(((w0 >> 24) & 7) == 3);
  CHECK((w0 >> 27) == 8);
  Inst out = roundtrip(add);
  CHECK(out.ops[2].imm == (int64_t(1) << 40));
}

TEST_CASE("decode rejects truncated input and never reads past avail", "[encoding]") {
  Inst in;
  in.op = Opcode::Mov;
  in.type = isa::DType::U64;
  in.nops = 2;
  in.ops[0] = reg(0);
  in.ops[1] = imm(0x1122334455667788ll);
  std::vector<uint8_t> buf;
  isa::encode(in, buf);
  for (size_t n = 0; n < buf.size(); ++n) {
    // Copy into an exactly-sized heap buffer so ASan/valgrind would catch an over-read.
    std::vector<uint8_t> cut(buf.begin(), buf.begin() + long(n));
    Inst out;
    std::string why;
    CHECK_FALSE(isa::decode(cut.data(), n, out, &why));
    CHECK_FALSE(why.empty());
  }
  Inst out;
  std::string why;
  CHECK(isa::decode(buf.data(), buf.size(), out, &why));
}

TEST_CASE("decode rejects corrupted fields", "[encoding]") {
  Inst in;
  in.op = Opcode::Add;
  in.type = isa::DType::U32;
  in.nops = 3;
  in.ops[0] = reg(1);
  in.ops[1] = reg(2);
  in.ops[2] = reg(3);
  std::vector<uint8_t> good;
  isa::encode(in, good);
  // Sets bits in one byte of a valid encoding; the result must be rejected with a reason.
  auto bad = [&](size_t byte, uint8_t set_bits) {
    auto b = good;
    b[byte] = uint8_t(b[byte] | set_bits);
    Inst out;
    std::string why;
    bool ok = isa::decode(b.data(), b.size(), out, &why);
    return !ok && !why.empty();
  };
  CHECK(bad(0, 0x04));  // magic 0xB -> 0xF
  CHECK(bad(1, 0x0F));  // opcode 0xF6 >= Count
  CHECK(bad(2, 0x01));  // type 24
  CHECK(bad(2, 0x3E));  // type2 31
  CHECK(bad(2, 0xC0));  // vector code 3
  CHECK(bad(3, 0x07));  // nops 7
  CHECK(bad(3, 0x80));  // size beyond avail
  CHECK(bad(5, 0x80));  // unknown flag bit 15
  CHECK(bad(6, 0x02));  // guard_neg without guard
  CHECK(bad(7, 0xE0));  // prmt mode 7
  CHECK(bad(8, 0x07));  // space 7
  CHECK(bad(11, 0x80)); // reserved modifier bit
  CHECK(bad(12, 0x0F)); // operand kind 15
  CHECK(bad(12, 0x10)); // negation on a Reg operand
  CHECK(bad(12, 0x60)); // immediate form 3
  CHECK(bad(13, 0x01)); // reserved operand bits
  // A Reg operand without a register.
  auto b = good;
  b[14] = b[15] = 0xFF;
  Inst out;
  std::string why;
  CHECK_FALSE(isa::decode(b.data(), b.size(), out, &why));
  CHECK(why == "operand 0: missing register");
}

TEST_CASE("decode rejects random garbage almost always", "[encoding]") {
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    uint8_t b[32];
    for (auto& x : b) x = uint8_t(rng());
    Inst out;
    std::string why;
    if (isa::decode(b, sizeof b, out, &why)) ++accepted;
  }
  CHECK(accepted < 20);
}
