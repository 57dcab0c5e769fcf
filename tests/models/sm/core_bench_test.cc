// Scalar product (per-block shared-memory reduction): correctness, and the host speed of the core
// (hidden [.bench] case prints simulated thread-instructions per host second).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "sm_test_util.h"

using namespace smtest;

namespace {
Inst setp(Cmp c, DType t, unsigned p, Operand a, Operand b) {
  Inst in = mk(Opcode::Setp, t, {P(p), None(), a, b});
  in.mod.cmp = c;
  return in;
}
// out[ctaid] = sum over the block of a[i] * b[i] (f32), tree reduction in shared memory.
Prog scalar_prod() {
  Prog p;
  p.add(Opcode::Mov, DType::U32, {R(0), S(SReg::TidX)});
  p.add(Opcode::Mov, DType::U32, {R(1), S(SReg::CtaidX)});
  p.add(Opcode::Mov, DType::U32, {R(2), S(SReg::NtidX)});
  p.add(Opcode::Mad, DType::U32, {R(3), R(1), R(2), R(0)}).mod.mul = MulMode::Lo;
  p.add(Opcode::Mul, DType::U32, {R(4), R(3), I(4)}).mod.mul = MulMode::Wide;
  p.add(Opcode::Add, DType::U64, {R(5), R(4), I(int64_t(kGlob))});
  p.add(Opcode::Ld, DType::F32, {R(6), M(5, 0)}).mod.space = Space::Global;
  p.add(Opcode::Ld, DType::F32, {R(7), M(5, 0x40000)}).mod.space = Space::Global;
  p.add(Opcode::Mul, DType::F32, {R(8), R(6), R(7)});
  p.add(Opcode::Shl, DType::B32, {R(9), R(0), I(2)});
  p.add(Opcode::St, DType::F32, {M(9, 0), R(8)}).mod.space = Space::Shared;
  p.add(Opcode::Bar, DType::None, {I(0)});
  p.add(Opcode::Shr, DType::U32, {R(10), R(2), I(1)});  // s = ntid / 2
  p.label(1);
  p.add(setp(Cmp::Eq, DType::U32, 0, R(10), I(0)));
  Inst b = mk(Opcode::Bra, DType::None, {L(3)});
  b.guard = 0;
  p.add(b);
  p.add(setp(Cmp::Lt, DType::U32, 1, R(0), R(10)));
  Inst b2 = mk(Opcode::Bra, DType::None, {L(2)});
  b2.guard = 1;
  b2.guard_neg = true;
  p.add(b2);
  p.add(Opcode::Shl, DType::B32, {R(11), R(10), I(2)});
  p.add(Opcode::Add, DType::U32, {R(11), R(11), R(9)});
  p.add(Opcode::Ld, DType::F32, {R(12), M(11, 0)}).mod.space = Space::Shared;
  p.add(Opcode::Ld, DType::F32, {R(13), M(9, 0)}).mod.space = Space::Shared;
  p.add(Opcode::Add, DType::F32, {R(13), R(13), R(12)});
  p.add(Opcode::St, DType::F32, {M(9, 0), R(13)}).mod.space = Space::Shared;
  p.label(2);
  p.add(Opcode::Bar, DType::None, {I(0)});
  p.add(Opcode::Shr, DType::U32, {R(10), R(10), I(1)});
  p.add(Opcode::Bra, DType::None, {L(1)});
  p.label(3);
  p.add(setp(Cmp::Ne, DType::U32, 2, R(0), I(0)));
  Inst ex = mk(Opcode::Exit, DType::None, {});
  ex.guard = 2;
  p.add(ex);
  p.add(Opcode::Ld, DType::F32, {R(12), MA(0)}).mod.space = Space::Shared;
  p.add(Opcode::Mul, DType::U32, {R(4), R(1), I(4)}).mod.mul = MulMode::Wide;
  p.add(Opcode::St, DType::F32, {M(4, int64_t(kGlob + 0x80000)), R(12)}).mod.space = Space::Global;
  p.add(Opcode::Exit, DType::None, {});
  return p;
}

// Runs `nblocks` blocks of `threads` in batches of `per_batch`; returns thread instructions and seconds.
std::pair<uint64_t, double> run_sp(Run& r, unsigned nblocks, unsigned threads, unsigned per_batch) {
  Prog p = scalar_prod();
  auto bytes = p.encode();
  std::memcpy(r.env.code.data(), bytes.data(), bytes.size());
  for (unsigned i = 0; i < nblocks * threads; ++i) {
    r.env.put<float>(kGlob + 4 * i, float(i % 7));
    r.env.put<float>(kGlob + 0x40000 + 4 * i, 0.5f);
  }
  r.core = std::make_unique<SimtCore>(r.cfg, r.env);
  r.lp.block[0] = threads;
  r.lp.grid[0] = nblocks;
  r.lp.static_shared = threads * 4;
  auto t0 = std::chrono::steady_clock::now();
  uint64_t now = 0;
  for (unsigned b = 0; b < nblocks; b += per_batch) {
    r.lp.blocks.clear();
    for (unsigned j = 0; j < per_batch; ++j) r.lp.blocks.push_back(b + j);
    REQUIRE(r.core->launch(r.lp, now));
    REQUIRE(r.core->run());
    now = r.core->now();
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {r.core->stats().thread_insts, s};
}
}  // namespace

TEST_CASE("scalar product kernel on the core", "[core][kernel]") {
  Run r;
  r.cfg.coalesce = true;
  run_sp(r, 4, 256, 2);
  for (unsigned b = 0; b < 4; ++b) {
    float e = 0;
    for (unsigned t = 0; t < 256; ++t) e += float((b * 256 + t) % 7) * 0.5f;
    CHECK(r.env.get<float>(kGlob + 0x80000 + 4 * b) == Approx(e));
  }
}

TEST_CASE("bench: scalar product 32 x 512 on the core", "[.bench]") {
  for (bool coalesce : {false, true}) {
    Run r;
    r.cfg.coalesce = coalesce;
    r.cfg.shared_bytes = 48 * 1024;
    auto [ti, s] = run_sp(r, 32, 512, 4);
    std::printf("coalesce=%d: %llu thread-insts in %.3f s = %.1f M/s\n", int(coalesce), (unsigned long long)ti, s, ti / s / 1e6);
  }
}
