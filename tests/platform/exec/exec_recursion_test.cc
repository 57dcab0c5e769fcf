// Recursive __device__ functions compiled by nvcc (tests/data/exec/recursion.cu) through `gpuvp exec`,
// on the default preset and on flexgrip (its own SM timing path): self and mutual recursion whose
// depth depends on each thread's data, quicksort and a tree sum on per-thread arrays, printf at every
// level, and a recursion deeper than the call stack, a stack overflow error. The expected values are
// computed here by the same recursions on the CPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "exec_util.h"

using namespace exectest;
using Catch::Matchers::Contains;

namespace {

const char* const kPresets[] = {"", "--preset flexgrip "};

unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
uint64_t binom(unsigned n, unsigned r) { return r == 0 || r == n ? 1 : binom(n - 1, r - 1) + binom(n - 1, r); }
unsigned chain(unsigned d, unsigned seed) {
  unsigned v[4];
  for (unsigned j = 0; j < 4; ++j) v[j] = seed * (j + 3) + d;
  if (d == 0) return v[seed & 3];
  unsigned r = chain(d - 1, seed * 7 + 1);
  return (r * 31u) ^ v[(r + d) & 3];
}

// Bytes per activation of a recursive function, from `gpuvp disasm`.
unsigned frame_of(const std::string& func) {
  RunResult r = run_gpuvp("disasm " + ptx_of("recursion"));
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("// func " + func + ": recursive, ([0-9]+) bytes per call")));
  return unsigned(std::stoul(m[1]));
}

}  // namespace

TEST_CASE("exec recursion: fib, binomials and mutual recursion to data-dependent depths", "[exec][recursion]") {
  const unsigned n = 96;
  std::vector<uint32_t> depth(n);
  for (unsigned i = 0; i < n; ++i) depth[i] = (i * 7 + i / 32) % 31;  // lanes of a warp at different depths
  for (const char* preset : kPresets) {
    INFO(preset);
    Outs outs;
    std::string fo = outs("numbers.bin");
    exec_ok(fmt::format("{}--ptx {} --kernel numbers --grid 3 --block 32 --arg buf:u32:{}:out={} --arg buf:u32:{}:file={}",
                        preset, ptx_of("recursion"), 4 * n, fo, n, write_bin(outs, "depth.bin", depth)));
    auto out = read_bin<uint32_t>(fo, 4 * n);
    for (unsigned i = 0; i < n; ++i) {
      INFO("thread " << i << ", depth " << depth[i]);
      const unsigned k = depth[i];
      const uint64_t b = binom(k % 17, k % 17 / 3);
      CHECK(out[4 * i] == fib(k % 16));
      CHECK(out[4 * i + 1] == uint32_t(b));
      CHECK(out[4 * i + 2] == uint32_t(b >> 32));
      CHECK(out[4 * i + 3] == (k % 2 ? 1u : 2u));
    }
  }
}

TEST_CASE("exec recursion: quicksort and a tree sum of each thread's local array", "[exec][recursion]") {
  const unsigned n = 64;
  std::vector<int32_t> in(12 * n);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = int32_t((i * 2654435761u) % 2001) - 1000;
  for (const char* preset : kPresets) {
    INFO(preset);
    Outs outs;
    std::string fo = outs("sorted.bin");
    exec_ok(fmt::format("{}--ptx {} --kernel sort_sum --grid 2 --block 32 --arg buf:i32:{}:out={} --arg buf:i32:{}:file={}",
                        preset, ptx_of("recursion"), 13 * n, fo, in.size(), write_bin(outs, "in.bin", in)));
    auto out = read_bin<int32_t>(fo, 13 * n);
    for (unsigned i = 0; i < n; ++i) {
      INFO("thread " << i);
      std::vector<int32_t> a(in.begin() + 12 * i, in.begin() + 12 * (i + 1));
      std::sort(a.begin(), a.end());
      CHECK(std::vector<int32_t>(out.begin() + 13 * i, out.begin() + 13 * i + 12) == a);
      int32_t sum = 0;
      for (int32_t v : a) sum += v;
      CHECK(out[13 * i + 12] == sum);
    }
  }
}

TEST_CASE("exec recursion: printf at every level, in thread order", "[exec][recursion]") {
  const unsigned n = 8;
  std::vector<int32_t> levels{3, 0, 5, 2, 0, 1, 4, 7};
  for (const char* preset : kPresets) {
    INFO(preset);
    Outs outs;
    std::string fo = outs("sums.bin");
    RunResult r = exec_ok(fmt::format("{}--ptx {} --kernel print_levels --grid 1 --block {} --arg buf:i32:{}:out={} "
                                      "--arg buf:i32:{}:file={}",
                                      preset, ptx_of("recursion"), n, n, fo, n, write_bin(outs, "levels.bin", levels)));
    std::string want;
    for (unsigned t = 0; t < n; t += 2)
      for (int l = 1, below = 0; l <= levels[t]; below += l, ++l)
        want += fmt::format("thread {} level {} below {}\n", t, l, below);
    CHECK(r.out.substr(0, want.size()) == want);
    auto sums = read_bin<int32_t>(fo, n);
    for (unsigned t = 0; t < n; ++t) CHECK(sums[t] == (t % 2 ? -1 : levels[t] * (levels[t] + 1) / 2));
  }
}

TEST_CASE("exec recursion: exactly as deep as the call stack holds, and one deeper is a stack overflow",
          "[exec][recursion]") {
  // chain(d) takes d + 1 activations; the kernel's static frames come before the stack.
  const unsigned fits = 4096 / frame_of("chain") - 1;
  for (const char* preset : kPresets) {
    INFO(preset);
    Outs outs;
    std::string fo = outs("deep.bin");
    auto args = [&](unsigned depth) {
      return fmt::format("exec {}--set sm.stack_bytes=4096 --ptx {} --kernel deep --grid 1 --block 32 "
                         "--arg buf:u32:32:out={} --arg u32:{}",
                         preset, ptx_of("recursion"), fo, depth);
    };
    RunResult r = run_gpuvp(args(fits));
    INFO(r.err);
    REQUIRE(r.status == 0);
    auto out = read_bin<uint32_t>(fo, 32);
    for (unsigned i = 0; i < 32; ++i) CHECK(out[i] == chain(fits, i));
    r = run_gpuvp(args(fits + 1));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Contains("device error: kernel deep") && Contains("in function chain") &&
                          Contains("stack error: stack overflow") && Contains("the call stack: sm.stack_bytes"));
  }
}
