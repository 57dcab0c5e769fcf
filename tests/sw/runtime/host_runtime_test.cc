// Host runtime logic against a fake platform: allocation, copies, module loading, the launch's
// register writes and its checks. No SystemC time passes here: the fake answers at once.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <sstream>
#include <utility>

#include "sw/isa/address_map.h"
#include "sw/isa/config_regs.h"
#include "sw/kernels/kernels.h"
#include "sw/runtime/host_runtime.h"

using namespace gpuvp;
using Catch::Matchers::Contains;

namespace {

class FakeHost : public rt::HostInterface {
 public:
  std::map<uint64_t, uint8_t> mem;  // sparse bytes
  std::vector<std::pair<uint64_t, size_t>> writes;
  rt::DeviceProps p;
  bool fail_kernel = false;
  uint64_t error_pc = 0;  // of the error fail_kernel reports
  int waits = 0;  // wait_kernel_done calls
  std::string printed;  // what the kernel's threads printed, taken at the next synchronisation

  FakeHost() {
    p.name = "fake";
    p.sm_count = 2;
    p.max_threads = 1024;
    p.max_threads_per_block = 512;
    p.max_blocks = 8;
    p.registers = 16384;
    p.shared_bytes = 16384;
    p.shared_per_block = 16384;
    p.local_bytes = 1024;
    p.clock_mhz = 100;
    p.gmem_base = amap::kGlobalBase;
    p.gmem_size = 1 << 20;
    p.sysmem_base = amap::kSystemBase;
    p.sysmem_size = 1 << 20;
    p.cmem_base = amap::kConstBase;
    p.cmem_size = 1 << 16;
    p.cfg_base = amap::kConfigBase;
  }
  void bus_read(uint64_t a, void* dst, size_t n) override {
    for (size_t i = 0; i < n; ++i) static_cast<uint8_t*>(dst)[i] = mem[a + i];
  }
  void bus_write(uint64_t a, const void* src, size_t n) override {
    writes.emplace_back(a, n);
    for (size_t i = 0; i < n; ++i) mem[a + i] = static_cast<const uint8_t*>(src)[i];
  }
  void wait_kernel_done(uint64_t& s, uint64_t& e) override {
    ++waits;
    if (fail_kernel) {
      DeviceErrorInfo info;
      info.kind = "address";
      info.message = "address error at 0x10";
      info.pc = error_pc;
      throw DeviceError(info);
    }
    s = 1000;
    e = 1000 + 10000 * 37;  // 37 cycles of 10 ns
  }
  const rt::DeviceProps& props() const override { return p; }
  std::string take_device_output() override { return std::exchange(printed, ""); }
  void wait_ns(double ns) override { waited_ns += ns; }
  double waited_ns = 0;
  uint32_t reg(unsigned idx) {
    uint32_t v;
    bus_read(p.cfg_base + 4 * idx, &v, 4);
    return v;
  }
};

}  // namespace

TEST_CASE("runtime: malloc is first fit, 256-byte aligned, never at the base, and reuses freed space") {
  FakeHost h;
  rt::HostRuntime r(h);
  rt::DevPtr a = r.malloc(100), b = r.malloc(1), c = r.malloc(300);
  CHECK(a == amap::kGlobalBase + 256);
  CHECK(b == a + 256);
  CHECK(c == b + 256);
  r.free(b);
  CHECK(r.malloc(200) == b);  // the hole left by b
  CHECK(r.malloc(257) == c + 512);
  CHECK_THROWS_WITH(r.free(a + 4), Contains("is not the start of an allocation"));
  CHECK_THROWS_WITH(r.malloc(0), Contains("size 0"));
  CHECK_THROWS_WITH(r.malloc(2 << 20), Contains("do not fit in global memory"));
}

TEST_CASE("runtime: copies stay inside one allocation") {
  FakeHost h;
  rt::HostRuntime r(h);
  rt::DevPtr a = r.malloc(64);
  std::vector<uint32_t> v{1, 2, 3, 4};
  r.memcpy_h2d(a + 16, v.data(), 16);
  std::vector<uint32_t> back(4);
  r.memcpy_d2h(back.data(), a + 16, 16);
  CHECK(back == v);
  CHECK_THROWS_WITH(r.memcpy_h2d(a + 60, v.data(), 16), Contains("memcpy_h2d") && Contains("not inside one allocation"));
  CHECK_THROWS_WITH(r.memcpy_d2h(back.data(), a - 16, 16), Contains("memcpy_d2h"));
  r.memset(a, 0xAB, 64);
  uint8_t x = 0;
  r.memcpy_d2h(&x, a + 63, 1);
  CHECK(x == 0xAB);
}

TEST_CASE("runtime: launch writes the configuration block, then the start bit") {
  FakeHost h;
  rt::HostRuntime r(h);
  rt::Module m = r.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
  const ptx::KernelInfo* k = m.image->find_kernel("vectorAdd");
  REQUIRE(k);
  // The code went to system memory at the start of the module area.
  uint8_t first = 0;
  h.bus_read(h.p.sysmem_base, &first, 1);
  CHECK(first == m.image->code[0]);
  rt::DevPtr a = r.malloc(4096), b = r.malloc(4096), c = r.malloc(4096);
  rt::KernelArgs args;
  args.ptr(a).ptr(b).ptr(c).i32(1000);
  h.writes.clear();
  CHECK(r.launch(m, "vectorAdd", {4, 1, 1}, {256, 1, 1}, args, 0, 0) == 1);
  CHECK(h.waits == 0);  // asynchronous: the host program goes on while the kernel runs
  CHECK(r.launches().empty());
  r.synchronize();
  CHECK(h.waits == 1);
  REQUIRE(r.launches().size() == 1);
  rt::LaunchStats st = r.launches().back();
  // Fit: 1024 threads / 256 = 4 blocks; registers and shared memory allow more; 8 resident max.
  CHECK(st.blocks_per_core == 4);
  CHECK(st.cycles == 37);
  CHECK(h.reg(cfgreg::kBlocksPerCore) == 4);
  CHECK(h.reg(cfgreg::kBlockX) == 256);
  CHECK(h.reg(cfgreg::kGridX) == 4);
  CHECK(h.reg(cfgreg::kGridY) == 1);
  CHECK(h.reg(cfgreg::kParamSize) == 7);  // 3 pointers + 1 int = 28 bytes
  CHECK((uint64_t(h.reg(cfgreg::kEntryHi)) << 32 | h.reg(cfgreg::kEntryLo)) == k->entry);
  CHECK(h.reg(cfgreg::kParamBase) == uint32_t(a));
  CHECK(h.reg(cfgreg::kParamBase + 1) == uint32_t(a >> 32));
  CHECK(h.reg(cfgreg::kParamBase + 6) == 1000u);
  // The control register is the last write.
  REQUIRE(!h.writes.empty());
  CHECK(h.writes.back().first == h.p.cfg_base + 4 * cfgreg::kControl);
  CHECK(h.reg(cfgreg::kControl) == 1);
}

TEST_CASE("runtime: launch checks name what is wrong") {
  FakeHost h;
  rt::HostRuntime r(h);
  rt::Module m = r.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
  rt::KernelArgs ok;
  ok.ptr(0).ptr(0).ptr(0).i32(1);
  CHECK_THROWS_WITH(r.launch(m, "nosuch", {1}, {32}, ok, 0, 0), Contains("no kernel 'nosuch'") && Contains("vectorAdd"));
  rt::KernelArgs few;
  few.ptr(0);
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, {32}, few, 0, 0), Contains("1 arguments given, the kernel takes 4"));
  rt::KernelArgs wrong;
  wrong.ptr(0).ptr(0).ptr(0).i64(1);
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, {32}, wrong, 0, 0), Contains("argument 3") && Contains("is 8 bytes, the parameter is 4"));
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, {1024}, ok, 0, 0), Contains("1024 threads exceeds 512"));
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {0}, {32}, ok, 0, 0), Contains("non-zero"));
  // 536838145 * 536903681 * 64 = 2^64 + 64: the thread count saturates, it does not wrap to 64.
  const rt::Dim3 wraps{536838145u, 536903681u, 64u};
  CHECK(wraps.count() == ~uint64_t{0});
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, wraps, ok, 0, 0), Contains("threads exceeds 512"));
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {70000}, {32}, ok, 0, 0), Contains("16-bit grid"));
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, {512}, ok, 0, 4), Contains("4 blocks per core requested, only 2 fit"));
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, {32}, ok, 20000, 0), Contains("shared memory per block exceed"));
  h.p.registers = 1024;  // 512 threads x ~10 registers cannot fit
  CHECK_THROWS_WITH(r.launch(m, "vectorAdd", {1}, {512}, ok, 0, 0), Contains("does not fit the SM's registers per SM"));
}

TEST_CASE("runtime: copies, a second launch and synchronize wait for the running kernel") {
  FakeHost h;
  rt::HostRuntime r(h);
  rt::Module m = r.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
  rt::DevPtr a = r.malloc(1024);
  rt::KernelArgs args;
  args.ptr(a).ptr(a).ptr(a).i32(256);
  r.launch(m, "vectorAdd", {1}, {256}, args);
  uint32_t x;
  r.memcpy_d2h(&x, a, 4);  // waits first, as cudaMemcpy does
  CHECK(h.waits == 1);
  r.launch(m, "vectorAdd", {1}, {256}, args);
  r.launch(m, "vectorAdd", {1}, {256}, args);  // one kernel at a time: waits for the previous
  CHECK(h.waits == 2);
  r.synchronize();
  r.synchronize();  // nothing left to wait for
  CHECK(h.waits == 3);
  CHECK(r.launches().size() == 3);
}

TEST_CASE("runtime: a device error names the kernel") {
  FakeHost h;
  h.fail_kernel = true;
  rt::HostRuntime r(h);
  rt::Module m = r.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
  rt::KernelArgs ok;
  ok.ptr(0).ptr(0).ptr(0).i32(1);
  try {
    r.launch(m, "vectorAdd", {1}, {32}, ok, 0, 0);
    r.synchronize();
    FAIL("no exception");
  } catch (const DeviceError& e) {
    CHECK(e.info().kernel == "vectorAdd");
    CHECK_THAT(std::string(e.what()), Contains("kernel vectorAdd (vectorAdd.ptx): address error at 0x10"));
  }
}

namespace {
const char* kRecursive = R"(.version 9.0
.target sm_75
.address_size 64
.func f(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 ret;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 a;
  st.param.b32 [a], %r2;
  call f, (a);
  }
  ret;
}
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [n];
  {
  .param .b32 a;
  st.param.b32 [a], %r1;
  call f, (a);
  }
  ret;
}
)";
}  // namespace

TEST_CASE("runtime: a kernel with recursive functions gets the call stack in its local memory") {
  FakeHost h;
  h.p.stack_bytes = 512;
  rt::HostRuntime r(h);
  rt::Module m = r.load_module(kRecursive, "rec.ptx");
  const ptx::KernelInfo* k = m.image->find_kernel("k");
  REQUIRE(k);
  CHECK(k->call_stack);
  rt::KernelArgs args;
  args.u32(5);
  r.launch(m, "k", {1}, {32}, args);
  CHECK(h.reg(cfgreg::kLocalBytes) == k->local_bytes + 512);
  r.synchronize();
  h.p.stack_bytes = 1024;  // with the static frames, beyond the 1024 bytes of local memory
  CHECK_THROWS_WITH(r.launch(m, "k", {1}, {32}, args),
                    Contains(fmt::format("{} bytes of local memory per thread (1024-byte call stack included) exceed the "
                                         "limit of 1024",
                                         k->local_bytes + 1024)));
}

TEST_CASE("runtime: a device error in a .func names the function") {
  FakeHost h;
  h.fail_kernel = true;
  h.p.stack_bytes = 256;
  rt::HostRuntime r(h);
  rt::Module m = r.load_module(kRecursive, "rec.ptx");
  REQUIRE(m.image->functions.size() == 1);
  h.error_pc = m.image->functions[0].entry + 8;
  rt::KernelArgs args;
  args.u32(5);
  try {
    r.launch(m, "k", {1}, {32}, args);
    r.synchronize();
    FAIL("no exception");
  } catch (const DeviceError& e) {
    CHECK(e.info().function == "f");
    CHECK_THAT(std::string(e.what()), Contains("kernel k (rec.ptx, in function f): address error at 0x10"));
  }
}

TEST_CASE("runtime: shared memory per block and blocks that fit") {
  // 16-byte header + params + static + dynamic, rounded up to 256 bytes (block-scheduler.md).
  CHECK(rt::shared_per_block(0, 0, 0) == 256);
  CHECK(rt::shared_per_block(28, 0, 0) == 256);
  CHECK(rt::shared_per_block(28, 2048, 0) == 2304);
  CHECK(rt::shared_per_block(240, 0, 1) == 512);
  rt::DeviceProps p;
  p.max_blocks = 8;
  p.max_threads = 1024;
  p.registers = 32768;
  p.shared_bytes = 16384;
  std::string why;
  CHECK(rt::blocks_that_fit(p, 32, 10, 256, &why) == 8);    // resident block limit
  CHECK(rt::blocks_that_fit(p, 512, 10, 256, &why) == 2);   // threads
  CHECK(rt::blocks_that_fit(p, 128, 64, 256, &why) == 4);   // registers: 32768 / (64*128)
  CHECK(rt::blocks_that_fit(p, 32, 10, 8192, &why) == 2);   // shared memory
  CHECK(rt::blocks_that_fit(p, 32, 10, 20000, &why) == 0);
  CHECK_THAT(why, Contains("shared memory per SM"));
}

TEST_CASE("runtime: .global variables at odd addresses are written in accesses the memory takes") {
  FakeHost h;
  rt::HostRuntime r(h);
  const char* ptx = R"(.version 9.0
.target sm_75
.address_size 64
.global .align 1 .b8 a[1] = {7};
.global .align 1 .b8 s[4] = {1, 2, 3, 4};
.global .align 1 .b8 t[6] = {5, 6, 7, 8, 9, 10};
.visible .entry k() { ret; }
)";
  h.writes.clear();
  rt::Module m = r.load_module(ptx, "odd.ptx");
  uint64_t base = m.image->globals.at(0).address;
  // a: 1 byte; s (4 bytes at base + 1): its first byte alone, then a 3-byte burst; t: one burst.
  std::vector<std::pair<uint64_t, size_t>> want{{base, 1}, {base + 1, 1}, {base + 2, 3}, {base + 5, 6}};
  std::vector<std::pair<uint64_t, size_t>> globals;
  for (auto& w : h.writes)
    if (w.first >= h.p.gmem_base && w.first < h.p.gmem_base + h.p.gmem_size) globals.push_back(w);
  CHECK(globals == want);
  CHECK(h.mem[base + 1] == 1);
  CHECK(h.mem[base + 4] == 4);
}

TEST_CASE("runtime: what the threads printed is written to the device output at synchronize, also on an error") {
  FakeHost h;
  rt::HostRuntime r(h);
  std::ostringstream os;
  r.set_device_output(&os);
  rt::Module m = r.load_module(kernels::ptx("vectorAdd"), "vectorAdd.ptx");
  rt::DevPtr a = r.malloc(4096);
  rt::KernelArgs args;
  args.ptr(a).ptr(a).ptr(a).i32(1000);
  r.launch(m, "vectorAdd", {4}, {256}, args);
  h.printed = "line 1\nline 2\n";
  CHECK(os.str().empty());
  r.synchronize();
  CHECK(os.str() == "line 1\nline 2\n");
  r.launch(m, "vectorAdd", {4}, {256}, args);
  h.printed = "before the error\n";
  h.fail_kernel = true;
  CHECK_THROWS_AS(r.synchronize(), DeviceError);
  CHECK(os.str() == "line 1\nline 2\nbefore the error\n");
}
