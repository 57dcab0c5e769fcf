// A host program written against the runtime API, in process (one Platform per test case, as
// SystemC elaborates once per process): what docs/user-guide.md shows a user.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "sw/isa/device_error.h"
#include "platform/platform.h"
#include "sw/kernels/kernels.h"

using namespace gpuvp;

TEST_CASE("host program: two launches of vectorAdd with results checked on the host") {
  Platform p(Config::preset("tx2"));
  p.record_timeline();
  std::vector<float> c1, c2;
  p.run([&](rt::Runtime& rt) {
    CHECK(rt.device().sm_count == 2);
    std::vector<float> a(1000), b(1000);
    for (int i = 0; i < 1000; ++i) a[i] = float(i), b[i] = float(2 * i);
    auto da = rt.upload(a), db = rt.upload(b), dc = rt.malloc(1000 * 4);
    auto m = rt.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
    rt::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).i32(1000);
    uint64_t id = rt.launch(m, "vectorAdd", {4}, {256}, args);
    // The launch returned as soon as the GPU had it: the kernel is still running.
    auto launched_at = sc_core::sc_time_stamp();
    rt.synchronize();
    REQUIRE(rt.launches().size() == 1);
    CHECK(rt.launches()[0].launch_id == id);
    CHECK(rt.launches()[0].cycles > 0);
    CHECK(rt.launches()[0].end_ps > launched_at.value());
    CHECK(sc_core::sc_time_stamp().value() >= rt.launches()[0].end_ps);
    c1 = rt.download<float>(dc, 1000);
    // Second launch: c = c + b, on the same module.
    rt::KernelArgs again;
    again.ptr(dc).ptr(db).ptr(dc).i32(1000);
    rt.launch(m, "vectorAdd", {8}, {128}, again);
    c2 = rt.download<float>(dc, 1000);
  });
  REQUIRE(c1.size() == 1000);
  for (int i = 0; i < 1000; ++i) {
    CHECK(c1[i] == float(3 * i));
    CHECK(c2[i] == float(5 * i));
  }
  PlatformStats st = p.stats();
  REQUIRE(st.launches.size() == 2);
  CHECK(st.launches[0].end_ps <= st.launches[1].start_ps);
  // 4 blocks of 256 threads, then 8 of 128: 2048 threads run vectorAdd's body twice.
  uint64_t blocks = 0;
  for (auto& s : st.sms) blocks += s.blocks;
  CHECK(blocks == 12);
  CHECK(p.timeline().size() == 12);
}

TEST_CASE("host program: the host works while the kernel runs") {
  // A host program that overlaps its own work (here: simulated time spent waiting) with the
  // kernel, as co-simulated host code does, then waits for the kernel.
  Platform p(Config::preset("flexgrip"));
  uint64_t kernel_end = 0, host_work_done = 0;
  p.run([&](rt::Runtime& rt) {
    auto m = rt.load_module(kernels::ptx("mandelbrot"), "mandelbrot.ptx");
    auto out = rt.malloc(16 * 16 * 4);
    rt::KernelArgs args;
    args.ptr(out).i32(16).i32(16).f32(-2.0f).f32(-1.5f).f32(3.0f / 16).f32(3.0f / 16).i32(64);
    rt.launch(m, "mandelbrot", {2, 2}, {8, 8}, args);
    sc_core::wait(10, sc_core::SC_US);  // host work, shorter than the kernel
    host_work_done = sc_core::sc_time_stamp().value();
    rt.synchronize();
    kernel_end = rt.launches().back().end_ps;
  });
  CHECK(host_work_done < kernel_end);  // the host's work finished while the GPU was still busy
}

TEST_CASE("host program: a kernel reading outside memory is a device error naming kernel, block and lane") {
  Platform p(Config::preset("flexgrip"));
  bool thrown = false;
  p.run([&](rt::Runtime& rt) {
    auto m = rt.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
    auto dc = rt.malloc(256 * 4);
    rt::KernelArgs args;
    // a and b point below global memory: every lane's first load fails.
    args.ptr(0x100).ptr(0x100).ptr(dc).i32(256);
    try {
      rt.launch(m, "vectorAdd", {2}, {128}, args);
      rt.synchronize();
    } catch (const DeviceError& e) {
      thrown = true;
      CHECK(e.info().kernel == "vectorAdd");
      CHECK(e.info().block == 0);
      CHECK(e.info().lane == 0);
      CHECK(e.info().address == 0x100);
      CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("kernel vectorAdd (vectorAdd.ptx)"));
    }
  });
  CHECK(thrown);
}

TEST_CASE("host program: device printf goes to the runtime's device output when it synchronises") {
  std::ifstream f(GPUVP_TEST_DATA "/exec/printf_bad.ptx");
  std::stringstream ptx;
  ptx << f.rdbuf();
  Platform p(Config::preset("tx2"));
  std::ostringstream os;
  std::vector<int32_t> ret;
  p.run([&](rt::Runtime& rt) {
    rt.set_device_output(&os);
    auto m = rt.load_module(ptx.str(), "printf_bad.ptx");
    const std::string format = "thread %u, format in a buffer\n";  // printf_bad.cu: printf(fmt, threadIdx.x)
    auto dfmt = rt.malloc(format.size() + 1), dout = rt.malloc(2 * 4);
    rt.memcpy_h2d(dfmt, format.c_str(), format.size() + 1);
    rt::KernelArgs args;
    args.ptr(dfmt).ptr(dout);
    rt.launch(m, "print_fmt", {1}, {2}, args);
    CHECK(os.str().empty());  // the kernel runs: nothing is printed before the host synchronises
    rt.synchronize();
    CHECK(os.str() == "thread 0, format in a buffer\nthread 1, format in a buffer\n");
    ret = rt.download<int32_t>(dout, 2);
  });
  CHECK(ret == std::vector<int32_t>{1, 1});
}

namespace {
// vectorAdd over 64 blocks of 32 threads.
void run_64_blocks(Platform& p) {
  p.run([&](rt::Runtime& rt) {
    auto da = rt.malloc(2048 * 4), db = rt.malloc(2048 * 4), dc = rt.malloc(2048 * 4);
    auto m = rt.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
    rt::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).i32(2048);
    rt.launch(m, "vectorAdd", {64}, {32}, args);
    rt.synchronize();
  });
}
}  // namespace

TEST_CASE("host program: no per-block record is kept unless asked for (a huge grid grows no memory)") {
  // The statistics count the 64 blocks; no block record or dispatch instant is kept.
  Platform p(Config::preset("tx2"));
  run_64_blocks(p);
  uint64_t blocks = 0;
  for (auto& s : p.stats().sms) blocks += s.blocks;
  CHECK(blocks == 64);
  CHECK(p.timeline().empty());
  CHECK(p.dispatch_times().empty());
}

TEST_CASE("host program: the block timeline and dispatch instants are kept when asked for") {
  Platform p(Config::preset("tx2"));
  p.record_timeline();
  p.record_markers();
  run_64_blocks(p);
  CHECK(p.timeline().size() == 64);
  CHECK_FALSE(p.dispatch_times().empty());
}

TEST_CASE("host program: the batch scheduler keeps no phase or dispatch marker unless asked for") {
  Platform p(Config::preset("flexgrip"));
  run_64_blocks(p);
  CHECK(p.scheduler_phases().size() == 1);  // the idle phase it starts in
  CHECK(p.dispatch_times().empty());
}

TEST_CASE("host program: the batch scheduler's phases and dispatches are kept when asked for") {
  Platform p(Config::preset("flexgrip"));
  p.record_markers();
  run_64_blocks(p);
  CHECK(p.scheduler_phases().size() > 4);  // configuration, dispatch, wait, exchange, ...
  CHECK_FALSE(p.dispatch_times().empty());
}
