// A fault in an instruction-cache line reaches the kernel as the hardware would deliver it (docs/caches.md,
// "Registered state"; models/sm/instruction_buffer.h). On tx2 one thread runs a loop whose first
// instruction is `add.u32 %r1, %r1, 0x1234` (docs/isa-encoding.md: three header words, a descriptor per
// operand, the immediate in the word after its descriptor) and stores the running sum each iteration,
// out[i] = the sum of the first i + 1 increments. A bit is flipped through the registry in SM 0's
// instruction-cache copy of that instruction while the loop runs, although the instruction buffer holds
// the line and its decoded instructions:
//  - bit 1 of the immediate word: the next iterations add 0x1236 (a different valid instruction);
//  - bit 0 of the first word (the magic nibble 0xB becomes 0xA): undecodable, a device error;
//  - bit 1 of the immediate once the kernel has finished: the next launch's first block invalidates the
//    cache and refills the line, which loses the fault.
#include <catch2/catch.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "sw/isa/encoding.h"

using namespace gpuvp;

namespace {
const char* kLoopPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry sumloop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 0;
  mov.u32 %r2, 0;
$L_loop:
  add.u32 %r1, %r1, 4660;
  st.global.u32 [%rd2], %r1;
  add.s64 %rd2, %rd2, 4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 64;
  @%p1 bra $L_loop;
  ret;
}
)";
constexpr unsigned kIters = 64;
constexpr uint32_t kInc = 0x1234;
constexpr unsigned kImmWord = 6;  // the immediate's word in the add: 3 header words, 3 descriptors

// `add.u32 %r1, %r1, 0x1234` in the module's code, found by decoding the kernel's instructions from
// its entry (the assembler's output, not the SM's): its address and encoded words.
struct AddInst {
  uint64_t pc = 0;
  std::vector<uint32_t> words;
};
AddInst find_add(const ptx::Image& img) {
  const ptx::KernelInfo* k = img.find_kernel("sumloop");
  REQUIRE(k);
  for (uint64_t pc = k->entry; pc < k->end;) {
    const uint8_t* at = img.code.data() + (pc - img.layout.code_base);
    isa::Inst in;
    REQUIRE(isa::decode(at, k->end - pc, in, nullptr));
    if (in.op == isa::Opcode::Add && in.nops == 3 && in.ops[2].kind == isa::OpKind::Imm && in.ops[2].imm == kInc) {
      REQUIRE(in.size == 4 * (kImmWord + 1));
      AddInst a{pc, std::vector<uint32_t>(kImmWord + 1)};
      std::memcpy(a.words.data(), at, in.size);
      return a;
    }
    pc += in.size;
  }
  FAIL("no add of 0x1234 in the kernel");
  return {};
}

// The index in gpu.sm0.icache.data of the add's first word, when the cache holds the instruction
// (all of it, in one line: 32 words of 128 bytes).
std::optional<uint64_t> cached_add(Registry& r, const std::vector<uint32_t>& words) {
  const uint64_t n = r.at("gpu.sm0.icache.data").count;
  for (uint64_t i = kImmWord; i < n; ++i) {
    if (r.read("gpu.sm0.icache.data", i) != kInc) continue;
    const uint64_t first = i - kImmWord;
    REQUIRE(first / 32 == i / 32);
    for (unsigned k = 0; k < words.size(); ++k) REQUIRE(r.read("gpu.sm0.icache.data", first + k) == words[k]);
    return first;
  }
  return std::nullopt;
}

struct Outcome {
  std::vector<uint32_t> out1, out2;          // the two launches' outputs
  std::optional<DeviceErrorInfo> error;      // a device error the host caught
  AddInst add;
};

enum class When { Running, Finished };

// Runs sumloop twice (out1, out2) and flips `bit` of word `word` of the add in SM 0's instruction cache
// while the first launch runs (once the cache holds the instruction) or once it has finished.
Outcome run_flipping(unsigned word, unsigned bit, When when) {
  Platform p(Config::preset("tx2"));
  Outcome o;
  p.start([&](rt::Runtime& rt) {
    auto m = rt.load_module(kLoopPtx, "sumloop.ptx");
    o.add = find_add(*m.image);
    for (std::vector<uint32_t>* out : {&o.out1, &o.out2}) {
      const rt::DevPtr d = rt.malloc(4 * kIters);
      rt.memset(d, 0, 4 * kIters);
      rt::KernelArgs a;
      a.ptr(d);
      try {
        rt.launch(m, "sumloop", {1}, {1}, a);
        rt.synchronize();
      } catch (const DeviceError& e) {
        o.error = e.info();
        return;
      }
      out->resize(kIters);
      rt.memcpy_d2h(out->data(), d, 4 * kIters);
    }
  });
  uint64_t t = 0;
  std::optional<uint64_t> first;
  const auto ready = [&] {
    if (o.add.words.empty() || (when == When::Finished && p.kernel_windows().empty())) return false;
    return (first = cached_add(p.registry(), o.add.words)).has_value();
  };
  while (!ready()) REQUIRE(p.advance_to(t += 10000));  // 10 ns steps
  // Still the first launch (running or just finished): the second has not invalidated the cache.
  REQUIRE(p.kernel_windows().size() == (when == When::Running ? 0u : 1u));
  p.registry().flip("gpu.sm0.icache.data", bit, *first + word);
  try {
    p.finish();
  } catch (const DeviceError& e) {  // sticky, as CUDA's: the host program's end sees it again
    REQUIRE(o.error);
    CHECK(e.info().message == o.error->message);
  }
  return o;
}

// out[i] when iterations 0 .. k-1 add kInc and the later ones `faulty`.
std::vector<uint32_t> sums(unsigned k, uint32_t faulty) {
  std::vector<uint32_t> v(kIters);
  uint32_t s = 0;
  for (unsigned i = 0; i < kIters; ++i) v[i] = s += i < k ? kInc : faulty;
  return v;
}

// The iterations that added kInc before the first that did not.
unsigned clean_iterations(const std::vector<uint32_t>& out) {
  unsigned k = 0;
  while (k < out.size() && out[k] == kInc * (k + 1)) ++k;
  return k;
}
}  // namespace

TEST_CASE("code cache fault: a flipped immediate in a cached instruction changes the later iterations") {
  const Outcome o = run_flipping(kImmWord, 1, When::Running);
  REQUIRE_FALSE(o.error);
  // The flip lands while the loop runs: some iterations are left, and every one of them adds 0x1236.
  const unsigned k = clean_iterations(o.out1);
  CHECK(k < kIters);
  CHECK(o.out1 == sums(k, kInc ^ 2u));
  // The second launch refills the line from the L2: the fault is gone.
  CHECK(o.out2 == sums(kIters, kInc));
}

TEST_CASE("code cache fault: a flip after the last fetch is lost when the next launch refills the line") {
  const Outcome o = run_flipping(kImmWord, 1, When::Finished);
  REQUIRE_FALSE(o.error);
  CHECK(o.out1 == sums(kIters, kInc));
  CHECK(o.out2 == sums(kIters, kInc));
}

TEST_CASE("code cache fault: a flip that makes the instruction undecodable is a device error") {
  const Outcome o = run_flipping(0, 0, When::Running);
  REQUIRE(o.error);
  CHECK(o.error->kind == "decode");
  CHECK(o.error->sm == 0);
  CHECK(o.error->pc == o.add.pc);
  CHECK(o.error->message.find("bad magic") != std::string::npos);
  CHECK(o.out2.empty());
}
