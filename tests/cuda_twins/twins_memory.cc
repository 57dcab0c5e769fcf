// Twins of the test programs on device variables and memory both sides use: tests/cudart/symbols.cu,
// mapped.cu and managed.cu, with the runtime calls the library makes for them (cudart/api_memory.cc,
// api_managed.cc, coherence.cc).
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "cuda_twins/twins.h"

namespace gpuvp::twins {

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

// cudaMemcpyToSymbol / FromSymbol (synchronous or in the NULL stream): after the stream's work.
void to_symbol(rt::Runtime& rt, uint64_t addr, const void* src, size_t n) {
  rt.stream_synchronize(0);
  rt.write_symbol(addr, src, n);
}
void from_symbol(rt::Runtime& rt, void* dst, uint64_t addr, size_t n) {
  rt.stream_synchronize(0);
  rt.read_symbol(dst, addr, n);
}

// symbols.cu's run(): the filter, its output back, checked against the CPU.
void fir(rt::Runtime& rt, Kernels& k, rt::DevPtr in, rt::DevPtr out, const std::vector<float>& x, const float* taps,
         int bias) {
  const int n = int(x.size());
  k.launch(rt, 0, "_Z3firPKfPfi", {uint32_t(n + 127) / 128}, {128}, rt::KernelArgs().ptr(in).ptr(out).i32(n));
  std::vector<float> y(n);
  copy_out(rt, y.data(), out, n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    float acc = float(bias);
    for (int t = 0; t < 8; ++t) acc += taps[t] * (i - t >= 0 ? x[i - t] : 0.f);
    expect(y[i] == acc, "symbols: the filter's output differs from the CPU's");
  }
}

// Memory both sides use (cudart/coherence.h): the device's copy counts from a launch until a
// synchronisation leaves the device idle, the host's the rest of the time. The library copies every
// mirror, in device address order, at those points; the host side here is the twin's own memory.
class Mirrors {
 public:
  static constexpr uint64_t kPage = 4096;
  static uint64_t page_up(uint64_t a) { return (a + kPage - 1) & ~(kPage - 1); }

  // Managed or mapped memory (whole pages of their own) or, `registered`, the program's host memory,
  // whose bytes start the device's copy.
  rt::DevPtr add(rt::Runtime& rt, void* host, size_t size, bool registered) {
    const rt::DevPtr block = rt.malloc(page_up(size) + (registered ? 0 : kPage));
    const rt::DevPtr dev = registered ? block : page_up(block);
    if (registered) rt.memcpy_h2d(dev, host, size);
    m_[dev] = {host, size, block};
    return dev;
  }
  // A __managed__ variable of the module just loaded: its initial value read.
  void add_var(rt::Runtime& rt, uint64_t addr, void* host, size_t size) {
    rt.memcpy_d2h(host, addr, size);
    m_[addr] = {host, size, 0};
  }
  void remove(rt::Runtime& rt, rt::DevPtr dev) {
    rt.free(m_.at(dev).block);
    m_.erase(dev);
  }
  void to_device(rt::Runtime& rt) {  // before a launch
    if (device_owns_ || m_.empty()) return;
    for (auto& [dev, m] : m_) rt.memcpy_h2d(dev, m.host, m.size);
    device_owns_ = true;
  }
  void to_host_if_idle(rt::Runtime& rt) {  // after a synchronisation (the programs use the NULL stream only)
    if (device_owns_ && rt.stream_idle(0)) to_host(rt);
  }
  void host_view(rt::Runtime& rt) {  // a copy or memset of a mirror
    if (!device_owns_) return;
    rt.synchronize();
    to_host(rt);
  }

 private:
  void to_host(rt::Runtime& rt) {
    for (auto& [dev, m] : m_) rt.memcpy_d2h(m.host, dev, m.size);
    device_owns_ = false;
  }
  struct Mirror {
    void* host;
    size_t size;
    rt::DevPtr block;  // 0: a module variable's
  };
  std::map<rt::DevPtr, Mirror> m_;
  bool device_owns_ = false;
};

}  // namespace

void symbols(rt::Runtime& rt, TwinRun& run) {
  const int n = 1000;
  const size_t bytes = n * sizeof(float);
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = float(i % 17) - 8.f;
  const rt::DevPtr d_in = rt.malloc(bytes), d_out = rt.malloc(bytes);
  copy_in(rt, d_in, in.data(), bytes);
  Kernels k{run.ptx};
  k.load(rt);  // cudaMemcpyToSymbol finds the symbol's address: the module is loaded there
  const uint64_t taps = k.symbol("taps"), bias = k.symbol("bias"), processed = k.symbol("processed");
  const float t1[8] = {0.5f, 0.25f, 0.125f, 1, 2, -1, 0, 4}, t2[8] = {1, 1, 1, 1, -2, -2, -2, -2};
  to_symbol(rt, taps, t1, sizeof t1);
  fir(rt, k, d_in, d_out, in, t1, 3);
  to_symbol(rt, taps, t2, 4 * sizeof(float));
  to_symbol(rt, taps + 4 * sizeof(float), t2 + 4, 4 * sizeof(float));  // the Async form: a symbol is no allocation
  const int b2 = -5;
  to_symbol(rt, bias, &b2, sizeof b2);
  fir(rt, k, d_in, d_out, in, t2, b2);
  float back[8];
  from_symbol(rt, back, taps, sizeof back);
  expect(std::memcmp(back, t2, sizeof back) == 0, "symbols: the taps read back differ");
  unsigned long long count = 0;
  from_symbol(rt, &count, processed, sizeof count);
  rt.synchronize();
  expect(count == 2ull * n, "symbols: processed differs");
  const unsigned long long zero = 0;
  to_symbol(rt, processed, &zero, sizeof zero);  // cudaMemcpy to cudaGetSymbolAddress's pointer
  fir(rt, k, d_in, d_out, in, t2, b2);
  from_symbol(rt, &count, processed, sizeof count);
  expect(count == unsigned(n), "symbols: processed after the reset differs");
  for (auto p : {d_in, d_out}) rt.free(p);
}

void mapped(rt::Runtime& rt, TwinRun& run) {
  const int n = 1000;
  const size_t bytes = n * sizeof(int);
  Mirrors mirrors;
  std::vector<int> in(n), out(n, -1);
  const rt::DevPtr din = mirrors.add(rt, in.data(), bytes, false);  // cudaHostAlloc(cudaHostAllocMapped)
  for (int i = 0; i < n; ++i) in[i] = i - 500;
  const rt::DevPtr dout = mirrors.add(rt, out.data(), bytes, true);  // cudaHostRegister(cudaHostRegisterMapped)
  Kernels k{run.ptx};
  auto square = [&] {
    k.load(rt);
    mirrors.to_device(rt);
    k.launch(rt, 0, "_Z6squarePKiPii", {(n + 255) / 256}, {256}, rt::KernelArgs().ptr(din).ptr(dout).i32(n));
    rt.synchronize();  // cudaDeviceSynchronize
    mirrors.to_host_if_idle(rt);
  };
  square();
  expect(out[0] == 250000 && out[n - 1] == 499 * 499, "mapped: the squares differ");
  std::fill(in.begin(), in.end(), 3);
  square();
  expect(out[0] == 9 && out[n - 1] == 9, "mapped: the second round's squares differ");
  mirrors.host_view(rt);  // cudaHostUnregister
  mirrors.remove(rt, dout);
  mirrors.remove(rt, din);  // cudaFreeHost
  // Pinned only (cudaHostRegister without mapping): a copy like any other.
  const std::vector<int> pinned(n, 7);
  const rt::DevPtr d = rt.malloc(bytes);
  rt.memcpy_h2d_async(d, pinned.data(), bytes, 0);
  copy_out(rt, out.data(), d, bytes);
  expect(out[n - 1] == 7, "mapped: the pinned copy differs");
  rt.free(d);
}

namespace {

// managed.cu's kernel on managed memory: a launch takes every mirror to the device.
void scale(rt::Runtime& rt, Kernels& k, Mirrors& mirrors, rt::DevPtr x, int n, float a) {
  mirrors.to_device(rt);
  k.launch(rt, 0, "_Z5scalePfif", {uint32_t(n + 127) / 128}, {128}, rt::KernelArgs().ptr(x).i32(n).f32(a));
}

// A synchronisation that may leave the device idle (cudaDeviceSynchronize).
void device_sync(rt::Runtime& rt, Mirrors& mirrors) {
  rt.synchronize();
  mirrors.to_host_if_idle(rt);
}

// managed.cu's last part: event to event, a launch migrating managed memory against cudaMemcpy and the
// same launch.
void managed_timing(rt::Runtime& rt, Kernels& k, Mirrors& mirrors) {
  const int m = 16384;
  const size_t bytes = m * sizeof(float);
  std::vector<float> h(m, 1.f), mm(m);
  const rt::Event t0 = rt.create_event(), t1 = rt.create_event();
  const rt::DevPtr dm = rt.malloc(bytes);
  auto timed = [&](rt::DevPtr x, bool copy) {
    rt.record_event(t0, 0);
    if (copy) copy_in(rt, x, h.data(), bytes);
    mirrors.to_device(rt);
    k.launch(rt, 0, "_Z5scalePfif", {m / 256}, {256}, rt::KernelArgs().ptr(x).i32(m).f32(1.f));
    rt.record_event(t1, 0);
    rt.event_synchronize(t1);
    mirrors.to_host_if_idle(rt);
    expect(rt.event_done(t0) && rt.event_done(t1), "managed: the events have not completed");
    return rt.event_elapsed_ms(t0, t1);
  };
  const double explicit_ms = timed(dm, true);
  const rt::DevPtr dmm = mirrors.add(rt, mm.data(), bytes, false);
  std::fill(mm.begin(), mm.end(), 1.f);
  const double managed_ms = timed(dmm, false);
  expect(managed_ms > 0.99 * explicit_ms && managed_ms < 1.01 * explicit_ms, "managed: the migration's time differs");
  device_sync(rt, mirrors);
  expect(mm[m - 1] == 2.f, "managed: the last launch's result differs");
}

}  // namespace

void managed(rt::Runtime& rt, TwinRun& run) {
  const int n = 3000;
  const size_t bytes = n * sizeof(float);
  Mirrors mirrors;
  std::vector<float> x(n);
  int counters[4];
  const rt::DevPtr dx = mirrors.add(rt, x.data(), bytes, false);  // cudaMallocManaged
  for (int i = 0; i < n; ++i) x[i] = float(i);
  Kernels k{run.ptx};
  k.load(rt);  // at the first launch, with the __managed__ table's mirror
  mirrors.add_var(rt, k.symbol("counters"), counters, sizeof counters);
  scale(rt, k, mirrors, dx, n, 2.f);
  device_sync(rt, mirrors);
  expect(x[n - 1] == 2.f * (n - 1) + 1.f && counters[0] == 11 && counters[3] == 44, "managed: the first launch");
  std::fill(x.begin(), x.end(), 1.f);
  counters[0] = 100;
  scale(rt, k, mirrors, dx, n, 3.f);
  rt.stream_synchronize(0);
  mirrors.to_host_if_idle(rt);
  expect(x[0] == 4.f && counters[0] == 101 && counters[1] == 24, "managed: the second launch");
  const rt::DevPtr d = rt.malloc(bytes);
  scale(rt, k, mirrors, dx, n, 0.5f);
  mirrors.host_view(rt);  // cudaMemcpy(d, x, cudaMemcpyDefault)
  copy_in(rt, d, x.data(), bytes);
  rt.stream_synchronize(0);  // cudaMemset(x)
  mirrors.host_view(rt);
  std::fill(x.begin(), x.end(), 0.f);
  mirrors.host_view(rt);  // cudaMemcpy(x, d)
  copy_out(rt, x.data(), d, bytes);
  expect(x[0] == 3.f && x[n - 1] == 3.f, "managed: the copies");
  scale(rt, k, mirrors, dx, n, 1.f);
  device_sync(rt, mirrors);
  expect(x[0] == 4.f, "managed: the fourth launch");
  mirrors.remove(rt, dx);
  rt.free(d);
  managed_timing(rt, k, mirrors);
}

}  // namespace gpuvp::twins
