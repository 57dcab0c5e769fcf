// Bad input found by an attack on the CLI, launch files and PTX: each exits 2 naming the place,
// or now computes the right values.
#include <catch2/catch.hpp>

#include <sys/resource.h>

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
  // --set reads integer keys the same way (JSON alone refused 012 and 0x10).
  r = run_gpuvp("config --preset tx2 --set sm.count=012 --set sm.warp_size=0x10");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("\"count\": 12") && Contains("\"warp_size\": 16"));
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

TEST_CASE("robust: a faulting store, atomic or constant load names its own port and operation on every preset") {
  struct Case {
    const char *kernel, *arg, *msg;
  } cases[] = {{"st", "u64:0x20", "on gmem_wr write of 4 bytes at 0x20"},
               {"at", "u64:0x20", "on gmem_wr atomic of 4 bytes at 0x20"},
               {"ld", "u64:0x20", "on gmem_rd read of 4 bytes at 0x20"},
               {"cl", "u64:0x100000000", "on cmem read of 4 bytes"}};
  for (const char* preset : {"flexgrip", "tk1", "tx2"})
    for (auto& c : cases) {
      INFO(preset << " " << c.kernel);
      auto r = run_gpuvp(fmt::format("exec --preset {} --ptx {}/robust/faults.ptx --kernel {} --arg {}", preset,
                                     GPUVP_TEST_DATA, c.kernel, c.arg));
      CHECK(r.status == 1);
      CHECK_THAT(r.err, Contains(c.msg));
    }
}

TEST_CASE("robust: a host copy that outlasts sim.timeout_ms is reported as a host copy") {
  auto r = run_gpuvp(fmt::format("exec --preset flexgrip --set sim.timeout_ms=0.01 --ptx {}/robust/faults.ptx --kernel ld "
                                 "--arg buf:u8:100000",
                                 GPUVP_TEST_DATA));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("after 0.01 ms of simulated time: it was in a host copy (host bus write of 100000 bytes"));
  r = run_gpuvp(fmt::format("exec --preset tx2 --set sim.timeout_ms=2 --ptx {}/exec/spin_forever.ptx --kernel spin "
                            "--grid 2 --block 64 --arg buf:i32:1",
                            GPUVP_TEST_DATA));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("it was waiting for a kernel that never completed"));
  r = run_gpuvp(fmt::format("exec --preset tx2 --set scheduler.kind=batch --set sim.timeout_ms=2 --ptx "
                            "{}/exec/spin_forever.ptx --kernel spin --grid 2 --block 64 --arg buf:i32:1",
                            GPUVP_TEST_DATA));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("it was waiting for a kernel that never reached kernel_done"));
}

TEST_CASE("robust: an error echoes at most about 80 characters of a huge token") {
  const std::string huge(100000, 'K');  // within the 128 KiB of one command-line argument
  TempFile ptx("huge.ptx", ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  " + huge + " %r1;\n}\n");
  TempFile cfg("huge.json", "{\"" + huge + "\": 1}");
  for (const std::string& cmd : {"disasm " + ptx.path, "config --config " + cfg.path,
                                 fmt::format("exec --ptx {}/robust/faults.ptx --kernel {}", GPUVP_TEST_DATA, huge)}) {
    INFO(cmd.substr(0, 100));
    auto r = run_gpuvp(cmd);
    CHECK(r.status == 2);
    CHECK(r.err.size() < 1000);
    CHECK_THAT(r.err, Contains("KKK...KKK"));
  }
}

TEST_CASE("robust: configuration and launch files say what is wrong with a value's type") {
  TempFile cfg("empty_group.json", R"({"sm": {}})");
  auto r = run_gpuvp("config --config " + cfg.path);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("'sm' is an empty object: it needs keys, an object is not a value"));
  TempFile f("ptx5.json", R"({"ptx": 5, "kernel": "k"})");
  r = run_gpuvp("exec --launch-file " + f.path);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f.path + ": 'ptx' must be a string (a PTX file), not 5"));
}

TEST_CASE("robust: a launch file's relative PTX path is its neighbour") {
  // The launch file sits in tests/data/robust; gpuvp runs from /.
  std::string file = std::string(GPUVP_TEST_DATA) + "/robust/relative_launch.json";
  auto r = run_cmd(fmt::format("cd / && {} exec --preset tx2 --launch-file {}", GPUVP_BINARY, file));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("buffer 0 (1 x u32): 7"));
}

TEST_CASE("robust: two buffers dumping to one file and conflicting initialisers are refused") {
  std::string out = temp_path("dump.bin");
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/exec/saxpy.ptx --kernel saxpy --arg u32:1 --arg f32:1 "
                                 "--arg buf:f32:1:out={} --arg buf:f32:1:out={}",
                                 GPUVP_TEST_DATA, out, out));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("buffer 1 dump '" + out + "' would overwrite buffer 0's dump"));
  std::remove(out.c_str());
  for (const char* arg : {"buf:f32:1:zero:iota", "buf:f32:1:const=1:rand=2", "buf:f32:1:out=a:out=b"}) {
    INFO(arg);
    r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/exec/saxpy.ptx --kernel saxpy --arg u32:1 --arg f32:1 "
                              "--arg buf:f32:1 --arg {}",
                              GPUVP_TEST_DATA, arg));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(std::string("--arg ") + arg) && Contains("two"));
  }
  TempFile f("conflict.json", fmt::format(R"({{"ptx": "{}/exec/saxpy.ptx", "kernel": "saxpy", "args": [{{"u32": 1}},
    {{"f32": 1}}, {{"buffer": {{"type": "f32", "count": 1, "init": "iota", "value": 3}}}}, {{"buffer": {{"type": "f32", "count": 1}}}}]}})",
                                          GPUVP_TEST_DATA));
  r = run_gpuvp("exec --launch-file " + f.path);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("args[2]: 'value' is for init 'const', the buffer's init is 'iota'"));
}

TEST_CASE("robust: warps that exit release the barrier the other warps of the block wait at") {
  std::string expect = "buffer 0 (64 x u32):";
  for (int t = 0; t < 64; ++t) expect += fmt::format(" {}", t < 32 ? t + 1 : 0);
  for (const char* preset : {"flexgrip", "tk1", "tx2"})
    for (const char* kernel : {"barexit", "barlate"}) {  // warp 1 exits before, or after, warp 0 waits
      INFO(preset << " " << kernel);
      auto r = run_gpuvp(fmt::format("exec --preset {} --ptx {}/robust/barrier.ptx --kernel {} --block 64 "
                                     "--arg buf:u32:64 --print 64",
                                     preset, GPUVP_TEST_DATA, kernel));
      INFO(r.err);
      CHECK(r.status == 0);
      CHECK_THAT(r.out, Contains(expect));
    }
}

TEST_CASE("robust: bar.sync with a register beyond the 16 barriers is a device error naming the number") {
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/robust/barrier.ptx --kernel barid --block 64 "
                                 "--arg buf:u32:1 --arg u32:99",
                                 GPUVP_TEST_DATA));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("device error: kernel barid") && Contains("barrier 99 out of range: the SM has 16 barriers"));
}

namespace {
// CPU seconds (user + system) of the children this process has waited for.
double children_cpu() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Runs gpuvp on input nested 100,000 deep: exit 2 naming `where`, within a second of CPU time (no stack
// overflow, no quadratic walk; CPU, not wall time: a loaded machine once made a refusal take 1.3 s).
void refuses_deep(const std::string& args, const std::string& where) {
  INFO(args.substr(0, 200));
  const double c0 = children_cpu();
  auto r = run_gpuvp(args);
  const double s = children_cpu() - c0;
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(where) && Contains("nested deeper than"));
  CHECK(s < 1.0);
}
const std::string kOpen(100000, '['), kClose(100000, ']');
}  // namespace

TEST_CASE("robust: a configuration file nested 100,000 deep is refused") {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "{\"a\":";
  TempFile g("deep_objects.json", text + "1" + std::string(100000, '}'));
  refuses_deep("config --config " + g.path, g.path + ":1:321:");
}

TEST_CASE("robust: a --set value nested 100,000 deep is refused") {
  // Quoted: the shell would try the brackets as a glob. Within one argument's 128 KiB.
  refuses_deep("config --set 'sm.count=" + kOpen + "'", "--set sm.count:1:65:");
}

TEST_CASE("robust: a launch file nested 100,000 deep is refused") {
  TempFile f("deep_launch.json", R"({"ptx": "x.ptx", "kernel": "k", "args": )" + kOpen + kClose + "}");
  refuses_deep("exec --launch-file " + f.path, f.path + ":1:");
}

TEST_CASE("robust: a campaign file nested 100,000 deep is refused") {
  TempFile f("deep_campaign.json", R"({"name": "t", "exec": )" + kOpen + kClose + "}");
  refuses_deep("campaign run " + f.path + " --db " + temp_path("deep.db"), f.path + ":1:86:");
}

TEST_CASE("robust: PTX nested 100,000 deep in vectors, initialisers or parentheses is refused") {
  const std::string head = ".version 7.0\n.target sm_75\n.address_size 64\n";
  const std::string body = ".visible .entry k()\n{\n .reg .b32 %r<3>;\n mov.b32 %r1, ";
  TempFile vec("deep_vec.ptx", head + body + std::string(100000, '{') + "%r2" + std::string(100000, '}') + ";\n}\n");
  TempFile par("deep_par.ptx", head + body + std::string(100000, '(') + "1" + std::string(100000, ')') + ";\n}\n");
  TempFile init("deep_init.ptx", head + ".global .u32 g[4] = " + std::string(100000, '{') + "1" +
                                     std::string(100000, '}') + ";\n.visible .entry k()\n{\n ret;\n}\n");
  refuses_deep("disasm " + vec.path, vec.path + ":7:");
  refuses_deep("disasm " + par.path, par.path + ":7:");
  refuses_deep("disasm " + init.path, init.path + ":4:");
}

TEST_CASE("robust: a chain of 3,000 .funcs calling each other assembles (the call graph walk is iterative)") {
  const int n = 3000;
  std::string text = ".version 7.0\n.target sm_75\n.address_size 64\n";
  for (int i = 0; i <= n; ++i) text += fmt::format(".func f{}();\n", i);
  text += fmt::format(".func f{}()\n{{\n ret;\n}}\n", n);
  for (int i = 0; i < n; ++i) text += fmt::format(".func f{}()\n{{\n call f{}, ();\n ret;\n}}\n", i, i + 1);
  TempFile f("chain.ptx", text + ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n");
  // With a 1 MiB stack: the recursive walks crashed at 3,000 there (at about 20,000 with 8 MiB).
  auto r = run_cmd(fmt::format("ulimit -s 1024 && {} disasm {}", GPUVP_BINARY, f.path));
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("// kernel k: 0 params"));
}

TEST_CASE("robust: a cycle of 3,000 .funcs calling each other assembles (components are found iteratively)") {
  const int n = 3000;
  std::string text = ".version 7.0\n.target sm_75\n.address_size 64\n";
  for (int i = 0; i < n; ++i) text += fmt::format(".func f{}();\n", i);
  for (int i = 0; i < n; ++i) text += fmt::format(".func f{}()\n{{\n call f{}, ();\n ret;\n}}\n", i, (i + 1) % n);
  TempFile f("cycle.ptx", text + ".visible .entry k()\n{\n call f0, ();\n ret;\n}\n");
  auto r = run_cmd(fmt::format("ulimit -s 1024 && {} disasm {}", GPUVP_BINARY, f.path));
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("// func f2999: recursive, 8 bytes per call on the call stack"));
  CHECK_THAT(r.out, Contains("// kernel k: 0 params"));
}

TEST_CASE("robust: gigabytes of .local or .shared are refused, not wrapped to a small size") {
  // 4 x 1 GiB + 64: the third array passes 2 GiB, the assembler's bound, and is named.
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/robust/local_4g.ptx --kernel big_local --arg buf:u32:1",
                                 GPUVP_TEST_DATA));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("local_4g.ptx:11:1: 'l2' takes the local memory of 'big_local' per thread to 3221225472 bytes"));
  // The same in .shared.
  r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/robust/shared_4g.ptx --kernel big_shared --arg buf:u32:1",
                            GPUVP_TEST_DATA));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("shared_4g.ptx:7:1: 's2' takes the shared memory of 'big_shared' to 3221225472 bytes"));
  // 1.5 GiB fits the assembler's 32 bits, not the SM: a resource error at launch.
  r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/robust/local_1g5.ptx --kernel half_local --arg buf:u32:1",
                            GPUVP_TEST_DATA));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("launch half_local: 1610612736 bytes of local memory per thread exceed the limit"));
}

TEST_CASE("robust: a 1 GiB .const or .global array is refused when the module is loaded, at once") {
  for (const char* stem : {"const_1g", "global_1g"}) {
    INFO(stem);
    const double c0 = children_cpu();  // CPU seconds: a loaded machine stretches wall time
    auto r = run_gpuvp(fmt::format("exec --preset flexgrip --ptx {}/robust/{}.ptx --kernel k --arg buf:u32:1",
                                   GPUVP_TEST_DATA, stem));
    CHECK(children_cpu() - c0 < 1.0);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(fmt::format("{}.ptx:5:1: variable 'big' (1073741824 bytes) does not fit", stem)));
  }
  // disasm, without a preset, refuses what no configuration's constant memory holds (it took 4 s and 2 GB).
  const double c0 = children_cpu();
  auto r = run_gpuvp(fmt::format("disasm {}/robust/const_1g.ptx", GPUVP_TEST_DATA));
  CHECK(children_cpu() - c0 < 1.0);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("constant memory has room for 67108864"));
}

// Found by scripts/fuzz.py: refusals that did not say where, or were internal errors.
TEST_CASE("robust: a launch file with the wrong number of arguments is refused naming the file") {
  TempFile f("argcount.json", fmt::format(R"({{"ptx": "{}/exec/saxpy.ptx", "kernel": "saxpy", "grid": [1],
      "block": [32], "args": [{{"i32": 4}}, {{"f32": 1}}, {{"buffer": {{"type": "f32", "count": 4}}}}]}})",
                                          GPUVP_TEST_DATA));
  auto r = run_gpuvp("exec --preset tx2 --launch-file " + f.path);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f.path) && Contains("3 arguments given, the kernel takes 4"));
}

TEST_CASE("robust: a launch file whose PTX does not exist names the file and the key") {
  TempFile f("noptx.json", R"({"ptx": "no/such.ptx", "kernel": "k", "grid": [1], "block": [1], "args": []})");
  auto r = run_gpuvp("exec --preset tx2 --launch-file " + f.path);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f.path) && Contains("ptx: the PTX file") && Contains("No such file"));
}
