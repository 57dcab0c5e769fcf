// Warp-level instructions: shfl, vote, match, activemask, bar.warp. They need 32-lane warps.
#include <fmt/format.h>

#include <cstdint>

#include "models/sm/exec.h"
#include "sw/isa/disassembler.h"

namespace gpuvp::sm {

namespace {

using isa::Opcode;

// nvcc compiles warp-level code for warpSize = 32 (full masks, lane arithmetic): on a narrower warp
// it cannot mean what the kernel expects, so it stops instead of computing something else.
bool full_warp(Exec& x) {
  if (x.cfg().warp_size == 32) return true;
  x.fail("warp_size", fmt::format("{} needs 32-lane warps (nvcc's warpSize) and this SM has {}-lane warps "
                                  "(sm.warp_size)", isa::disassemble(x.in), x.cfg().warp_size),
         -1, 0);
  return false;
}

// shfl.sync: c packs the clamp (bits 4:0) and segment mask (bits 12:8).
void shfl(Exec& x) {
  if (!full_warp(x)) return;
  uint64_t sa[32], sb[32], sc[32], sd[32];
  uint64_t av[32];
  const uint64_t* a = x.src(x.in.ops[2], ~0u, sa);
  for (unsigned l = 0; l < 32; ++l) av[l] = a[l];
  const uint64_t *b = x.src(3, sb), *c = x.src(4, sc);
  uint64_t* d = x.dst(0, sd);
  uint32_t pv = 0;
  isa::ShflMode mode = x.in.mod.shfl;
  lanes(x.m, [&](unsigned l) {
    int lane = int(l), bval = int(b[l] & 31), cval = int(c[l] & 31), seg = int((c[l] >> 8) & 31);
    int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
    int j;
    bool ok;
    switch (mode) {
      case isa::ShflMode::Up: j = lane - bval; ok = j >= maxl; break;
      case isa::ShflMode::Down: j = lane + bval; ok = j <= maxl; break;
      case isa::ShflMode::Bfly: j = lane ^ bval; ok = j <= maxl; break;
      default: j = minl | (bval & ~seg); ok = j <= maxl; break;
    }
    if (!ok) j = lane;
    d[l] = av[j & 31] & 0xFFFFFFFFull;
    pv |= uint32_t(ok) << l;
  });
  x.write_pred(1, x.m, pv);
}

// The membermask operand i (of the first active lane), all lanes when absent.
uint32_t member_mask(Exec& x, int i) {
  if (x.in.nops <= i || x.in.ops[i].kind == isa::OpKind::None) return ~0u;
  uint64_t sc[32];
  return uint32_t(x.src(i, sc)[__builtin_ctz(x.m)]);
}

void vote(Exec& x) {
  if (!full_warp(x)) return;
  const isa::Inst& in = x.in;
  const uint32_t m = x.m;
  uint32_t act = m & member_mask(x, 2);
  uint32_t p = x.pred_mask(1) & act;
  switch (in.mod.vote) {
    case isa::VoteMode::Ballot: {
      uint64_t sd[32];
      uint64_t* d = x.dst(0, sd);
      lanes(m, [&](unsigned l) { d[l] = p; });
      return;
    }
    case isa::VoteMode::All: x.write_pred(0, m, p == act ? ~0u : 0u); return;
    case isa::VoteMode::Any: x.write_pred(0, m, p ? ~0u : 0u); return;
    default: x.write_pred(0, m, (p == act || p == 0) ? ~0u : 0u); return;
  }
}

// match.any: each lane gets the lanes (active and in the membermask) whose value equals its own;
// match.all: all those lanes when every value is the same (predicate true), else 0 (false).
void match(Exec& x) {
  if (!full_warp(x)) return;
  const uint32_t act = x.m & member_mask(x, 3);
  const uint64_t M = wmask(isa::bits_of(x.in.type));
  uint64_t sa[32], sd[32], r[32];
  const uint64_t* a = x.src(2, sa);
  lanes(x.m, [&](unsigned l) {
    uint32_t same = 0;
    lanes(act, [&](unsigned j) { same |= uint32_t((a[j] & M) == (a[l] & M)) << j; });
    r[l] = same;
  });
  bool all = x.in.mod.vote == isa::VoteMode::All;
  uint32_t first = act ? uint32_t(r[__builtin_ctz(act)]) : 0;
  bool uniform = first == act;
  uint64_t* d = x.dst(0, sd);  // after the reads: d may be a
  lanes(x.m, [&](unsigned l) { d[l] = all ? (uniform ? act : 0) : r[l]; });
  if (all) x.write_pred(1, x.m, uniform ? ~0u : 0u);
}

void activemask(Exec& x) {
  if (!full_warp(x)) return;
  uint64_t sd[32];
  uint64_t* d = x.dst(0, sd);
  uint32_t am = x.g.mask;
  lanes(x.m, [&](unsigned l) { d[l] = am; });
}

void bar_warp(Exec& x) { full_warp(x); }

}  // namespace

void add_warp_ops(OpTable& t) {
  t[size_t(Opcode::Shfl)].fn = shfl;
  t[size_t(Opcode::Vote)].fn = vote;
  t[size_t(Opcode::Match)].fn = match;
  t[size_t(Opcode::Activemask)].fn = activemask;
  t[size_t(Opcode::BarWarp)].fn = bar_warp;
}

}  // namespace gpuvp::sm
