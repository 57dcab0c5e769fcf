// nvcc -O3 output of extended-precision arithmetic (tests/data/exec/extprec.cu) through `gpuvp exec`:
// 128-bit add, subtract and multiply (carry chains of add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi)
// against unsigned __int128, and double sin/cos (libdevice; its Payne-Hanek reduction of large
// arguments multiplies with mad.lo.cc/madc) against std::sin/std::cos within 2 ulps.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "exec_util.h"

using namespace exectest;

namespace {

using u128 = unsigned __int128;

// 64-bit limbs that carry or borrow out of every 32- and 64-bit position, mixed with random ones.
std::vector<uint64_t> limbs(size_t n, uint64_t seed) {
  const uint64_t edges[] = {0, 1, ~uint64_t{0}, ~uint64_t{1}, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF,
                            0xFFFFFFFF00000000, 0x00000000FFFFFFFF, 0x0000000100000000};
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) {
    uint64_t r = rng();
    x = r % 2 ? edges[(r >> 8) % 9] : rng();
  }
  return v;
}

std::string run_extprec(const std::string& kernel, int n, const std::string& args) {
  return exec_ok(fmt::format("--preset tx2 --ptx {} --kernel {} --grid {} --block 64 {} --arg i32:{}", ptx_of("extprec"),
                             kernel, (n + 63) / 64, args, n))
      .out;
}

// Distance in units in the last place between two finite doubles (their ordered bit patterns).
int64_t ulps(double a, double b) {
  auto key = [](double d) {
    int64_t k;
    std::memcpy(&k, &d, 8);
    return k < 0 ? std::numeric_limits<int64_t>::min() - k : k;
  };
  return std::abs(key(a) - key(b));
}

}  // namespace

TEST_CASE("exec extprec: 128-bit add, subtract and multiply against unsigned __int128", "[exec][extprec]") {
  Outs outs;
  const int n = 300;
  auto a = limbs(2 * n, 1), b = limbs(2 * n, 2);
  std::string fa = write_bin(outs, "a.bin", a), fb = write_bin(outs, "b.bin", b), fs = outs("s.bin"), fp = outs("p.bin");
  std::string in = fmt::format("--arg buf:u64:{0}:file={1} --arg buf:u64:{0}:file={2}", 2 * n, fa, fb);
  run_extprec("addsub128", n, fmt::format("{} --arg buf:u64:{}:out={}", in, 4 * n, fs));
  run_extprec("mul128", n, fmt::format("{} --arg buf:u64:{}:out={}", in, 2 * n, fp));
  auto s = read_bin<uint64_t>(fs, size_t(4 * n));
  auto p = read_bin<uint64_t>(fp, size_t(2 * n));
  for (size_t i = 0; i < size_t(n); ++i) {
    u128 x = u128(a[2 * i + 1]) << 64 | a[2 * i], y = u128(b[2 * i + 1]) << 64 | b[2 * i];
    u128 sum = x + y, diff = x - y, prod = x * y;
    INFO("element " << i << " a " << a[2 * i + 1] << ":" << a[2 * i] << " b " << b[2 * i + 1] << ":" << b[2 * i]);
    CHECK(s[4 * i] == uint64_t(sum));
    CHECK(s[4 * i + 1] == uint64_t(sum >> 64));
    CHECK(s[4 * i + 2] == uint64_t(diff));
    CHECK(s[4 * i + 3] == uint64_t(diff >> 64));
    CHECK(p[2 * i] == uint64_t(prod));
    CHECK(p[2 * i + 1] == uint64_t(prod >> 64));
  }
}

TEST_CASE("exec extprec: double sin/cos within 2 ulps of std::sin/std::cos, large arguments included", "[exec][extprec]") {
  Outs outs;
  std::vector<double> x = {0.0, -0.0, 1e-300, 1e-10, 0.5, 1.0, 0.7853981633974483, 3.141592653589793, -3.0, 100.0,
                           -1000.5, 12345.678, 1e6, 2.5e8, 1073741824.0, 1e10, -1e15, 1e22, 3.5e50, 1e100, -1e200,
                           1e300, 1.7976931348623157e308};
  std::mt19937_64 rng(5);
  while (x.size() < 256) {  // random signs, mantissas and exponents from 2^-20 to 2^1000
    double m = std::ldexp(double(rng() >> 11), -53) + 0.5;
    int e = int(rng() % 1020) - 20;
    x.push_back((rng() & 1 ? -1.0 : 1.0) * std::ldexp(m, e));
  }
  const int n = int(x.size());
  std::string fx = write_bin(outs, "x.bin", x), fs = outs("s.bin"), fc = outs("c.bin");
  run_extprec("dsincos", n,
              fmt::format("--arg buf:f64:{0}:file={1} --arg buf:f64:{0}:out={2} --arg buf:f64:{0}:out={3}", n, fx, fs, fc));
  auto s = read_bin<double>(fs, size_t(n));
  auto c = read_bin<double>(fc, size_t(n));
  for (size_t i = 0; i < size_t(n); ++i) {
    INFO("x = " << fmt::format("{:.17g}", x[i]) << " sin " << fmt::format("{:.17g}", s[i]) << " cos "
                << fmt::format("{:.17g}", c[i]));
    CHECK(ulps(s[i], std::sin(x[i])) <= 2);
    CHECK(ulps(c[i], std::cos(x[i])) <= 2);
  }
}

TEST_CASE("exec extprec: sin/cos of infinities and NaN are NaN", "[exec][extprec]") {
  Outs outs;
  std::vector<double> x = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  std::string fx = write_bin(outs, "x.bin", x), fs = outs("s.bin"), fc = outs("c.bin");
  run_extprec("dsincos", 3, fmt::format("--arg buf:f64:3:file={} --arg buf:f64:3:out={} --arg buf:f64:3:out={}", fx, fs, fc));
  auto s = read_bin<double>(fs, 3);
  auto c = read_bin<double>(fc, 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(std::isnan(s[i]));
    CHECK(std::isnan(c[i]));
  }
}
