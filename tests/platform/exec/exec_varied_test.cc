// nvcc -O3 output of varied kernel shapes (tests/data/exec/varied.cu) through `gpuvp exec`, against
// C++ references on the same seeded inputs: templates, 8/16-bit arithmetic, double precision,
// dynamically indexed local arrays, switch, warp shuffles/votes, shared-memory atomics, __ldg.
// Integers compare exactly (wrap-around arithmetic as the device does it); floats exactly where the
// reference applies the same fma contractions as the PTX, else within a few ulps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "exec_util.h"

using namespace exectest;
using gpuvp::exec::random_values;

namespace {

struct Launch {
  int grid, block, n;
};
const Launch kLaunches[] = {{4, 256, 1000}, {1, 32, 20}, {9, 64, 555}};

std::string run_varied(const std::string& kernel, const Launch& l, const std::string& args, const std::string& preset = "tx2") {
  return exec_ok(fmt::format("--preset {} --ptx {} --kernel {} --grid {} --block {} {}", preset, ptx_of("varied"), kernel,
                             l.grid, l.block, args))
      .out;
}

}  // namespace

TEST_CASE("exec varied: template instantiations axpb<int, float, double, unsigned short>", "[exec][varied]") {
  Outs outs;
  for (auto& l : kLaunches) {
    std::string fi = outs("i.bin"), ff = outs("f.bin"), fd = outs("d.bin"), fu = outs("u.bin");
    run_varied("_Z4axpbIiEvPKT_PS0_S0_S0_i", l,
               fmt::format("--arg buf:i32:{0}:rand=1 --arg buf:i32:{0}:out={1} --arg i32:-7 --arg i32:12345 --arg i32:{0}", l.n, fi));
    run_varied("_Z4axpbIfEvPKT_PS0_S0_S0_i", l,
               fmt::format("--arg buf:f32:{0}:rand=2 --arg buf:f32:{0}:out={1} --arg f32:1.5 --arg f32:-0.25 --arg i32:{0}", l.n, ff));
    run_varied("_Z4axpbIdEvPKT_PS0_S0_S0_i", l,
               fmt::format("--arg buf:f64:{0}:rand=3 --arg buf:f64:{0}:out={1} --arg f64:-3.75 --arg f64:0.125 --arg i32:{0}", l.n, fd));
    run_varied("_Z4axpbItEvPKT_PS0_S0_S0_i", l,
               fmt::format("--arg buf:u16:{0}:rand=4 --arg buf:u16:{0}:out={1} --arg u16:300 --arg u16:65531 --arg i32:{0}", l.n, fu));
    auto xi = random_values<uint32_t>("i32", uint64_t(l.n), 1);
    auto xf = random_values<float>("f32", uint64_t(l.n), 2);
    auto xd = random_values<double>("f64", uint64_t(l.n), 3);
    auto xu = random_values<uint16_t>("u16", uint64_t(l.n), 4);
    auto gi = read_bin<uint32_t>(fi, size_t(l.n));
    auto gf = read_bin<float>(ff, size_t(l.n));
    auto gd = read_bin<double>(fd, size_t(l.n));
    auto gu = read_bin<uint16_t>(fu, size_t(l.n));
    for (size_t i = 0; i < size_t(l.n); ++i) {
      INFO("n " << l.n << " element " << i);
      CHECK(gi[i] == uint32_t(-7) * xi[i] + 12345u);
      CHECK(gf[i] == std::fma(1.5f, xf[i], -0.25f));
      CHECK(gd[i] == std::fma(-3.75, xd[i], 0.125));
      CHECK(gu[i] == uint16_t(300 * int(xu[i]) + 65531));
    }
  }
}

TEST_CASE("exec varied: unsigned char / short / signed char arithmetic", "[exec][varied]") {
  Outs outs;
  for (auto& l : kLaunches) {
    std::string f8 = outs("d8.bin"), f16 = outs("d16.bin"), fs8 = outs("s8.bin");
    run_varied("bytes", l,
               fmt::format("--arg buf:u8:{0}:rand=5 --arg buf:u8:{0}:rand=6 --arg buf:u8:{0}:out={1} --arg buf:i16:{0}:out={2} "
                           "--arg buf:i8:{0}:out={3} --arg i32:{0}", l.n, f8, f16, fs8));
    auto a = random_values<uint8_t>("u8", uint64_t(l.n), 5), b = random_values<uint8_t>("u8", uint64_t(l.n), 6);
    auto g8 = read_bin<uint8_t>(f8, size_t(l.n));
    auto g16 = read_bin<int16_t>(f16, size_t(l.n));
    auto gs8 = read_bin<int8_t>(fs8, size_t(l.n));
    for (size_t i = 0; i < size_t(l.n); ++i) {
      unsigned char x = a[i], y = b[i];
      unsigned char diff = x > y ? x - y : y - x;
      unsigned char d8 = (unsigned char)((x + y) >> 1) ^ diff;
      short m = short((short)(x * y) - (short)(y << 7));
      short d16 = short(m / 3 + (short)(x % 7));
      signed char sx = (signed char)x;
      signed char s8 = (signed char)((signed char)(sx >> 2) - (signed char)(y & 0x3f));
      INFO("element " << i << " x " << int(x) << " y " << int(y));
      CHECK(g8[i] == d8);
      CHECK(g16[i] == d16);
      CHECK(gs8[i] == s8);
    }
  }
}

TEST_CASE("exec varied: double precision fma/sqrt/div/floor/ceil/trunc and f64->s64", "[exec][varied]") {
  Outs outs;
  for (auto& l : kLaunches) {
    std::string fo = outs("o.bin"), fi = outs("i.bin");
    run_varied("dprec", l,
               fmt::format("--arg buf:f64:{0}:rand=7 --arg buf:f64:{0}:rand=8 --arg buf:f64:{0}:out={1} --arg buf:i64:{0}:out={2} "
                           "--arg i32:{0}", l.n, fo, fi));
    auto x = random_values<double>("f64", uint64_t(l.n), 7), y = random_values<double>("f64", uint64_t(l.n), 8);
    auto go = read_bin<double>(fo, size_t(l.n));
    auto gi = read_bin<int64_t>(fi, size_t(l.n));
    for (size_t i = 0; i < size_t(l.n); ++i) {
      double a = std::fma(x[i], 100.0, -50.0), b = y[i] + 0.5;  // as contracted in the PTX
      double r = std::fma(a, b, std::sqrt(b)) / (b + 1.0);
      r = std::fmax(r, -20.0) + std::floor(a) - std::ceil(b * 3.0);
      INFO("element " << i);
      CHECK(go[i] == r);
      CHECK(gi[i] == int64_t(a * 1e12) + int64_t(std::trunc(b)));
    }
  }
}

TEST_CASE("exec varied: local array with dynamic indexing", "[exec][varied]") {
  Outs outs;
  for (auto& l : kLaunches) {
    std::string fo = outs("o.bin");
    run_varied("localarr", l, fmt::format("--arg buf:i32:{0}:rand=9 --arg buf:i32:{0}:rand=10 --arg buf:i32:{0}:out={1} --arg i32:{0}",
                                          l.n, fo));
    auto in = random_values<uint32_t>("i32", uint64_t(l.n), 9), idx = random_values<uint32_t>("i32", uint64_t(l.n), 10);
    auto go = read_bin<uint32_t>(fo, size_t(l.n));
    for (size_t i = 0; i < size_t(l.n); ++i) {
      uint32_t buf[16];
      for (size_t j = 0; j < 16; ++j) buf[j] = in[(i + j * 5) % size_t(l.n)];
      for (uint32_t j = 0; j < 4; ++j) buf[(idx[i] + j) & 15] += j;
      uint32_t e = buf[idx[i] & 15] * 3 + buf[(i * 7) & 15] - buf[15 - (idx[i] & 15)];
      INFO("element " << i);
      CHECK(go[i] == e);
    }
  }
}

TEST_CASE("exec varied: switch statement", "[exec][varied]") {
  Outs outs;
  for (auto& l : kLaunches) {
    std::string fo = outs("o.bin");
    run_varied("switchy", l, fmt::format("--arg buf:i32:{0}:rand=11 --arg buf:i32:{0}:rand=12 --arg buf:i32:{0}:out={1} --arg i32:{0}",
                                         l.n, fo));
    auto op = random_values<uint32_t>("i32", uint64_t(l.n), 11), a = random_values<uint32_t>("i32", uint64_t(l.n), 12);
    auto go = read_bin<uint32_t>(fo, size_t(l.n));
    for (size_t i = 0; i < size_t(l.n); ++i) {
      uint32_t x = a[i], r;
      switch (op[i] & 7) {
        case 0: r = x + 17; break;
        case 1: r = x * 3; break;
        case 2: r = x ^ 0x5a5a; break;
        case 3: r = uint32_t(int32_t(x) >> 3); break;
        case 4: r = 0u - x; break;
        case 5: r = x & (x - 1); break;
        case 6: r = x | 0x100; break;
        default: r = 42; break;
      }
      INFO("element " << i << " op " << (op[i] & 7));
      CHECK(go[i] == r);
    }
  }
}

TEST_CASE("exec varied: warp shuffles (down/up/idx/xor with width), ballot, any, all, popc", "[exec][varied]") {
  Outs outs;
  for (auto [grid, block] : {std::pair{1, 32}, std::pair{4, 128}, std::pair{3, 96}}) {
    int n = grid * block;
    std::string fs = outs("s.bin"), fc = outs("c.bin"), fb = outs("b.bin"), fx = outs("x.bin");
    // Seed 13 for random signs and parities; a second run with small non-negative values (iota).
    for (std::string init : {"rand=13", "iota"}) {
      run_varied("warpops", Launch{grid, block, n},
                 fmt::format("--arg buf:i32:{0}:{1} --arg buf:i32:{2}:out={3} --arg buf:i32:{0}:out={4} --arg buf:u32:{0}:out={5} "
                             "--arg buf:i32:{0}:out={6}", n, init, n / 32, fs, fc, fb, fx));
      std::vector<uint32_t> v(static_cast<size_t>(n));
      if (init == "iota")
        for (int i = 0; i < n; ++i) v[size_t(i)] = uint32_t(i);
      else
        v = random_values<uint32_t>("i32", uint64_t(n), 13);
      auto gs = read_bin<uint32_t>(fs, size_t(n / 32));
      auto gc = read_bin<uint32_t>(fc, size_t(n));
      auto gb = read_bin<uint32_t>(fb, size_t(n));
      auto gx = read_bin<uint32_t>(fx, size_t(n));
      for (int w = 0; w < n / 32; ++w) {
        uint32_t sum = 0, ballot = 0;
        bool any = false, all = true;
        for (int l = 0; l < 32; ++l) {
          uint32_t x = v[size_t(w * 32 + l)];
          sum += x;
          ballot |= (x & 1u) << l;
          any |= int32_t(x) > 1000000;
          all &= int32_t(x) >= 0;
        }
        INFO(init << " warp " << w);
        CHECK(gs[size_t(w)] == sum);
        uint32_t scan = 0;
        for (int l = 0; l < 32; ++l) {
          size_t i = size_t(w * 32 + l);
          scan += v[i];
          INFO("lane " << l);
          CHECK(gc[i] == scan);
          CHECK(gb[i] == ballot + uint32_t(__builtin_popcount(ballot)) + uint32_t(any) * 2 + uint32_t(all) * 4);
          CHECK(gx[i] == v[size_t(w * 32 + ((l * 7) & 31))] + v[size_t(w * 32 + (l ^ 5))]);
        }
      }
    }
  }
}

TEST_CASE("exec varied: shared-memory atomics (add, max) flushed with global atomics", "[exec][varied]") {
  Outs outs;
  // Blocks of at least 64 threads: the kernel's threads 0..63 clear and flush the 64 bins.
  for (auto& l : {Launch{4, 256, 1000}, Launch{2, 64, 20}, Launch{9, 64, 555}}) {
    for (const char* preset : {"tx2", "flexgrip"}) {
      std::string fh = outs("h.bin"), fm = outs("m.bin");
      run_varied("shatomic", l,
                 fmt::format("--arg buf:u32:{0}:rand=14 --arg buf:u32:64:out={1} --arg buf:i32:1:const=-2147483648:out={2} --arg i32:{0}",
                             l.n, fh, fm),
                 preset);
      auto in = random_values<uint32_t>("u32", uint64_t(l.n), 14);
      std::vector<uint32_t> h(64, 0);
      int32_t mx = INT32_MIN;
      for (uint32_t v : in) {
        ++h[v & 63];
        mx = std::max(mx, int32_t(v >> 1) - 1000);
      }
      INFO(preset << " n " << l.n);
      CHECK(read_bin<uint32_t>(fh, 64) == h);
      CHECK(read_bin<int32_t>(fm, 1)[0] == mx);
    }
  }
}

TEST_CASE("exec varied: __ldg scalar and float4 (ld.global.nc, .v4)", "[exec][varied]") {
  Outs outs;
  for (auto& l : kLaunches) {
    std::string fo = outs("o.bin");
    run_varied("ldg", l, fmt::format("--arg buf:f32:{0}:rand=15 --arg buf:f32:17:rand=16 --arg buf:f32:{1}:out={2} --arg i32:{1}",
                                     4 * l.n, l.n, fo));
    auto v = random_values<float>("f32", uint64_t(4 * l.n), 15), w = random_values<float>("f32", 17, 16);
    auto go = read_bin<float>(fo, size_t(l.n));
    for (size_t i = 0; i < size_t(l.n); ++i) {
      float e = (v[4 * i] + v[4 * i + 1]) * w[i % 17] - v[4 * i + 2] * v[4 * i + 3];
      INFO("element " << i);
      float scale = std::fabs((v[4 * i] + v[4 * i + 1]) * w[i % 17]) + std::fabs(v[4 * i + 2] * v[4 * i + 3]);
      CHECK(std::fabs(go[i] - e) <= 1e-6f * scale);  // nvcc's fma contraction: within an ulp of the terms
    }
  }
}
