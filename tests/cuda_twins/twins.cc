// The C++ API versions ("twins") of test CUDA programs of tests/cudart: the same kernels (the PTX read
// from the nvcc-built program's fat binary, as libcudart.so.13 reads it) and the same runtime calls, in
// the same order, as the library makes for the program's CUDA calls (cudart/api_*.cc). What runs
// through `gpuvp cuda` must give what the C++ API gives for the same work:
//
//   cudart_twins run PROGRAM BINARY [--preset P] [--stats F] [--timeline F] [--n N] [--order O]
//       runs PROGRAM's twin (vector_add, streams_events, async_copies, matmul of N x N, symbols, mapped,
//       managed, callbacks, errors, two_threads in the interleaving O) and writes its outputs
//   cudart_twins campaign BINARY FAULTS RESULTS [--preset P]
//       runs the faults of FAULTS (a `gpuvp campaign export --json` file) on fi_app's twin through the
//       campaign engine (forked at each instant) and writes {"id": "outcome", ...} to RESULTS
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudart/matmul_ref.h"
#include "faultinj/campaign_file.h"
#include "faultinj/engine.h"
#include "faultinj/job.h"
#include "platform/platform.h"
#include "platform/run_outputs.h"
#include "sw/fatbin/fatbin.h"
#include "cuda_twins/twins.h"

using namespace gpuvp;

namespace gpuvp::twins {

void copy_in(rt::Runtime& rt, rt::DevPtr dst, const void* src, size_t n) {
  rt.stream_synchronize(0);
  rt.memcpy_h2d(dst, src, n);
}
void copy_out(rt::Runtime& rt, void* dst, rt::DevPtr src, size_t n) {
  rt.stream_synchronize(0);
  rt.memcpy_d2h(dst, src, n);
}
void set_bytes(rt::Runtime& rt, rt::DevPtr dst, uint8_t v, size_t n) {
  rt.stream_synchronize(0);
  rt.memset(dst, v, n);
}
bool poll(rt::Runtime& rt, bool done) {
  if (!done) rt.sleep_ns(kPollNs);
  return done;
}

const rt::Module& Kernels::load(rt::Runtime& rt) {
  if (m.id < 0) m = rt.load_module(ptx, "fat binary");
  return m;
}
void Kernels::launch(rt::Runtime& rt, rt::Stream s, const char* kernel, rt::Dim3 grid, rt::Dim3 block,
                     const rt::KernelArgs& a) {
  rt.launch_async(s, load(rt), kernel, grid, block, a);
}
uint64_t Kernels::symbol(const std::string& name) const {
  for (auto* vars : {&m.image->globals, &m.image->consts})
    for (auto& v : *vars)
      if (v.name == name) return v.address;
  throw std::runtime_error("no variable " + name + " in the program's PTX");
}

}  // namespace gpuvp::twins

using namespace gpuvp::twins;

namespace {

std::string program_ptx(const std::string& binary) {
  return fatbin::pick_ptx(fatbin::read_elf(binary).ptx(), kComputeCapability).text;
}

// tests/cudart/vector_add.cu
void vector_add(rt::Runtime& rt, TwinRun& run) {
  const int n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i) * 0.5f, b[i] = float(n - i) * 0.25f;
  rt::DevPtr d[4];
  for (auto& p : d) p = rt.malloc(bytes);
  copy_in(rt, d[0], a.data(), bytes);
  copy_in(rt, d[1], b.data(), bytes);
  set_bytes(rt, d[2], 0xFF, bytes);
  Kernels k{run.ptx};
  const char* name = "_Z10vector_addPKfS0_Pfi";
  k.launch(rt, 0, name, {blocks}, {threads}, rt::KernelArgs().ptr(d[0]).ptr(d[1]).ptr(d[2]).i32(n));
  copy_out(rt, c.data(), d[2], bytes);  // device to device goes through the host
  rt.memcpy_h2d(d[3], c.data(), bytes);
  copy_out(rt, c.data(), d[3], bytes);
  set_bytes(rt, d[2], 0xFF, bytes);
  k.launch(rt, 0, name, {blocks}, {threads}, rt::KernelArgs().ptr(d[0]).ptr(d[1]).ptr(d[2]).i32(n - 1));
  copy_out(rt, c.data(), d[2], bytes);
  for (auto p : d) rt.free(p);
}

// tests/cudart/streams_events.cu (its error path makes no device call)
void streams_events(rt::Runtime& rt, TwinRun& run) {
  const int n = 512, iters = 2000;
  const size_t bytes = n * sizeof(unsigned);
  const rt::Stream hi = rt.create_stream(-1, true), lo = rt.create_stream(0, true);  // cudaStreamNonBlocking
  std::vector<unsigned> in(n), out0(n), out1(n);
  for (int i = 0; i < n; ++i) in[i] = unsigned(i) * 7u + 1u;
  const rt::DevPtr d_in = rt.malloc(bytes), d_out0 = rt.malloc(bytes), d_out1 = rt.malloc(bytes);
  rt::Event start = rt.create_event(), stop = rt.create_event(), copied = rt.create_event();
  rt.create_event();  // no_timing
  rt.memcpy_h2d_async(d_in, in.data(), bytes, lo);
  rt.record_event(copied, lo);
  rt.stream_wait_event(hi, copied);
  rt.record_event(start, hi);
  Kernels k{run.ptx};
  const char* chain = "_Z5chainPKjPjii";
  k.launch(rt, hi, chain, {n / 128}, {128}, rt::KernelArgs().ptr(d_in).ptr(d_out0).i32(n).i32(iters));
  rt.record_event(stop, hi);
  k.launch(rt, lo, chain, {n / 128}, {128}, rt::KernelArgs().ptr(d_in).ptr(d_out1).i32(n).i32(iters / 2));
  rt.memcpy_d2h_async(out0.data(), d_out0, bytes, hi);
  rt.memcpy_d2h_async(out1.data(), d_out1, bytes, lo);
  while (!poll(rt, rt.event_done(stop))) {
  }
  poll(rt, rt.event_done(stop));
  while (!poll(rt, rt.stream_idle(lo))) {
  }
  rt.stream_synchronize(hi);
  rt.synchronize();
  rt.event_elapsed_ms(start, stop);
  rt::Event a = rt.create_event(), b = rt.create_event();
  rt.record_event(a, lo);
  rt.record_event(b, lo);
  rt.event_synchronize(b);
  rt.event_elapsed_ms(a, b);
  rt.stream_synchronize(hi);  // cudaStreamDestroy waits for the stream
  rt.stream_synchronize(lo);
  for (auto p : {d_in, d_out0, d_out1}) rt.free(p);
}

// tests/cudart/async_copies.cu
void async_copies(rt::Runtime& rt, TwinRun& run) {
  const int n = 1 << 13, chunks = 4, per = n / chunks, threads = 128;
  const size_t bytes = n * sizeof(float), chunk_bytes = per * sizeof(float);
  std::vector<float> in(n), out(n, -1.f);
  for (int i = 0; i < n; ++i) in[i] = float(i) * 0.25f;
  const rt::DevPtr d_in = rt.malloc(bytes), d_out = rt.malloc(bytes);
  const rt::Stream s[2] = {rt.create_stream(0), rt.create_stream(0)};
  Kernels k{run.ptx};
  for (int c = 0; c < chunks; ++c) {
    const uint64_t off = uint64_t(c) * chunk_bytes;
    rt.memcpy_h2d_async(d_in + off, in.data() + c * per, chunk_bytes, s[c % 2]);
    k.launch(rt, s[c % 2], "_Z5scalePKfPfif", {per / threads}, {threads},
             rt::KernelArgs().ptr(d_in + off).ptr(d_out + off).i32(per).f32(3.f));
    rt.memcpy_d2h_async(out.data() + c * per, d_out + off, chunk_bytes, s[c % 2]);
  }
  rt.synchronize();
  for (auto st : s) rt.stream_synchronize(st);
  for (auto p : {d_in, d_out}) rt.free(p);
}

// tests/cudart/matmul.cu for n x n matrices, its check against the CPU included (the same host work)
void matmul(rt::Runtime& rt, TwinRun& run) {
  const int n = run.n;
  const size_t bytes = size_t(n) * n * sizeof(float);
  std::vector<float> a, b;
  matmul_inputs(n, a, b);
  std::vector<float> c(a.size());
  const rt::DevPtr da = rt.malloc(bytes), db = rt.malloc(bytes), dc = rt.malloc(bytes);
  copy_in(rt, da, a.data(), bytes);
  copy_in(rt, db, b.data(), bytes);
  Kernels k{run.ptx};
  const uint32_t tiles = uint32_t(n) / 16;
  k.launch(rt, 0, "_Z6matmulPKfS0_Pfi", {tiles, tiles}, {16, 16}, rt::KernelArgs().ptr(da).ptr(db).ptr(dc).i32(n));
  copy_out(rt, c.data(), dc, bytes);
  if (matmul_mismatch(n, a, b, c) >= 0) throw std::runtime_error("matmul: the product differs from the CPU's");
  for (auto p : {da, db, dc}) rt.free(p);
}

// tests/cudart/fi_app.cu, under the campaign engine: the sums are its output (the program writes
// them to a file and their total to stdout: the same bytes decide the outcome).
class FiAppJob : public fi::Job {
 public:
  FiAppJob(Config c, const std::string& ptx) : Job(std::move(c), "fi_app (C++ API)"), ptx_(ptx) {}
  void run(rt::Runtime& rt) override {
    const int n = 64;
    int a[n], b[n];
    for (int i = 0; i < n; ++i) a[i] = i, b[i] = 1000;
    const rt::DevPtr da = rt.malloc(sizeof a), db = rt.malloc(sizeof b), dc = rt.malloc(sizeof a);
    copy_in(rt, da, a, sizeof a);
    copy_in(rt, db, b, sizeof b);
    Kernels k{ptx_};
    k.launch(rt, 0, "_Z3addPKiS0_Pii", {1}, {n}, rt::KernelArgs().ptr(da).ptr(db).ptr(dc).i32(n));
    c_.resize(sizeof a);
    copy_out(rt, c_.data(), dc, c_.size());
    for (auto p : {da, db, dc}) rt.free(p);
  }
  std::vector<uint8_t> output() const override { return c_; }

 private:
  std::string ptx_;
  std::vector<uint8_t> c_;
};

struct Options {
  std::string preset = "tx2", stats, timeline;
  int n = 64;         // matmul's size (its argv[1])
  std::string order;  // two_threads' interleaving
};

Options options(int argc, char** argv, int first) {
  Options o;
  for (int i = first; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 == argc) throw std::invalid_argument(k + " needs a value");
    if (k == "--preset") o.preset = argv[i + 1];
    else if (k == "--stats") o.stats = argv[i + 1];
    else if (k == "--timeline") o.timeline = argv[i + 1];
    else if (k == "--n") o.n = std::stoi(argv[i + 1]);
    else if (k == "--order") o.order = argv[i + 1];
    else throw std::invalid_argument("unknown option " + k);
  }
  return o;
}

int run_program(const std::string& program, const std::string& binary, const Options& o) {
  const std::map<std::string, Twin> twins = {
      {"vector_add", vector_add}, {"streams_events", streams_events}, {"async_copies", async_copies},
      {"matmul", matmul},         {"symbols", symbols},               {"mapped", mapped},
      {"managed", managed},       {"callbacks", callbacks},           {"errors", errors},
      {"two_threads", two_threads}};
  auto it = twins.find(program);
  if (it == twins.end()) throw std::invalid_argument("no twin of " + program);
  TwinRun run{program_ptx(binary), o.n, o.order};
  RunOutputs out;
  out.stats = o.stats;
  out.timeline = o.timeline;
  PlatformHooks hooks;
  out.apply(hooks);
  Config c = Config::preset(o.preset);
  c.set("sim.host_timeout_s=0");  // as the library sets it
  Platform p(c, hooks);
  out.attach(p);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    p.run([&](rt::Runtime& rt) { it->second(rt, run); });
  } catch (const DeviceError&) {
    if (!run.device_error) throw;  // the library's rule (cudart/session.cc): the program had it already
  }
  out.write(p, {{"command", "cuda"}, {"program", binary}, {"args", nlohmann::json::array()}});
  std::printf("%s (C++ API): %.6f s of host time\n", program.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

int run_campaign(const std::string& binary, const std::string& faults_path, const std::string& results,
                 const Options& o) {
  std::ifstream in(faults_path);
  const nlohmann::json rows = nlohmann::json::parse(in);
  std::vector<fi::Fault> faults = fi::parse_fault_entries(rows, faults_path, true);
  for (size_t i = 0; i < faults.size(); ++i) faults[i].id = rows[i].at("id").get<uint64_t>();
  const std::string ptx = program_ptx(binary);
  const std::string preset = o.preset;
  fi::JobFactory make = [&] { return std::make_unique<FiAppJob>(Config::preset(preset), ptx); };
  const fi::GoldenRun golden = fi::run_golden(make);
  fi::EngineOptions opt;
  opt.workers = 2;
  opt.early_stop = false;
  nlohmann::json out = nlohmann::json::object();
  fi::run_faults(make, golden, std::move(faults), opt,
                 [&](const fi::RunResult& r) { out[std::to_string(r.fault_id)] = fi::to_string(r.outcome); });
  std::ofstream(results) << out.dump(1) << "\n";
  std::printf("fi_app (C++ API): %zu outcomes written to %s\n", out.size(), results.c_str());
  return 0;
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "run" && argc >= 4) return run_program(argv[2], argv[3], options(argc, argv, 4));
    if (mode == "campaign" && argc >= 5) return run_campaign(argv[2], argv[3], argv[4], options(argc, argv, 5));
    std::fprintf(stderr,
                 "usage: cudart_twins run PROGRAM BINARY [--preset P] [--stats F] [--timeline F] [--n N] [--order O]\n"
                 "       cudart_twins campaign BINARY FAULTS RESULTS [--preset P]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudart_twins: %s\n", e.what());
    return 1;
  }
}
