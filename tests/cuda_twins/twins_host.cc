// Twins of the test programs on the host's side of the runtime: tests/cudart/callbacks.cu (host
// functions in stream order), errors.cu (the error paths' simulated work) and two_threads.cu (two host
// threads, their calls in a given interleaving), with the runtime calls the library makes for them
// (cudart/api_stream.cc, api_register.cc, session.cc).
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_twins/twins.h"

namespace gpuvp::twins {

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

// cudaLaunchHostFunc / cudaStreamAddCallback: a host thread of the runtime waits for the work before
// it in `before`'s streams, then runs fn. Every later call of the library first waits until it has run
// (Session::serve joins the runtime's threads before each request): so does the twin (`call`).
void host_function(rt::Runtime& rt, std::vector<rt::Stream> before, std::function<void()> fn) {
  rt.spawn([before, fn](rt::Runtime& r) {
    for (rt::Stream s : before) r.stream_synchronize(s);
    fn();
  });
}

}  // namespace

void callbacks(rt::Runtime& rt, TwinRun& run) {
  const int n = 256;
  const size_t bytes = n * sizeof(int);
  std::vector<int> h_d(n), h_in(n, -1), h_out(n);
  int order = 0, host_fn_at = 0, callback_at = 0, null_fn_at = 0;
  // A request of the library: the runtime's host threads first (Session::serve).
  auto call = [&](const std::function<void()>& f) {
    rt.join();
    f();
  };
  rt::DevPtr d = 0, d_in = 0, d_out = 0;
  call([&] { d = rt.malloc(bytes); });
  call([&] { d_in = rt.malloc(bytes); });
  call([&] { d_out = rt.malloc(bytes); });
  rt::Stream s = 0;
  call([&] { s = rt.create_stream(0); });
  Kernels k{run.ptx};
  call([&] { k.launch(rt, s, "_Z4fillPii", {n / 64}, {64}, rt::KernelArgs().ptr(d).i32(n)); });
  call([&] { rt.memcpy_d2h_async(h_d.data(), d, bytes, s); });
  call([&] {
    host_function(rt, {s}, [&] {
      host_fn_at = ++order;
      for (int i = 0; i < n; ++i) expect(h_d[i] == 2 * i, "callbacks: the host function ran before the copy");
      for (int i = 0; i < n; ++i) h_in[i] = h_d[i] + 7;
    });
  });
  call([&] { rt.memcpy_h2d_async(d_in, h_in.data(), bytes, s); });
  call([&] { k.launch(rt, s, "_Z7add_onePKiPii", {n / 64}, {64}, rt::KernelArgs().ptr(d_in).ptr(d_out).i32(n)); });
  call([&] { host_function(rt, {s}, [&] { callback_at = ++order; }); });
  call([&] { rt.memcpy_d2h_async(h_out.data(), d_out, bytes, s); });
  // The NULL stream's host function waits for every blocking stream's work as well.
  call([&] { host_function(rt, {0, s}, [&] { null_fn_at = ++order; }); });
  call([&] { rt.synchronize(); });
  expect(host_fn_at == 1 && callback_at == 2 && null_fn_at == 3, "callbacks: the host functions ran out of order");
  for (int i = 0; i < n; ++i) expect(h_out[i] == 2 * i + 8, "callbacks: the results differ");
  call([&] { rt.stream_synchronize(s); });  // cudaStreamDestroy
  for (rt::DevPtr p : {d, d_in, d_out}) call([&] { rt.free(p); });
}

void errors(rt::Runtime& rt, TwinRun& run) {
  int host[4] = {0, 0, 0, 0};
  const rt::DevPtr d = rt.malloc(sizeof host);
  rt.create_event();  // cudaEventCreate; the calls with bad arguments before it are refused before any work
  Kernels k{run.ptx};
  const char* store = "_Z5storePii";
  try {  // a block beyond the device's limit: the module is loaded, the launch refused
    k.launch(rt, 0, store, {1}, {4096}, rt::KernelArgs().ptr(d).i32(1));
    throw std::runtime_error("errors: a block of 4096 threads was launched");
  } catch (const rt::RuntimeError&) {
  }
  k.launch(rt, 0, store, {1}, {4}, rt::KernelArgs().ptr(d).i32(7));
  copy_out(rt, host, d, sizeof host);
  expect(host[0] == 7 && host[3] == 7, "errors: the store's values differ");
  k.launch(rt, 0, store, {1}, {4}, rt::KernelArgs().ptr(0x10).i32(1));
  try {  // the illegal address; every later call returns it without reaching the device
    rt.synchronize();
  } catch (const DeviceError&) {
    run.device_error = true;
  }
  expect(run.device_error, "errors: the illegal address was not reported");
}

namespace {

// One thread of two_threads.cu: its calls, one step each.
struct Worker {
  int v;
  rt::Stream s = 0;
  rt::DevPtr d = 0;
  std::vector<int> h = std::vector<int>(1000);
  size_t next = 0;  // its next call
};

// The order: one letter per call, 'a' for the thread writing from 100 and 'b' for the one writing from
// 5000, seven calls each.
void check_order(const std::string& order, size_t calls) {
  const auto count = [&](char c) { return size_t(std::count(order.begin(), order.end(), c)); };
  expect(count('a') == calls && count('b') == calls && order.size() == 2 * calls,
         "two_threads: --order '" + order + "': " + std::to_string(calls) +
             " a's and " + std::to_string(calls) + " b's expected (which thread makes each call, in the order the library served them)");
}

}  // namespace

void two_threads(rt::Runtime& rt, TwinRun& run) {
  const int n = 1000;
  const size_t bytes = n * sizeof(int);
  Kernels k{run.ptx};
  const std::vector<std::function<void(Worker&)>> steps = {
      [&](Worker& w) { w.s = rt.create_stream(0); },
      [&](Worker& w) { w.d = rt.malloc(bytes); },
      [&](Worker& w) {
        k.launch(rt, w.s, "_Z4fillPiii", {(n + 255) / 256}, {256}, rt::KernelArgs().ptr(w.d).i32(w.v).i32(n));
      },
      [&](Worker& w) {  // into pageable memory (a std::vector): complete when the call returns
        rt.memcpy_d2h_async(w.h.data(), w.d, bytes, w.s);
        rt.stream_synchronize(w.s);
      },
      [&](Worker& w) {
        rt.stream_synchronize(w.s);
        for (int i = 0; i < n; ++i) expect(w.h[i] == w.v + i, "two_threads: the values differ");
      },
      [&](Worker& w) { rt.free(w.d); },
      [&](Worker& w) { rt.stream_synchronize(w.s); },  // cudaStreamDestroy
  };
  check_order(run.order, steps.size());
  Worker workers[2] = {{100}, {5000}};
  for (char c : run.order) {
    Worker& w = workers[c - 'a'];
    steps[w.next++](w);
  }
}

}  // namespace gpuvp::twins
