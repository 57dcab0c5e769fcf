// nvcc -O3 output of __vabsdiffu4, __vsadu4 and __vabsdiffs4 (tests/data/exec/vabsdiff.cu:
// vabsdiff4.u32.u32.u32 with and without .add) through `gpuvp exec`, against byte arithmetic here.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "exec_util.h"

using namespace exectest;
using gpuvp::exec::random_values;

TEST_CASE("exec vabsdiff: __vabsdiffu4, __vsadu4 and __vabsdiffs4 byte by byte", "[exec][vabsdiff]") {
  Outs outs;
  const int n = 1000;
  std::string fo = outs("o.bin");
  exec_ok(fmt::format("--preset tx2 --ptx {0} --kernel vabsdiff --grid 4 --block 256 --arg buf:u32:{1}:rand=21 "
                      "--arg buf:u32:{1}:rand=22 --arg buf:u32:{2}:out={3} --arg i32:{1}",
                      ptx_of("vabsdiff"), n, 3 * n, fo));
  auto a = random_values<uint32_t>("u32", uint64_t(n), 21), b = random_values<uint32_t>("u32", uint64_t(n), 22);
  auto o = read_bin<uint32_t>(fo, size_t(3 * n));
  for (size_t i = 0; i < size_t(n); ++i) {
    uint32_t du = 0, sad = 0, ds = 0;
    for (unsigned k = 0; k < 4; ++k) {
      int x = int((a[i] >> (8 * k)) & 0xFF), y = int((b[i] >> (8 * k)) & 0xFF);
      int sx = int(int8_t(uint8_t(x))), sy = int(int8_t(uint8_t(y)));
      du |= uint32_t(std::abs(x - y)) << (8 * k);
      sad += uint32_t(std::abs(x - y));
      ds |= uint32_t(std::abs(sx - sy)) << (8 * k);
    }
    INFO("element " << i << " a " << a[i] << " b " << b[i]);
    CHECK(o[3 * i] == du);
    CHECK(o[3 * i + 1] == sad);
    CHECK(o[3 * i + 2] == ds);
  }
}
