// Device printf through `gpuvp exec`: nvcc's vprintf calls (tests/data/exec/printf.cu) print on the
// host's stdout when the kernel is synchronised, in block order, then thread order, each thread's
// lines as it printed them; the text is compared with the host's snprintf of the same formats and
// values. Bad pointers (tests/data/exec/printf_bad.cu) are device errors naming the address.
#include <catch2/catch.hpp>

#include <cstdarg>
#include <cstdio>

#include "exec_util.h"

using namespace exectest;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string cformat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string cformat(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// The three lines thread t of block b prints (printf.cu, blocks of `bd` threads).
std::string lines_of(int b, int t, int bd) {
  int i = b * bd + t;
  const char* names[] = {"zero", "one", "two"};
  std::string s = cformat("[%d.%d] int %d %+5i|%-4d| unsigned %u hex %#x %X oct %o\n", b, t, -7 * i - 1, i, i,
                          4000000000u - unsigned(i), 255 * i + 1, 4096 * i + 10, 8 * i + 5);
  s += cformat("[%d.%d] ll %lld %llu %llx double %.3f %e %g float %8.2f char %c%c str %s|%-6s|%5.2s %% done\n", b, t,
               -(1LL << 40) - i, 18446744073709551615ull - unsigned(i), 0xABCDEF0123ull + unsigned(i),
               3.14159 * (i + 1), 1e-5 * (i + 1), 0.5 / (i + 1), double(1.25f * float(i)), 'A' + i, 'z', names[i % 3],
               "ab", "xyz");
  s += t == 0 ? cformat("block %s\n", b ? "one ends" : "zero ends") : std::string("no arguments\n");
  return s;
}

}  // namespace

TEST_CASE("exec printf: every conversion from the even threads of two blocks, in block and thread order",
          "[exec][printf]") {
  Outs outs;
  const int grid = 2, block = 6, n = grid * block;
  std::string fo = outs("ret.bin");
  // two SMs run the blocks concurrently: the order printed does not depend on which finishes first
  RunResult r = exec_ok(fmt::format("--preset tx2 --set sm.count=2 --ptx {} --kernel print_values --grid {} --block {} "
                                    "--arg buf:i32:{}:out={}",
                                    ptx_of("printf"), grid, block, 3 * n, fo));
  std::string want;
  for (int b = 0; b < grid; ++b)
    for (int t = 0; t < block; t += 2) want += lines_of(b, t, block);
  REQUIRE(r.out.size() > want.size());
  CHECK(r.out.substr(0, want.size()) == want);
  CHECK_THAT(r.out.substr(want.size()), StartsWith("print_values on tx2"));
  auto ret = read_bin<int32_t>(fo, size_t(3 * n));
  for (int i = 0; i < n; ++i) {
    INFO("thread " << i);
    bool prints = i % block % 2 == 0;
    CHECK(ret[size_t(3 * i)] == (prints ? 9 : 0));  // printf returns the number of arguments
    CHECK(ret[size_t(3 * i + 1)] == (prints ? 14 : 0));
    CHECK(ret[size_t(3 * i + 2)] == (prints ? (i % block == 0 ? 1 : 0) : 0));
  }
}

TEST_CASE("exec printf: a null format prints nothing and returns -1", "[exec][printf]") {
  Outs outs;
  std::string fo = outs("ret.bin");
  RunResult r = exec_ok(fmt::format("--preset tx2 --ptx {} --kernel print_fmt --grid 1 --block 3 --arg u64:0 "
                                    "--arg buf:i32:3:out={}",
                                    ptx_of("printf_bad"), fo));
  CHECK_THAT(r.out, StartsWith("print_fmt on tx2"));
  CHECK(read_bin<int32_t>(fo, 3) == std::vector<int32_t>{-1, -1, -1});
}

TEST_CASE("exec printf: a format or %s pointer outside every memory is a device error naming it", "[exec][printf]") {
  RunResult r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {} --kernel print_fmt --grid 1 --block 2 "
                                      "--arg u64:0x300000000 --arg buf:i32:2",
                                      ptx_of("printf_bad")));
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("device error: kernel print_fmt"));
  CHECK_THAT(r.err, Contains("printf format string at 0x300000000 is outside every memory"));
  CHECK_THAT(r.err, Contains("lane 0"));
  r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {} --kernel print_str --grid 1 --block 1 --arg u64:0x5fffffff0",
                            ptx_of("printf_bad")));
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("printf string at 0x5fffffff0 is outside every memory"));
  CHECK(r.out.empty());  // nothing was printed before the error
}

TEST_CASE("exec printf: a FIFO of host.printf_fifo_bytes keeps the first lines that fit and counts the rest",
          "[exec][printf]") {
  // One block of 6 threads on one SM: the warp's three printf calls arrive call by call, each in lane
  // order: line 1 of threads 0, 2, 4, then line 2 of 0, 2, 4, then line 3. A FIFO of the three first
  // lines, line 2 of thread 0 and 5 bytes more keeps those four; the other five lines (13 bytes or
  // more each) are dropped.
  std::string first[3], second[3], third[3];
  for (int k = 0; k < 3; ++k) {
    const std::string all = lines_of(0, 2 * k, 6);
    const size_t a = all.find('\n') + 1, b = all.find('\n', a) + 1;
    first[k] = all.substr(0, a), second[k] = all.substr(a, b - a), third[k] = all.substr(b);
  }
  const size_t fifo = first[0].size() + first[1].size() + first[2].size() + second[0].size() + 5;
  Outs outs;
  RunResult r = exec_ok(fmt::format("--preset tx2 --set sm.count=1 --set host.printf_fifo_bytes={} --ptx {} "
                                    "--kernel print_values --grid 1 --block 6 --arg buf:i32:18:out={}",
                                    fifo, ptx_of("printf"), outs("ret.bin")));
  const std::string want = first[0] + second[0] + first[1] + first[2] +
                           fmt::format("gpuvp: device printf FIFO full ({} bytes): 5 lines dropped "
                                       "(host.printf_fifo_bytes sets its size)\n", fifo);
  CHECK(r.out.substr(0, want.size()) == want);
  CHECK_THAT(r.out.substr(want.size()), StartsWith("print_values on tx2"));
}
