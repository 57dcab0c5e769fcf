// match.any.sync / match.all.sync (b32, b64) through PTX on the SIMT core, against lane masks
// computed in C++: full warp, diverged (guarded) warps with partial membermasks, 64-bit values that
// differ only in their high half.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

// Lanes of `act` holding the same value as lane l.
uint32_t same_as(const std::vector<uint64_t>& v, unsigned l, uint32_t act) {
  uint32_t m = 0;
  for (unsigned j = 0; j < 32; ++j)
    if ((act >> j) & 1 && v[j] == v[l]) m |= 1u << j;
  return m;
}

// match.any/all on `reg` (%a or %ra) with membermask `mask`, executed by lanes `lanes` (guard).
std::vector<uint64_t> run_match(const char* mode, const char* type, const char* reg, uint32_t mask, uint32_t lanes,
                                const std::vector<uint64_t>& a) {
  std::string pd = std::string(mode) == "all" ? "|%p2" : "";
  std::string body = fmt::format(R"(
  mov.u32 %r2, 0;
  shr.b32 %r3, {0}, %lane;
  and.b32 %r3, %r3, 1;
  setp.ne.u32 %p1, %r3, 0;
  setp.eq.u32 %p2, %r2, 1;
  @%p1 match.{1}.sync.{2} %r1{3}, {4}, {5};
  selp.u32 %r4, 1, 0, %p2;
  mov.b64 %o, {{%r1, %r4}};
)", lanes, mode, type, pd, reg, mask);
  body = "mov.u32 %r1, 0xDEAD;\n" + body;
  return run_lanes(body, a, a);
}

}  // namespace

TEST_CASE("PTX match.any/all.sync on b32 and b64, full and partial masks, diverged warp", "[ptx][inst][match]") {
  std::mt19937_64 rng(12);
  std::vector<uint64_t> few(32), equal(32, 0x1234567800000005), hi_only(32);
  for (unsigned l = 0; l < 32; ++l) {
    few[l] = rng() % 3;
    hi_only[l] = (rng() % 2) << 40 | 5;  // same low 32 bits
  }
  struct Case {
    const char* name;
    const std::vector<uint64_t>& v;
    uint32_t mask, lanes;
  } cases[] = {{"few values", few, ~0u, ~0u},
               {"all equal", equal, ~0u, ~0u},
               {"high halves", hi_only, ~0u, ~0u},
               {"diverged, membermask = active lanes", equal, 0x0000FFFF, 0x0000FFFF},
               {"diverged, few values", few, 0xF0F0F0F0, 0xF0F0F0F0},
               {"membermask a subset of the active lanes", few, 0x00FF00FF, 0x00FF00FF | 0x0F000000}};
  for (const Case& k : cases) {
    for (bool wide : {false, true}) {
      const char* type = wide ? "b64" : "b32";
      const char* reg = wide ? "%ra" : "%a";
      auto any = run_match("any", type, reg, k.mask, k.lanes, k.v);
      auto all = run_match("all", type, reg, k.mask, k.lanes, k.v);
      uint32_t act = k.mask & k.lanes;
      std::vector<uint64_t> v = k.v;
      if (!wide)
        for (auto& x : v) x &= 0xFFFFFFFF;
      bool uniform = act && same_as(v, unsigned(__builtin_ctz(act)), act) == act;
      for (unsigned l = 0; l < 32; ++l) {
        INFO(k.name << " " << type << " lane " << l);
        if (!((k.lanes >> l) & 1)) {  // guarded off: destination untouched, predicate still false
          CHECK(any[l] == 0xDEAD);
          CHECK(all[l] == 0xDEAD);
          continue;
        }
        if (!((act >> l) & 1)) continue;  // a lane outside its membermask: undefined in PTX
        CHECK(any[l] == same_as(v, l, act));
        CHECK(all[l] == ((uniform ? uint64_t(act) : 0) | uint64_t(uniform) << 32));
      }
    }
  }
}
