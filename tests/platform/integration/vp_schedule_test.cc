// The vp schedule (asm.schedule = vp, docs/vulnerable-period.md) computes exactly what nvcc's order
// computes: every built-in workload and the PTX test kernels give byte-identical outputs on every
// preset. Small launches keep it fast (the suite runs under sanitizers too).
#include <catch2/catch.hpp>

#include <set>

#include "common/subprocess.h"
#include "sw/workloads/workload.h"

using gpuvp::test::run_gpuvp;
using gpuvp::test::run_stats;
using gpuvp::test::slurp;
using gpuvp::test::temp_path;

namespace {

const char* const kPresets[] = {"flexgrip", "tk1", "tx2", "gtx480"};

// The workload's launch configuration with the smallest product of its size parameters.
std::string smallest_launch(const gpuvp::wl::Workload& w) {
  std::string best;
  double best_size = 0;
  for (const auto& c : w.configs()) {
    double size = 1;
    for (const auto& kv : c.params) size *= double(std::max<int64_t>(1, kv.second));
    if (best.empty() || size < best_size) best = c.name, best_size = size;
  }
  return best;
}

// `times`: the workload's outputs are clock readings (timerSpin records when each block started and
// ended), which a schedule that changes timing may change; the CPU reference's checks must hold.
void same_outputs(const std::string& workload, bool times = false) {
  const gpuvp::wl::Workload* w = gpuvp::wl::find(workload);
  REQUIRE(w);
  const std::string launch = smallest_launch(*w);
  for (const char* p : kPresets) {
    const std::string args = fmt::format("--preset {} --workload {} --launch {}", p, workload, launch);
    INFO(args);
    auto a = run_stats(args);
    auto b = run_stats(args + " --set asm.schedule=vp");
    INFO(a["stderr"].get<std::string>() << b["stderr"].get<std::string>());
    REQUIRE(a["exit_status"] == 0);
    REQUIRE(b["exit_status"] == 0);
    CHECK(b["correct"] == true);
    REQUIRE(a["output_digest"].is_string());
    if (!times) CHECK(a["output_digest"] == b["output_digest"]);
  }
}

// `gpuvp exec` of a PTX test kernel with the two schedules: the buffers marked out= must be equal.
void same_exec_outputs(const std::string& ptx, const std::string& kernel, const std::string& launch,
                       const std::vector<std::string>& args) {
  for (const char* p : kPresets) {
    std::vector<std::string> files[2];
    for (int s = 0; s < 2; ++s) {
      std::string cmd = fmt::format("exec --preset {} --ptx {}/ptx/{} --kernel {} {}", p, GPUVP_TEST_DATA, ptx,
                                    kernel, launch);
      if (s) cmd += " --set asm.schedule=vp";
      for (const auto& a : args) {
        std::string arg = a;
        if (arg.find(":out") != std::string::npos) {
          files[s].push_back(temp_path("buf"));
          arg.replace(arg.find(":out"), 4, ":out=" + files[s].back());
        }
        cmd += " --arg " + arg;
      }
      INFO(cmd);
      auto r = run_gpuvp(cmd);
      INFO(r.err);
      REQUIRE(r.status == 0);
    }
    for (size_t i = 0; i < files[0].size(); ++i) {
      INFO(p << " " << kernel << " buffer " << i);
      const std::string a = slurp(files[0][i]), b = slurp(files[1][i]);
      CHECK(!a.empty());
      CHECK(a == b);
      std::remove(files[0][i].c_str());
      std::remove(files[1][i].c_str());
    }
  }
}

}  // namespace

// A new workload must be added below.
TEST_CASE("vp schedule: every built-in workload is covered") {
  std::set<std::string> names;
  for (const auto& w : gpuvp::wl::all()) names.insert(w->name());
  CHECK(names == std::set<std::string>{"bfs", "conv3x3", "grayFilter", "histogram", "mandelbrot", "matVec",
                                       "matrixMul", "nearestNeighbour", "reduction", "scalarProd", "timerSpin",
                                       "vectorAdd"});
}

TEST_CASE("vp schedule: identical outputs: bfs") { same_outputs("bfs"); }
TEST_CASE("vp schedule: identical outputs: conv3x3") { same_outputs("conv3x3"); }
TEST_CASE("vp schedule: identical outputs: grayFilter") { same_outputs("grayFilter"); }
TEST_CASE("vp schedule: identical outputs: histogram") { same_outputs("histogram"); }
TEST_CASE("vp schedule: identical outputs: mandelbrot") { same_outputs("mandelbrot"); }
TEST_CASE("vp schedule: identical outputs: matVec") { same_outputs("matVec"); }
TEST_CASE("vp schedule: identical outputs: matrixMul") { same_outputs("matrixMul"); }
TEST_CASE("vp schedule: identical outputs: nearestNeighbour") { same_outputs("nearestNeighbour"); }
TEST_CASE("vp schedule: identical outputs: reduction") { same_outputs("reduction"); }
TEST_CASE("vp schedule: identical outputs: scalarProd") { same_outputs("scalarProd"); }
TEST_CASE("vp schedule: correct outputs: timerSpin (clock readings)") { same_outputs("timerSpin", true); }
TEST_CASE("vp schedule: identical outputs: vectorAdd") { same_outputs("vectorAdd"); }

TEST_CASE("vp schedule: identical outputs: PTX test kernels (basic.ptx)") {
  same_exec_outputs("basic.ptx", "_Z5saxpyifPKfPf", "--grid 2 --block 64",
                    {"i32:128", "f32:2.5", "buf:f32:256:rand=1", "buf:f32:256:rand=2:out"});
  same_exec_outputs("basic.ptx", "_Z6reducePKiPii", "--grid 2 --block 64",
                    {"buf:i32:256:iota", "buf:i32:1:zero:out", "i32:128"});
  // t (the third buffer) holds clock64(): timing, not a result; out is compared.
  same_exec_outputs("basic.ptx", "_Z5mathkPfPKiPy", "--grid 1 --block 32",
                    {"buf:f32:32:rand=4:out", "buf:i32:32:iota", "buf:u64:4:zero"});
  same_exec_outputs("basic.ptx", "_Z9dynsharedPfd", "--grid 1 --block 64 --dyn-shmem 256",
                    {"buf:f32:64:zero:out", "f64:1.5"});
}

TEST_CASE("vp schedule: identical outputs: PTX test kernels (calls, devcall, hand-written)") {
  same_exec_outputs("calls.ptx", "_Z5callsPiPKfi", "--grid 1 --block 64",
                    {"buf:i32:64:zero:out", "buf:f32:64:rand=3", "i32:64"});
  same_exec_outputs("devcall.ptx", "devcall", "--grid 2 --block 64",
                    {"buf:i32:128:zero:out", "buf:f64:128:zero:out", "buf:i32:128:zero:out"});
  same_exec_outputs("inst_output.ptx", "iokernel", "--grid 2 --block 64",
                    {"buf:u32:128:iota", "buf:u32:128:zero:out", "buf:u32:128:zero:out"});
  same_exec_outputs("reg_map.ptx", "regmap", "--grid 2 --block 64", {"buf:u32:128:zero:out"});
  same_exec_outputs("scaleByWeight.ptx", "scaleByWeight", "--grid 8 --block 32",
                    {"buf:f32:256:rand=1", "buf:f32:4:const=2", "buf:f32:256:zero:out", "buf:f32:64:zero", "i32:256"});
  same_exec_outputs("vectorAdd.ptx", "vectorAdd", "--grid 2 --block 128",
                    {"buf:f32:256:rand=1", "buf:f32:256:rand=2", "buf:f32:256:zero:out", "i32:256"});
}
