// The carry chain (add.cc, addc, sub.cc, subc, mad.cc, madc) through PTX on the SIMT core, against
// C++ arithmetic on unsigned __int128: every instruction's result and carry out for every type,
// with edge values that carry (and borrow) out of each position, and 128/192-bit additions,
// subtractions and multiplications built from 32- and 64-bit pieces.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>

#include "models/common/registry.h"
#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

using u128 = unsigned __int128;

// Edge values of each width (0, 1, all ones, the sign bits) and random ones, for 32 lanes.
std::vector<uint64_t> lane_values(unsigned seed, bool wide) {
  const uint64_t edges32[] = {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
  const uint64_t edges64[] = {0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, ~uint64_t{1}, ~uint64_t{0}, 0xFFFFFFFF};
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v;
  for (unsigned l = 0; l < 32; ++l) {
    uint64_t r = rng();
    if (r % 3 != 0) r = wide ? edges64[(r >> 8) % 7] : edges32[(r >> 8) % 6];
    v.push_back(wide ? r : r & 0xFFFFFFFF);
  }
  return v;
}

// One carry instruction: its PTX, whether it reads the carry (c... forms) and is a multiply-add.
struct CarryOp {
  const char* name;  // "add.cc", "madc.hi.cc", ...
  bool cin, mad, sub, hi;
};
const CarryOp kOps[] = {{"add.cc", false, false, false, false},  {"addc.cc", true, false, false, false},
                        {"sub.cc", false, false, true, false},   {"subc.cc", true, false, true, false},
                        {"mad.lo.cc", false, true, false, false}, {"mad.hi.cc", false, true, false, true},
                        {"madc.lo.cc", true, true, false, false}, {"madc.hi.cc", true, true, false, true}};

// The reference: value and carry flag of `op` on `bits`-bit operands, as PTX defines them
// (subtraction: a + ~b + !borrow, whose carry is the inverse of the borrow).
std::pair<uint64_t, bool> reference(const CarryOp& op, unsigned bits, bool sgn, uint64_t a, uint64_t b, uint64_t c,
                                    bool cf) {
  const u128 M = bits == 64 ? u128(~uint64_t{0}) : u128(0xFFFFFFFFu);
  u128 x = a & M, y = b & M;
  if (op.mad) {
    u128 p;
    if (sgn && bits == 32) p = u128(__int128(int64_t(int32_t(uint32_t(a))) * int64_t(int32_t(uint32_t(b)))));
    else if (sgn) p = u128(__int128(int64_t(a)) * __int128(int64_t(b)));
    else p = x * y;
    x = (op.hi ? p >> bits : p) & M;
    y = c & M;
  }
  u128 k = op.cin && cf ? 1 : 0;
  if (op.sub) {
    u128 s = x + (~y & M) + (1 - k);
    return {uint64_t(s & M), (s >> bits) == 0};
  }
  u128 s = x + y + k;
  return {uint64_t(s & M), (s >> bits) != 0};
}

// Runs op on lanes (a, b, c) with the carry in set on odd lanes. Returns the results, and the
// carries out (read back with addc).
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> run_op(const CarryOp& op, const char* type,
                                                               const std::vector<uint64_t>& a,
                                                               const std::vector<uint64_t>& b,
                                                               const std::vector<uint64_t>& c) {
  bool wide = type[1] == '6';
  const char* r = wide ? "%rd" : "%r";
  std::string ins = wide ? "%ra, %rb" : "%a, %b";
  std::string cv = wide ? "%rc" : "%c";
  // CF = lane parity: 0xFFFFFFFF + (lane & 1) carries exactly for odd lanes.
  std::string set_cf = "and.b32 %r9, %lane, 1;\n add.cc.u32 %r10, %r9, 0xFFFFFFFF;\n";
  std::string inst = fmt::format("{}.{} {}1, {}{};\n", op.name, type, r, ins, op.mad ? ", " + cv : std::string());
  std::string val = set_cf + inst + fmt::format("{}", wide ? "mov.b64 %o, %rd1;\n" : "cvt.u64.u32 %o, %r1;\n");
  std::string flag = set_cf + inst + "addc.u32 %r11, 0, 0;\n cvt.u64.u32 %o, %r11;\n";
  return {run_lanes(val, a, b, c), run_lanes(flag, a, b, c)};
}

}  // namespace

TEST_CASE("PTX carry instructions: value and carry out of every form and type", "[ptx][inst][carry]") {
  for (const char* type : {"u32", "s32", "u64", "s64"}) {
    bool wide = type[1] == '6', sgn = type[0] == 's';
    for (unsigned seed = 1; seed <= 3; ++seed) {
      auto a = lane_values(seed, wide), b = lane_values(seed + 10, wide), c = lane_values(seed + 20, wide);
      for (const CarryOp& op : kOps) {
        auto [val, flag] = run_op(op, type, a, b, c);
        for (unsigned l = 0; l < 32; ++l) {
          auto [rv, rf] = reference(op, wide ? 64 : 32, sgn, a[l], b[l], c[l], l & 1);
          INFO(op.name << "." << type << " lane " << l << " a " << a[l] << " b " << b[l] << " c " << c[l]);
          CHECK(val[l] == rv);
          CHECK(flag[l] == uint64_t(rf));
        }
      }
    }
  }
}

TEST_CASE("PTX carry chains: 128-bit add/sub from 32-bit pieces, 64x64->128 and 128x64->192 multiplies", "[ptx][inst][carry]") {
  // X = rb:ra and Y = rc:rb (128 bits each): every limb pair is free, so lanes carry out of any limb.
  std::vector<uint64_t> a = lane_values(7, true), b = lane_values(8, true), c = lane_values(9, true);
  a[0] = ~uint64_t{0}, b[0] = 1, c[0] = 0;                    // a carry that ripples through three limbs
  a[1] = 0, b[1] = 0, c[1] = 0;                               // a borrow through every limb
  a[2] = 0xFFFFFFFF00000000, b[2] = 0x00000000FFFFFFFF, c[2] = ~uint64_t{0};
  const std::string limbs = R"(
  mov.b64 {%r0, %r1}, %ra;
  mov.b64 {%r2, %r3}, %rb;
  mov.b64 {%r4, %r5}, %rc;
)";
  auto add128 = [&](bool sub, bool hi) {
    std::string o = sub ? "sub" : "add";
    std::string body = limbs + fmt::format(R"(
  {0}.cc.u32 %r6, %r0, %r2;
  {0}c.cc.u32 %r7, %r1, %r3;
  {0}c.cc.u32 %r8, %r2, %r4;
  {0}c.u32 %r9, %r3, %r5;
  mov.b64 %o, {{{1}}};
)", o, hi ? "%r8, %r9" : "%r6, %r7");
    return run_lanes(body, a, b, c);
  };
  // (a1:a0) * (b1:b0) from 32-bit pieces, schoolbook with the carries of mad.lo.cc/madc.hi.
  const std::string mul64 = limbs + R"(
  mul.lo.u32 %r6, %r0, %r2;
  mul.hi.u32 %r7, %r0, %r2;
  mad.lo.cc.u32 %r7, %r0, %r3, %r7;
  madc.hi.u32 %r8, %r0, %r3, 0;
  mad.lo.cc.u32 %r7, %r1, %r2, %r7;
  madc.hi.cc.u32 %r8, %r1, %r2, %r8;
  madc.hi.u32 %r9, %r1, %r3, 0;
  mad.lo.cc.u32 %r8, %r1, %r3, %r8;
  addc.u32 %r9, %r9, 0;
)";
  // (rb:ra) * rc from 64-bit pieces: 192 bits.
  const std::string mul192 = R"(
  mul.lo.u64 %rd1, %ra, %rc;
  mul.hi.u64 %rd2, %ra, %rc;
  mad.lo.cc.u64 %rd2, %rb, %rc, %rd2;
  madc.hi.u64 %rd3, %rb, %rc, 0;
)";
  auto s_lo = add128(false, false), s_hi = add128(false, true), d_lo = add128(true, false), d_hi = add128(true, true);
  auto p_lo = run_lanes(mul64 + "mov.b64 %o, {%r6, %r7};", a, b, c);
  auto p_hi = run_lanes(mul64 + "mov.b64 %o, {%r8, %r9};", a, b, c);
  auto q0 = run_lanes(mul192 + "mov.b64 %o, %rd1;", a, b, c);
  auto q1 = run_lanes(mul192 + "mov.b64 %o, %rd2;", a, b, c);
  auto q2 = run_lanes(mul192 + "mov.b64 %o, %rd3;", a, b, c);
  for (unsigned l = 0; l < 32; ++l) {
    INFO("lane " << l << " a " << a[l] << " b " << b[l] << " c " << c[l]);
    u128 x = u128(b[l]) << 64 | a[l], y = u128(c[l]) << 64 | b[l];
    u128 s = x + y, d = x - y, p = u128(a[l]) * b[l];
    CHECK(s_lo[l] == uint64_t(s));
    CHECK(s_hi[l] == uint64_t(s >> 64));
    CHECK(d_lo[l] == uint64_t(d));
    CHECK(d_hi[l] == uint64_t(d >> 64));
    CHECK(p_lo[l] == uint64_t(p));
    CHECK(p_hi[l] == uint64_t(p >> 64));
    u128 lo = u128(a[l]) * c[l], hi = u128(b[l]) * c[l] + (lo >> 64);
    CHECK(q0[l] == uint64_t(lo));
    CHECK(q1[l] == uint64_t(hi));
    CHECK(q2[l] == uint64_t(hi >> 64));
  }
}

TEST_CASE("PTX carry flag: per thread, kept across other instructions, one slot per function", "[ptx][inst][carry]") {
  // Odd lanes carry; a setp and a plain add in between leave the flag alone.
  std::string body = R"(
  and.b32 %r1, %lane, 1;
  add.cc.u32 %r2, %r1, 0xFFFFFFFF;
  setp.eq.u32 %p1, %r1, 0;
  add.u32 %r3, %r1, 0xFFFFFFFF;
  addc.u32 %r4, 0, 0;
  cvt.u64.u32 %o, %r4;
)";
  auto r = run_lanes(body, std::vector<uint64_t>(32, 0));
  for (unsigned l = 0; l < 32; ++l) CHECK(r[l] == (l & 1));
  // The assembler reserves one predicate slot after the declared ones, whatever the number of uses.
  auto img = ptx::assemble_text(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  add.cc.u32 %r1, %r2, %r3;
  addc.cc.u32 %r1, %r2, %r3;
  subc.u32 %r1, %r2, %r3;
  ret;
}
)", "k.ptx", {});
  CHECK(img.kernels[0].num_preds == 4);
}

TEST_CASE("PTX carry flag: registered with the predicates (gpu.smN.preds), so faults can reach it", "[ptx][inst][carry]") {
  // The kernel declares %p0..%p1; the carry is slot 2. Odd lanes carry out of their add.cc.
  Dev d(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u32 unused)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %laneid;
  and.b32 %r1, %r1, 1;
  add.cc.u32 %r2, %r1, 0xFFFFFFFF;
  ret;
}
)");
  REQUIRE(d.img.kernels[0].num_preds == 3);
  uint64_t word = 0;
  d.inspect = [&](SimtCore& core) {
    Registry reg;
    core.register_state(reg, "sm");
    word = reg.read("sm.preds", 2);  // warp 0's predicate slot 2
  };
  REQUIRE(d.launch("k", {1}, {32}, uint32_t(0)));
  CHECK(word == 0xAAAAAAAAu);
}
