// Several host threads and the host's bookkeeping in the concurrent mode (found by review): waits shared
// between threads, and a refused submission leaving nothing to wait for.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "platform/platform.h"
#include "sw/isa/device_error.h"
#include "sw/kernels/kernels.h"

using namespace gpuvp;

namespace {
struct Spin {
  rt::DevPtr start, end, sm, spin;
  rt::Module m;
  uint32_t n;
  Spin(rt::Runtime& rt, uint32_t blocks, uint64_t ns) : n(blocks) {
    m = rt.load_module(kernels::ptx("timerSpin"), "timerSpin.ptx");
    start = rt.malloc(n * 8);
    end = rt.malloc(n * 8);
    sm = rt.malloc(n * 4);
    spin = rt.upload(std::vector<uint64_t>(n, ns));
  }
  uint64_t launch(rt::Runtime& rt, rt::Stream s, uint32_t threads = 32) {
    rt::KernelArgs a;
    a.ptr(start).ptr(end).ptr(sm).ptr(spin).u32(1000000);
    return rt.launch_async(s, m, "timerSpin", {n}, {threads}, a);
  }
};
}  // namespace
// Two host threads both call synchronize() while one kernel is in flight (valid CUDA).
TEST_CASE("host threads: two host threads synchronizing on the same kernel") {
  Platform p(Config::preset("tx2"));
  int returned = 0;
  CHECK_NOTHROW(p.run([&](rt::Runtime& rt) {
    Spin k(rt, 2, 100000);
    const rt::Stream s1 = rt.create_stream();
    k.launch(rt, s1);
    rt.spawn([&](rt::Runtime& r) { r.synchronize(); ++returned; });
    rt.spawn([&](rt::Runtime& r) { r.synchronize(); ++returned; });
    rt.join();
  }));
  CHECK(returned == 2);
}

// Two host threads: one stream_synchronize, one event_synchronize on an event after the kernel.
TEST_CASE("host threads: stream_synchronize and event_synchronize from two threads") {
  Platform p(Config::preset("tx2"));
  int returned = 0;
  CHECK_NOTHROW(p.run([&](rt::Runtime& rt) {
    Spin k(rt, 2, 100000);
    const rt::Stream s1 = rt.create_stream();
    rt::Event e = rt.create_event();
    k.launch(rt, s1);
    rt.record_event(e, s1);
    rt.spawn([&](rt::Runtime& r) { r.event_synchronize(e); ++returned; });
    rt.spawn([&](rt::Runtime& r) { r.event_synchronize(e); ++returned; });
    rt.join();
  }));
  CHECK(returned == 2);
}

// A refused submission (an event beyond scheduler.events) leaves the host's bookkeeping consistent:
// a later synchronize returns.
TEST_CASE("host threads: synchronize after a refused record_event") {
  Config c = Config::preset("tx2");
  c.set("scheduler.events=2");
  Platform p(c);
  std::string what;
  CHECK_NOTHROW(p.run([&](rt::Runtime& rt) {
    std::vector<rt::Event> ev;
    for (int i = 0; i < 3; ++i) ev.push_back(rt.create_event());
    try {
      rt.record_event(ev[2], 0);
    } catch (const rt::RuntimeError& e) {
      what = e.what();
    }
    rt.synchronize();
  }));
  INFO(what);
  CHECK(!what.empty());
}

