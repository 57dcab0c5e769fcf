// Watched fetches (instruction_buffer.h): while the instruction cache's reads are recorded every fetch
// reads the instruction through the cache (CoreEnv::fetch_view); one repeating a fetch of the same pc
// under the same view key (the recording instant, the cache's changes), with no buffer line filled
// since, reads nothing again and returns the same instruction. The environment below counts the views
// and keeps its own copy of the code as "the cache's", so a changed view shows in the decode.
#include <catch2/catch.hpp>

#include "models/sm/instruction_buffer.h"
#include "sm_test_util.h"

using namespace smtest;
using gpuvp::sm::InstructionBuffer;

namespace {
struct ViewEnv : ArrayEnv {
  std::vector<uint8_t> cached;  // the cache's copy of code (as long as code), from kCode
  unsigned views = 0;
  ViewKey key{true, 1000, 0};
  void fetch_view(uint64_t addr, uint8_t* data, unsigned len) override {
    ++views;
    std::memcpy(data, cached.data() + (addr - kCode), len);
  }
  bool fetch_watched() const override { return true; }
  ViewKey fetch_view_key() override { return key; }
};

// mov r1, imm at kCode, then an exit; the buffer holds one line (8 instructions of 16 bytes).
struct Fixture {
  ViewEnv env;
  InstructionBuffer ib{8, env};
  uint64_t now = 0, fetches = 0;

  explicit Fixture(int64_t imm) {
    Prog p;
    p.add(Opcode::Mov, DType::U32, {R(1), I(imm)});
    p.add(Opcode::Exit, DType::None, {});
    const std::vector<uint8_t> bytes = p.encode();
    std::memcpy(env.code.data(), bytes.data(), bytes.size());
    env.cached = env.code;
    ib.new_launch();
  }
  // The immediate of the instruction fetched at pc (-1: no instruction).
  int64_t imm_at(uint64_t pc) {
    InstructionBuffer::Error err;
    bool validated = false;
    const Inst* in = ib.fetch(pc, now, fetches, err, validated);
    return in ? in->ops[1].imm : -1;
  }
};
}  // namespace

TEST_CASE("fetch view: a fetch repeated under the same view key reads through the cache once") {
  Fixture f(7);
  REQUIRE(f.imm_at(kCode) == 7);
  const unsigned first = f.env.views;
  CHECK(first >= 1);
  CHECK(f.imm_at(kCode) == 7);  // another warp, same instant, same cache
  CHECK(f.imm_at(kCode) == 7);
  CHECK(f.env.views == first);
  CHECK(f.fetches == 1);  // one line fetched, hit since
}

TEST_CASE("fetch view: a later instant, a changed cache, an unknown key or a line filled since read it again") {
  Fixture f(7);
  REQUIRE(f.imm_at(kCode) == 7);
  unsigned views = f.env.views;

  f.env.key.ps += 1;  // the same cache at a later instant: its reads are recorded again
  CHECK(f.imm_at(kCode) == 7);
  CHECK(f.env.views > views);
  views = f.env.views;

  // The cache's copy changed (a fault in its data): the changed count makes the fetch read it.
  Fixture g(7);
  const std::vector<uint8_t> changed = [] {
    Prog p;
    p.add(Opcode::Mov, DType::U32, {R(1), I(9)});
    p.add(Opcode::Exit, DType::None, {});
    return p.encode();
  }();
  REQUIRE(g.imm_at(kCode) == 7);
  std::memcpy(g.env.cached.data(), changed.data(), changed.size());
  CHECK(g.imm_at(kCode) == 7);  // same key: the view is taken as unchanged (the key is the contract)
  g.env.key.changes += 1;
  CHECK(g.imm_at(kCode) == 9);

  f.env.key.known = false;  // no key: every fetch reads through the cache
  CHECK(f.imm_at(kCode) == 7);
  CHECK(f.imm_at(kCode) == 7);
  CHECK(f.env.views >= views + 2);
  f.env.key.known = true;
  REQUIRE(f.imm_at(kCode) == 7);
  views = f.env.views;

  // A fetch in another line replaces the buffer's only line: the next fetch of kCode refills it.
  CHECK(f.imm_at(kCode + 4 * InstructionBuffer::kLine) == -1);  // zeroed code: no instruction there
  const uint64_t fetches = f.fetches;
  CHECK(f.imm_at(kCode) == 7);
  CHECK(f.fetches == fetches + 1);
  CHECK(f.env.views > views);
}
