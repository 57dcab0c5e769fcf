// Divergence / reconvergence (thread-frontier, min-PC rule), barriers, memory spaces, errors.
#include <catch2/catch.hpp>

#include "sm_test_util.h"

using namespace smtest;

namespace {
Inst setp(Cmp c, DType t, unsigned p, Operand a, Operand b) {
  Inst in = mk(Opcode::Setp, t, {P(p), None(), a, b});
  in.mod.cmp = c;
  return in;
}
Inst bra(int label, int guard = -1, bool neg = false) {
  Inst in = mk(Opcode::Bra, DType::None, {L(label)});
  in.guard = int16_t(guard);
  in.guard_neg = neg;
  return in;
}
Inst gst(unsigned addr_reg, int64_t off, unsigned val) {
  Inst in = mk(Opcode::St, DType::U32, {M(addr_reg, off), R(val)});
  in.mod.space = Space::Global;
  return in;
}
// r0 = tid, r9 = kGlob + 4 * tid
void prologue(Prog& p) {
  p.add(Opcode::Mov, DType::U32, {R(0), S(SReg::TidX)});
  p.add(Opcode::Mul, DType::U32, {R(9), R(0), I(4)}).mod.mul = MulMode::Wide;
  p.add(Opcode::Add, DType::U64, {R(9), R(9), I(int64_t(kGlob))});
}
}  // namespace

TEST_CASE("nested if/else reconverges", "[core][divergence]") {
  Prog p;
  prologue(p);
  p.add(setp(Cmp::Lt, DType::U32, 0, R(0), I(16)));
  p.add(bra(1, 0, true));                                 // if !(tid < 16) goto else
  p.add(Opcode::And, DType::B32, {R(2), R(0), I(1)});
  p.add(setp(Cmp::Ne, DType::U32, 1, R(2), I(0)));
  p.add(bra(2, 1, true));
  p.add(Opcode::Mov, DType::U32, {R(1), I(1)});           // odd
  p.add(bra(3));
  p.label(2);
  p.add(Opcode::Mov, DType::U32, {R(1), I(2)});           // even
  p.label(3);
  p.add(bra(4));
  p.label(1);
  p.add(Opcode::Mov, DType::U32, {R(1), I(3)});
  p.label(4);
  p.add(Opcode::Add, DType::U32, {R(1), R(1), I(10)});
  p.add(gst(9, 0, 1));
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  REQUIRE(r.go(p, 48));
  for (unsigned t = 0; t < 48; ++t) {
    uint32_t e = t < 16 ? ((t & 1) ? 1 : 2) : 3;
    CHECK(r.env.get<uint32_t>(kGlob + 4 * t) == e + 10);
  }
}

TEST_CASE("loop with per-thread trip count, continue, break, early return", "[core][divergence]") {
  // r1 = 0; i = 0; while (i < tid) { i++; if (i % 3 == 0) continue; if (i == 20) break; r1 += i; }
  // if (tid % 5 == 4) return (no store); store r1
  Prog p;
  prologue(p);
  p.add(Opcode::Mov, DType::U32, {R(1), I(0)});
  p.add(Opcode::Mov, DType::U32, {R(2), I(0)});
  p.label(1);  // loop head
  p.add(setp(Cmp::Ge, DType::U32, 0, R(2), R(0)));
  p.add(bra(9, 0));
  p.add(Opcode::Add, DType::U32, {R(2), R(2), I(1)});
  p.add(Opcode::Rem, DType::U32, {R(3), R(2), I(3)});
  p.add(setp(Cmp::Eq, DType::U32, 1, R(3), I(0)));
  p.add(bra(1, 1));  // continue
  p.add(setp(Cmp::Eq, DType::U32, 2, R(2), I(20)));
  p.add(bra(9, 2));  // break
  p.add(Opcode::Add, DType::U32, {R(1), R(1), R(2)});
  p.add(bra(1));
  p.label(9);
  p.add(Opcode::Rem, DType::U32, {R(3), R(0), I(5)});
  p.add(setp(Cmp::Eq, DType::U32, 3, R(3), I(4)));
  Inst ex = mk(Opcode::Ret, DType::None, {});
  ex.guard = 3;
  p.add(ex);
  p.add(gst(9, 0, 1));
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  for (unsigned t = 0; t < 64; ++t) r.env.put<uint32_t>(kGlob + 4 * t, 0xDEAD);
  REQUIRE(r.go(p, 64));
  for (unsigned t = 0; t < 64; ++t) {
    uint32_t s = 0, i = 0;
    while (i < t) {
      ++i;
      if (i % 3 == 0) continue;
      if (i == 20) break;
      s += i;
    }
    INFO("tid " << t);
    CHECK(r.env.get<uint32_t>(kGlob + 4 * t) == (t % 5 == 4 ? 0xDEADu : s));
  }
  CHECK(r.core->stats().thread_insts < r.core->stats().warp_insts * 32);
}

TEST_CASE("barrier after reconvergence, shared memory exchange", "[core][barrier]") {
  Prog p;
  prologue(p);
  // divergent: odd threads r1 = tid*2, even r1 = tid*2 via another path
  p.add(Opcode::And, DType::B32, {R(2), R(0), I(1)});
  p.add(setp(Cmp::Ne, DType::U32, 0, R(2), I(0)));
  p.add(bra(1, 0));
  p.add(Opcode::Add, DType::U32, {R(1), R(0), R(0)});
  p.add(bra(2));
  p.label(1);
  p.add(Opcode::Mul, DType::U32, {R(1), R(0), I(2)}).mod.mul = MulMode::Lo;
  p.label(2);
  p.add(Opcode::Mul, DType::U32, {R(3), R(0), I(4)}).mod.mul = MulMode::Lo;
  p.add(Opcode::St, DType::U32, {M(3, 0), R(1)}).mod.space = Space::Shared;
  p.add(Opcode::Bar, DType::None, {I(0)});
  // read neighbour (tid+1) % 96 through a generic address (cvta.shared)
  p.add(Opcode::Add, DType::U32, {R(4), R(0), I(1)});
  p.add(Opcode::Rem, DType::U32, {R(4), R(4), I(96)});
  p.add(Opcode::Mul, DType::U32, {R(4), R(4), I(4)}).mod.mul = MulMode::Wide;
  Inst cv = mk(Opcode::Cvta, DType::U64, {R(5), R(4)});
  cv.mod.space = Space::Shared;
  p.add(cv);
  p.add(Opcode::Ld, DType::U32, {R(6), M(5, 0)});  // generic
  p.add(gst(9, 0, 6));
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  r.lp.static_shared = 96 * 4;
  REQUIRE(r.go(p, 96));
  for (unsigned t = 0; t < 96; ++t) CHECK(r.env.get<uint32_t>(kGlob + 4 * t) == ((t + 1) % 96) * 2);
}

TEST_CASE("an exited warp releases the barrier the others wait at", "[core][barrier]") {
  // Warp 1 exits; warp 0 passes bar.sync 0 (which counted the block's two warps) and stores tid.
  Prog p;
  prologue(p);
  p.add(setp(Cmp::Ge, DType::U32, 0, R(0), I(32)));
  Inst ex = mk(Opcode::Exit, DType::None, {});
  ex.guard = 0;
  p.add(ex);
  p.add(Opcode::Bar, DType::None, {I(0)});
  p.add(gst(9, 0, 0));
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  REQUIRE(r.go(p, 64));
  for (unsigned t = 1; t < 32; ++t) CHECK(r.env.get<uint32_t>(kGlob + 4 * t) == t);
  CHECK(r.env.get<uint32_t>(kGlob + 4 * 40) == 0);
}

TEST_CASE("a barrier number beyond the 16 barriers is a barrier error naming it", "[core][barrier][error]") {
  Prog p;
  prologue(p);
  p.add(Opcode::Mov, DType::U32, {R(3), I(99)});
  p.add(Opcode::Bar, DType::None, {R(3)});
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  CHECK_FALSE(r.go(p, 64));
  REQUIRE(r.core->error());
  CHECK(r.core->error()->kind == "barrier");
  CHECK_THAT(r.core->error()->message, Catch::Matchers::Contains("barrier 99 out of range"));
}

TEST_CASE("memory errors: misaligned, shared out of range, global fault, decode, trap", "[core][error]") {
  SECTION("misaligned global") {
    Prog p;
    prologue(p);
    p.add(gst(9, 2, 0));
    p.add(Opcode::Exit, DType::None, {});
    Run r;
    CHECK_FALSE(r.go(p));
    REQUIRE(r.core->error());
    CHECK(r.core->error()->kind == "misaligned");
    CHECK(r.core->error()->lane == 0);
    CHECK(r.core->error()->address == kGlob + 2);
    CHECK(r.core->error()->pc > kCode);
  }
  SECTION("shared out of range") {
    Prog p;
    prologue(p);
    p.add(Opcode::Mul, DType::U32, {R(3), R(0), I(4)}).mod.mul = MulMode::Lo;
    p.add(Opcode::St, DType::U32, {M(3, 0), R(0)}).mod.space = Space::Shared;
    p.add(Opcode::Exit, DType::None, {});
    Run r;
    r.lp.static_shared = 64;  // 16 threads fit
    CHECK_FALSE(r.go(p));
    REQUIRE(r.core->error());
    CHECK(r.core->error()->kind == "address");
    CHECK(r.core->error()->lane == 16);
  }
  SECTION("global target error") {
    Prog p;
    p.add(Opcode::Ld, DType::U32, {R(1), MA(0x10)}).mod.space = Space::Global;
    p.add(Opcode::Exit, DType::None, {});
    Run r;
    CHECK_FALSE(r.go(p));
    CHECK(r.core->error()->kind == "address");
    CHECK(r.core->error()->address == 0x10);
  }
  SECTION("undecodable word, and a fault in code memory changes behaviour") {
    Prog p;
    prologue(p);
    p.add(gst(9, 0, 0));
    p.add(Opcode::Exit, DType::None, {});
    Run r;
    REQUIRE(r.go(p));
    // corrupt the magic nibble of the store
    auto bytes = p.encode();
    size_t off = 0;
    for (int i = 0; i < 3; ++i) off += isa::encoded_size(p.insts[i]);
    r.env.code[off] ^= 0x1;
    REQUIRE(r.core->launch(r.lp, 0));
    CHECK_FALSE(r.core->run());
    CHECK(r.core->error()->kind == "decode");
    CHECK(r.core->error()->pc == kCode + off);
  }
  SECTION("trap") {
    Prog p;
    p.add(Opcode::Trap, DType::None, {});
    Run r;
    CHECK_FALSE(r.go(p));
    CHECK(r.core->error()->kind == "trap");
  }
  SECTION("resource") {
    Prog p;
    p.add(Opcode::Exit, DType::None, {});
    Run r;
    r.cfg.max_threads_per_block = 64;
    CHECK_FALSE(r.go(p, 128));
    CHECK(r.core->error()->kind == "resource");
  }
}

TEST_CASE("atomics global and shared, local memory, params, vector access", "[core][mem]") {
  Prog p;
  prologue(p);
  // global atom.add on kGlob+0x800, shared atom.add then bar, thread 0 copies shared counter out
  Inst ag = mk(Opcode::Atom, DType::U32, {R(4), MA(int64_t(kGlob + 0x800)), I(1)});
  ag.mod.space = Space::Global;
  ag.mod.atom = AtomOp::Add;
  p.add(ag);
  Inst as = mk(Opcode::Red, DType::U32, {MA(0), R(0)});
  as.mod.space = Space::Shared;
  as.mod.atom = AtomOp::Add;
  p.add(as);
  // local: st.local [0], tid*3 ; ld.local
  p.add(Opcode::Mul, DType::U32, {R(5), R(0), I(3)}).mod.mul = MulMode::Lo;
  p.add(Opcode::St, DType::U32, {MA(4), R(5)}).mod.space = Space::Local;
  p.add(Opcode::Ld, DType::U32, {R(6), MA(4)}).mod.space = Space::Local;
  // param word 1
  p.add(Opcode::Ld, DType::U32, {R(7), MA(4)}).mod.space = Space::Param;
  p.add(Opcode::Add, DType::U32, {R(6), R(6), R(7)});
  p.add(gst(9, 0x400, 6));
  p.add(Opcode::Bar, DType::None, {I(0)});
  p.add(setp(Cmp::Eq, DType::U32, 0, R(0), I(0)));
  p.add(bra(1, 0, true));
  p.add(Opcode::Ld, DType::U32, {R(8), MA(0)}).mod.space = Space::Shared;
  Inst v2 = mk(Opcode::St, DType::U32, {MA(int64_t(kGlob + 0x900)), R(8), R(8)});
  v2.vec = 2;
  v2.mod.space = Space::Global;
  p.add(v2);
  p.label(1);
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  r.lp.static_shared = 16;
  r.lp.local_bytes = 16;
  r.lp.params = {1, 0, 0, 0, 100, 0, 0, 0};
  r.cfg.coalesce = true;
  REQUIRE(r.go(p, 64));
  CHECK(r.env.get<uint32_t>(kGlob + 0x800) == 64);
  CHECK(r.env.get<uint32_t>(kGlob + 0x900) == 64 * 63 / 2);
  CHECK(r.env.get<uint32_t>(kGlob + 0x904) == 64 * 63 / 2);
  for (unsigned t = 0; t < 64; ++t) CHECK(r.env.get<uint32_t>(kGlob + 0x400 + 4 * t) == t * 3 + 100);
}

TEST_CASE("coalescing: lane-by-lane vs segments", "[core][mem][timing]") {
  Prog p;
  prologue(p);
  p.add(gst(9, 0, 0));
  p.add(Opcode::Exit, DType::None, {});
  Run a;
  a.cfg.coalesce = false;
  REQUIRE(a.go(p));
  CHECK(a.env.global_log.size() == 32);
  Run b;
  b.cfg.coalesce = true;
  b.cfg.coalesce_bytes = 32;
  REQUIRE(b.go(p));
  CHECK(b.env.global_log.size() == 4);  // 128 bytes / 32-byte segments
  CHECK(b.core->now() < a.core->now());
}

TEST_CASE("nanosleep jumps time, globaltimer follows cycles", "[core][timing]") {
  Prog p;
  p.add(Opcode::Mov, DType::U64, {R(1), S(SReg::GlobalTimer)});
  p.add(Opcode::Nanosleep, DType::U32, {I(1000000)});
  p.add(Opcode::Mov, DType::U64, {R(2), S(SReg::GlobalTimer)});
  p.add(Opcode::Sub, DType::U64, {R(3), R(2), R(1)});
  p.add(Opcode::Exit, DType::None, {});
  Run r;
  r.cfg.ibuf_insts = 0;
  REQUIRE(r.go(p));
  CHECK(r.reg(0, 3) >= 1000000);
  CHECK(r.reg(0, 3) < 1010000);
  CHECK(r.core->stats().fetches >= 5);
  CHECK(r.core->stats().warp_insts == 5);
}
