// Bad input found by an attack on the CLI, launch files and PTX: each exits 2 naming the place,
// or now computes the right values.
#include <catch2/catch.hpp>

#include <fstream>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;

namespace {
std::string params_exec(const std::string& rest) {
  return fmt::format("exec --preset tx2 --ptx {}/exec/params.ptx --kernel params --grid 1 --block 1 {}", GPUVP_TEST_DATA,
                     rest);
}

// Writes `text` to a fresh temporary file (removed at the end of the test) and returns its path.
struct TempFile {
  std::string path;
  TempFile(const std::string& stem, const std::string& text) : path(temp_path(stem)) { std::ofstream(path) << text; }
  ~TempFile() { std::remove(path.c_str()); }
};
}  // namespace

TEST_CASE("robust: integers with a leading zero are decimal, not octal") {
  auto r = run_gpuvp(params_exec("--arg u64:0777 --arg i64:010 --arg u8:010 --arg i8:-010 --arg u32:00 --arg i32:0x10 "
                                 "--arg buf:u64:010 --print 6"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("buffer 0 (10 x u64): 777 10 10 18446744073709551606 0 16 ..."));
  TempFile f("launch.json", fmt::format(R"({{"ptx": "{}/exec/params.ptx", "kernel": "params", "args": [{{"u64": "0777"}},
    {{"i64": 1}}, {{"u8": 1}}, {{"i8": 1}}, {{"u32": 1}}, {{"i32": 1}}, {{"buffer": {{"type": "u64", "count": "01024"}}}}]}})",
                                        GPUVP_TEST_DATA));
  r = run_gpuvp("exec --preset tx2 --print 1 --launch-file " + f.path);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("buffer 0 (1024 x u64): 777 ..."));
}

TEST_CASE("robust: --seed, --print and --workers refuse negative and too large values naming the option") {
  struct Case {
    std::string cmd, option;
  } cases[] = {
      {"run --preset flexgrip --seed -1", "--seed"},
      {"run --preset flexgrip --seed 18446744073709551616", "--seed"},
      {"run --preset flexgrip --seed 12x", "--seed"},
      {params_exec("--print -1"), "--print"},
      {params_exec("--dyn-shmem 4294967296"), "--dyn-shmem"},
      {"campaign resume /nonexistent.db --workers -1", "--workers"},
  };
  for (auto& c : cases) {
    INFO(c.cmd);
    auto r = run_gpuvp(c.cmd);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(c.option));
  }
  // Options read through the same reader: --print 010 prints ten elements, not eight.
  auto r = run_gpuvp(params_exec("--arg u64:1 --arg i64:1 --arg u8:1 --arg i8:1 --arg u32:1 --arg i32:1 "
                                 "--arg buf:u64:12 --print 010"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("buffer 0 (12 x u64): 1 1 1 1 1 1 0 0 0 0 ..."));
}

TEST_CASE("robust: --grid and --block refuse empty fields") {
  for (const char* g : {"4,", ",4", "4,,2", "", "1,2,3,"}) {
    INFO(g);
    auto r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/exec/params.ptx --kernel params --grid '{}' --block 1",
                                   GPUVP_TEST_DATA, g));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(fmt::format("--grid {}:", g)));
  }
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/exec/params.ptx --kernel params --block 32,", GPUVP_TEST_DATA));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--block 32,"));
}

TEST_CASE("robust: --launch-file beside launch options is refused naming both") {
  TempFile f("launch.json", fmt::format(R"({{"ptx": "{}/exec/params.ptx", "kernel": "params"}})", GPUVP_TEST_DATA));
  for (const char* opt : {"--ptx x.ptx", "--kernel k", "--grid 2", "--block 2", "--arg u32:1", "--dyn-shmem 4",
                          "--blocks-per-core 1"}) {
    INFO(opt);
    auto r = run_gpuvp(fmt::format("exec --preset tx2 --launch-file {} {}", f.path, opt));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains("--launch-file"));
    CHECK_THAT(r.err, Contains(std::string(opt).substr(0, std::string(opt).find(' '))));
  }
}

TEST_CASE("robust: a float argument for an integer parameter and an integer for a float one are refused") {
  const std::string ints = "--arg u64:1 --arg i64:1 --arg u8:1 --arg i8:1 ";
  auto r = run_gpuvp(params_exec(ints + "--arg f32:4 --arg i32:1 --arg buf:u64:6"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("argument 4 (params_param_4) is a float, the parameter is .u32"));
  r = run_gpuvp(params_exec("--arg f64:1 --arg i64:1 --arg u8:1 --arg i8:1 --arg u32:1 --arg i32:1 --arg buf:u64:6"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("argument 0 (params_param_0) is a float, the parameter is .u64"));
  // saxpy(n, a, x, y): an integer for the float a.
  r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/exec/saxpy.ptx --kernel saxpy --grid 1 --block 32 --arg i32:32 "
                            "--arg u32:2 --arg buf:f32:32 --arg buf:f32:32",
                            GPUVP_TEST_DATA));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("argument 1 (saxpy_param_1) is an integer, the parameter is .f32"));
}
