// `gpuvp exec` on PTX that nvcc makes from .cu files outside the kernel library
// (tests/data/exec): command-line and JSON launch forms, seeded inputs checked against C++
// references, and the error cases with their exit status and message.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "exec_util.h"

using namespace exectest;

namespace {

std::vector<float> saxpy_ref(int n, float a, const std::vector<float>& x, std::vector<float> y) {
  for (int i = 0; i < n; ++i) y[size_t(i)] = std::fma(a, x[size_t(i)], y[size_t(i)]);  // nvcc contracts to fma.rn.f32
  return y;
}

}  // namespace

TEST_CASE("exec: saxpy from nvcc with seeded random buffers and scalars", "[exec]") {
  std::string ptx = ptx_of("saxpy");
  Outs outs;
  for (auto [grid, block, n, count] : {std::tuple{4, 128, 500, 512}, std::tuple{1, 32, 32, 32}, std::tuple{7, 96, 600, 700}}) {
    std::string y = outs("y.bin");
    auto r = exec_ok(fmt::format("--ptx {} --kernel saxpy --grid {} --block {} --arg i32:{} --arg f32:2.5 "
                                 "--arg buf:f32:{}:rand=3 --arg buf:f32:{}:rand=4:out={}",
                                 ptx, grid, block, n, count, count, y));
    CHECK(r.out.find("saxpy on tx2") != std::string::npos);
    auto x0 = gpuvp::exec::random_values<float>("f32", uint64_t(count), 3);
    auto y0 = gpuvp::exec::random_values<float>("f32", uint64_t(count), 4);
    auto ref = saxpy_ref(n, 2.5f, x0, y0);
    auto got = read_bin<float>(y, size_t(count));
    for (int i = 0; i < count; ++i) {
      INFO("grid " << grid << " block " << block << " element " << i);
      CHECK(got[size_t(i)] == ref[size_t(i)]);  // elements >= n keep their random values
    }
  }
}

TEST_CASE("exec: the same saxpy run from a JSON launch file, on every preset", "[exec]") {
  std::string ptx = ptx_of("saxpy");
  Outs outs;
  std::string y_cli = outs("cli.bin");
  exec_ok(fmt::format("--ptx {} --kernel saxpy --grid 3 --block 64 --arg i32:190 --arg f32:-1.25 "
                      "--arg buf:f32:200:rand=11 --arg buf:f32:200:rand=12:out={}", ptx, y_cli));
  auto ref = saxpy_ref(190, -1.25f, gpuvp::exec::random_values<float>("f32", 200, 11),
                       gpuvp::exec::random_values<float>("f32", 200, 12));
  CHECK(read_bin<float>(y_cli, 200) == ref);
  for (const char* preset : {"tx2", "tk1", "flexgrip"}) {
    std::string y = outs("json.bin"), lf = outs("launch.json");
    nlohmann::json d = {{"ptx", ptx},
                        {"kernel", "saxpy"},
                        {"grid", {3}},
                        {"block", {64}},
                        {"args",
                         {{{"i32", 190}},
                          {{"f32", "-1.25"}},
                          {{"buffer", {{"type", "f32"}, {"count", 200}, {"init", "random"}, {"seed", 11}}}},
                          {{"buffer", {{"type", "f32"}, {"count", 200}, {"init", "random"}, {"seed", 12}, {"dump", y}}}}}}};
    std::ofstream(lf) << d.dump(2);
    auto r = exec_ok(fmt::format("--preset {} --launch-file {}", preset, lf));
    CHECK(r.out.find(fmt::format("saxpy on {}", preset)) != std::string::npos);
    INFO(preset);
    CHECK(read_bin<float>(y, 200) == ref);
  }
}

TEST_CASE("exec: block prefix scan through a __noinline__ warp-scan function", "[exec]") {
  std::string ptx = ptx_of("scan");
  REQUIRE(slurp(ptx).find("call.uni") != std::string::npos);  // the device function really is called
  Outs outs;
  for (auto [grid, block, n] : {std::tuple{3, 256, 700}, std::tuple{1, 1024, 1024}, std::tuple{5, 64, 300}}) {
    std::string o = outs("scan.bin");
    exec_ok(fmt::format("--ptx {} --kernel block_scan --grid {} --block {} --arg buf:i32:{}:rand=5 --arg buf:i32:{}:out={} "
                        "--arg i32:{}", ptx, grid, block, n, n, o, n));
    auto in = gpuvp::exec::random_values<uint32_t>("i32", uint64_t(n), 5);
    auto got = read_bin<uint32_t>(o, size_t(n));
    uint32_t acc = 0;
    for (int i = 0; i < n; ++i) {
      if (i % block == 0) acc = 0;
      acc += in[size_t(i)];  // wrap-around, as the device does
      INFO("grid " << grid << " block " << block << " element " << i);
      CHECK(got[size_t(i)] == acc);
    }
  }
}

TEST_CASE("exec: 3-point stencil with a halo in dynamic shared memory", "[exec]") {
  std::string ptx = ptx_of("scan");
  Outs outs;
  for (auto [grid, block, n] : {std::tuple{3, 128, 300}, std::tuple{1, 64, 64}, std::tuple{10, 32, 317}}) {
    std::string o = outs("st.bin");
    exec_ok(fmt::format("--ptx {} --kernel stencil3 --grid {} --block {} --dyn-shmem {} --arg buf:f32:{}:rand=9 "
                        "--arg buf:f32:{}:out={} --arg i32:{} --arg f32:0.5 --arg f32:0.25",
                        ptx, grid, block, (block + 2) * 4, n, n, o, n));
    auto in = gpuvp::exec::random_values<float>("f32", uint64_t(n), 9);
    auto got = read_bin<float>(o, size_t(n));
    for (int i = 0; i < n; ++i) {
      float l = i > 0 ? in[size_t(i - 1)] : 0.0f, r = i + 1 < n ? in[size_t(i + 1)] : 0.0f;
      float ref = 0.5f * in[size_t(i)] + 0.25f * (l + r);
      INFO("element " << i);
      CHECK(std::fabs(got[size_t(i)] - ref) <= 1e-6f * std::fabs(ref) + 1e-7f);  // fma contraction: 1 ulp
    }
  }
}

// --- errors ---------------------------------------------------------------------------------------

TEST_CASE("exec errors: malformed PTX exits 2 with file:line:column", "[exec][errors]") {
  Outs outs;
  std::string bad = outs("bad.ptx");
  std::ofstream(bad) << ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                        "\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 1;\n\tfrobnicate.u32 %r2, %r1;\n\tret;\n}\n";
  auto r = run_gpuvp(fmt::format("exec --ptx {} --kernel k --arg buf:u32:4", bad));
  CHECK(r.status == 2);
  CHECK(r.err.find(bad + ":8:2:") != std::string::npos);
  CHECK(r.err.find("frobnicate.u32 %r2, %r1") != std::string::npos);
  // A missing brace is reported too (at the end of the file).
  std::string trunc = outs("trunc.ptx");
  std::ofstream(trunc) << ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n";
  r = run_gpuvp(fmt::format("exec --ptx {} --kernel k", trunc));
  CHECK(r.status == 2);
  CHECK(r.err.find(trunc + ":") != std::string::npos);
}

TEST_CASE("exec errors: unknown kernel, wrong argument count, bad --arg, missing file", "[exec][errors]") {
  std::string ptx = ptx_of("saxpy");
  auto r = run_gpuvp(fmt::format("exec --ptx {} --kernel saxpi --grid 1 --block 32 --arg i32:1 --arg f32:1 "
                                 "--arg buf:f32:32 --arg buf:f32:32", ptx));
  CHECK(r.status == 2);
  CHECK(r.err.find("no kernel 'saxpi'") != std::string::npos);
  CHECK(r.err.find("saxpy") != std::string::npos);  // lists what there is

  r = run_gpuvp(fmt::format("exec --ptx {} --kernel saxpy --grid 1 --block 32 --arg i32:1 --arg f32:1", ptx));
  CHECK(r.status == 2);
  CHECK(r.err.find("2 arguments given, the kernel takes 4") != std::string::npos);

  for (const char* bad : {"buf:f32", "bu:f32:4", "buf:f32:x", "buf:f32:4:bogus", "q32:5", "f32"}) {
    r = run_gpuvp(fmt::format("exec --ptx {} --kernel saxpy --arg {}", ptx, bad));
    INFO(bad);
    CHECK(r.status == 2);
    CHECK(r.err.find(fmt::format("--arg {}", bad)) != std::string::npos);
  }
  r = run_gpuvp("exec --ptx /nonexistent/x.ptx --kernel k");
  CHECK(r.status == 2);
  CHECK(r.err.find("/nonexistent/x.ptx") != std::string::npos);
  r = run_gpuvp(fmt::format("exec --ptx {} --kernel saxpy --grid 0 --block 32", ptx));
  CHECK(r.status == 2);
  CHECK(r.err.find("--grid") != std::string::npos);
}

TEST_CASE("exec errors: a kernel reading outside memory is a device error (exit 1) naming kernel, pc, block, warp, lane, address",
          "[exec][errors]") {
  std::string ptx = ptx_of("oob");
  // Thread i reads in[i * 2^28]: lane 0 of block 0 stays in its buffer, lane 1 reads 1 GiB further.
  // One block: with two, both fail in the same cycles (their code arrives at once through the L2) and
  // either may be reported first.
  auto r = run_gpuvp(fmt::format("exec --ptx {} --kernel oob --grid 1 --block 64 --arg buf:i32:128 --arg buf:i32:128 "
                                 "--arg i32:268435456", ptx));
  INFO(r.out << r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("device error") != std::string::npos);
  CHECK(r.err.find("kernel oob") != std::string::npos);
  CHECK(r.err.find("pc 0x") != std::string::npos);
  CHECK(r.err.find("block 0") != std::string::npos);
  CHECK(r.err.find("warp 0") != std::string::npos);
  CHECK(r.err.find("lane 1") != std::string::npos);
  CHECK(r.err.find("address 0x") != std::string::npos);
  // A stride that stays inside the buffer runs fine.
  Outs outs;
  std::string o = outs("oob.bin");
  exec_ok(fmt::format("--ptx {} --kernel oob --grid 2 --block 64 --arg buf:i32:128:iota --arg buf:i32:128:out={} --arg i32:1",
                      ptx, o));
  auto got = read_bin<int32_t>(o, 128);
  for (int i = 0; i < 128; ++i) CHECK(got[size_t(i)] == i);
}
