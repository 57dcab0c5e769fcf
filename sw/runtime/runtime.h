#pragma once
// Host runtime: the "driver" a host program uses to drive the simulated GPU. Every call is a
// timed TLM transaction over the host bus (or a wait for kernel_done), so it must be called from
// a SystemC thread: the host program's thread that platform/ starts.
//
// Errors are exceptions (RuntimeError for misuse, DeviceError for errors the GPU detected) whose
// messages say what and where.
#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include "sw/isa/device_error.h"
#include "sw/ptx/image.h"
#include "sw/runtime/host_interface.h"

namespace gpuvp::rt {

using DevPtr = uint64_t;

class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  // x * y * z; a product beyond 64 bits saturates at 2^64 - 1 (beyond every limit), never wraps.
  uint64_t count() const {
    uint64_t xy = uint64_t(x) * y, n = 0;
    return __builtin_mul_overflow(xy, uint64_t(z), &n) ? ~uint64_t{0} : n;
  }
};

// What an argument holds: a launch refuses a float for an integer (.u/.s) parameter and an integer
// for a float (.f) one, which the sizes alone let pass (f32:4 into a .u32). Bits: unchecked bytes.
enum class ArgKind : uint8_t { Bits, Int, Float };

// Kernel arguments in PTX parameter order; each is placed at its parameter's offset and size.
class KernelArgs {
 public:
  KernelArgs& ptr(DevPtr p) { return raw(&p, 8, ArgKind::Int); }
  KernelArgs& u32(uint32_t v) { return raw(&v, 4, ArgKind::Int); }
  KernelArgs& i32(int32_t v) { return raw(&v, 4, ArgKind::Int); }
  KernelArgs& u64(uint64_t v) { return raw(&v, 8, ArgKind::Int); }
  KernelArgs& i64(int64_t v) { return raw(&v, 8, ArgKind::Int); }
  KernelArgs& f32(float v) { return raw(&v, 4, ArgKind::Float); }
  KernelArgs& f64(double v) { return raw(&v, 8, ArgKind::Float); }
  KernelArgs& raw(const void* p, size_t n, ArgKind kind = ArgKind::Bits) {
    std::vector<uint8_t> b(n);
    std::memcpy(b.data(), p, n);
    args_.push_back(std::move(b));
    kinds_.push_back(kind);
    return *this;
  }
  const std::vector<std::vector<uint8_t>>& args() const { return args_; }
  const std::vector<ArgKind>& kinds() const { return kinds_; }

 private:
  std::vector<std::vector<uint8_t>> args_;
  std::vector<ArgKind> kinds_;
};

using Stream = uint32_t;  // 0: the NULL stream

// A sub-kernel: blocks [first, last) of a grid (linear indices, x fastest; last 0: the grid's end), run on
// the SMs of SM set `sm_set` (0: every SM). Its blocks see their indices in the whole grid (%ctaid).
struct SubKernel {
  uint64_t first = 0, last = 0;
  uint32_t sm_set = 0;
};
struct Event {
  uint32_t id = 0;
};

struct Module {
  int id = -1;
  std::shared_ptr<const ptx::Image> image;
};

struct LaunchStats {
  std::string kernel;
  uint64_t launch_id = 0;
  uint64_t start_ps = 0;  // scheduler left IDLE
  uint64_t end_ps = 0;    // kernel_done
  uint64_t cycles = 0;    // GPU clock cycles between the two
  uint32_t blocks_per_core = 0;
  uint64_t entry = 0;                   // the kernel's code address (an SM's warps name it)
  std::vector<std::string> reg_names;   // register slot -> PTX register (ptx::KernelInfo::reg_names)
};

class Runtime {
 public:
  virtual ~Runtime() = default;

  virtual DevPtr malloc(size_t bytes) = 0;
  virtual void free(DevPtr p) = 0;
  virtual void memcpy_h2d(DevPtr dst, const void* src, size_t bytes) = 0;
  virtual void memcpy_d2h(void* dst, DevPtr src, size_t bytes) = 0;
  virtual void memset(DevPtr dst, uint8_t value, size_t bytes) = 0;
  // Writes or reads bytes of a loaded module's .const or .global variables (CUDA's cudaMemcpyToSymbol
  // and FromSymbol), after the work before it (the default stream's order). `addr` as the module's
  // Image gives it; a range outside one variable is refused with a RuntimeError.
  virtual void write_symbol(uint64_t addr, const void* src, size_t bytes);
  virtual void read_symbol(void* dst, uint64_t addr, size_t bytes);
  // The same bytes of an allocation or a variable, waiting for nothing: for a caller that has put the
  // access in order itself (the CUDA runtime library waits for the streams a call in one stream must
  // wait for, and for no other). A range outside one allocation or variable is refused.
  virtual void write_unordered(uint64_t addr, const void* src, size_t bytes);
  virtual void read_unordered(void* dst, uint64_t addr, size_t bytes);

  // Assembles PTX (source_name is used in error messages) and places it in system and constant memory.
  virtual Module load_module(const std::string& ptx_text, const std::string& source_name) = 0;

  // Starts a kernel and returns its launch id as soon as the GPU has it, as a CUDA launch does: the
  // host program goes on while the kernel runs. The platform runs one kernel at a time, so a launch
  // first waits for the previous one. Copies, memset, free and load_module wait for running kernels
  // first (CUDA's default-stream order). blocks_per_core = 0 lets the runtime choose the most
  // blocks that fit the SM's resources. Launch errors (arguments, resources) throw here.
  virtual uint64_t launch(const Module& m, const std::string& kernel, Dim3 grid, Dim3 block, const KernelArgs& args,
                          uint32_t dyn_shmem = 0, uint32_t blocks_per_core = 0) = 0;
  // Waits until every launched kernel has finished; throws DeviceError if the GPU stopped one.
  // What the kernel's threads printed (device printf) is written to the device output then.
  virtual void synchronize() = 0;
  // Where synchronize() writes device printf's text: std::cout unless set; nullptr drops it.
  virtual void set_device_output(std::ostream* out) = 0;

  // --- Streams, events, asynchronous copies, host threads (docs/concurrent-kernels.md) ---------
  // In the concurrent-kernel mode (tk1/tx2 with scheduler.kind = concurrent) work in different
  // streams runs concurrently under the queue rules of tx2-scheduling.md; the NULL stream (0) is
  // CUDA's legacy default stream: launch() and the synchronous copies use it. In the batch mode
  // every call completes in call order, one kernel at a time, and the results are the same.
  //
  // The defaults here are the batch mode's: each call completes in call order (a launch waits for
  // the previous kernel, copies are synchronous, an event's time is the host's time at the record).
  //
  // A new stream; priority as CUDA gives it: -1 high, 0 low (values beyond are clamped). A blocking
  // stream synchronises with the NULL stream: its work waits for the NULL stream's earlier work and the
  // NULL stream's waits for its earlier work. A non-blocking one (cudaStreamNonBlocking) does neither.
  Stream create_stream(int priority = 0, bool non_blocking = false);
  // A stream the host no longer uses (cudaStreamDestroy). The dispatcher keeps 16 bits of a stream id:
  // once 65,535 have been created, create_stream hands out the ids of destroyed, idle streams again.
  void destroy_stream(Stream s);
  static constexpr size_t kMaxStreams = 0x10000;  // ids 0 (the NULL stream) to 0xFFFF
  Event create_event();
  virtual uint64_t launch_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                                const KernelArgs& args, uint32_t dyn_shmem = 0);
  // A launch of part of a grid on an SM set (concurrent mode only; docs/concurrent-kernels.md, "SM sets
  // and sub-kernels"). launch_async is launch_sub_async with the whole grid on every SM.
  virtual uint64_t launch_sub_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                                    const KernelArgs& args, SubKernel part, uint32_t dyn_shmem = 0);
  // A new SM set holding the SMs of mask `sms` (bit i: SM i), and a change of its SMs: blocks handed out
  // from now on go to the new SMs, running blocks finish in place. Concurrent mode only.
  virtual uint32_t create_sm_set(uint64_t sms);
  virtual void set_sm_set(uint32_t set, uint64_t sms);
  // The instant (ns) launch `id` (a launch_async or launch_sub_async id) completed, or -1 while it has
  // not (does not wait); and a wait until one of the launches `ids` has completed or the host's time
  // is `until_ns`, whichever is first (a host-side scheduler's event loop). Concurrent mode only.
  virtual double launch_done_ns(uint64_t id) const;
  virtual void wait_any(const std::vector<uint64_t>& ids, double until_ns);
  // Copies through the copy engine in stream order; `src` is staged at the call, `dst` must stay
  // valid until the copy completed (a synchronize of its stream, an event after it).
  virtual void memcpy_h2d_async(DevPtr dst, const void* src, size_t bytes, Stream s);
  virtual void memcpy_d2h_async(void* dst, DevPtr src, size_t bytes, Stream s);
  virtual void record_event(Event e, Stream s);
  virtual void stream_wait_event(Stream s, Event e);  // later work in s waits for e's last record
  virtual void event_synchronize(Event e);
  virtual double event_elapsed_ms(Event start, Event end);  // both recorded and complete
  virtual void stream_synchronize(Stream s);
  // Polls without waiting (cudaEventQuery, cudaStreamQuery): whether the event's last record completed
  // (never recorded: true), whether the stream's work completed. Completed work is retired as a
  // synchronisation would. The batch mode has nothing to poll: its calls complete before they return
  // (a running kernel is waited for).
  virtual bool event_done(Event e);
  virtual bool stream_idle(Stream s);
  // Simulated time as the host sees it (ns), e.g. for timestamps around calls.
  virtual double now_ns() const { return 0; }
  // The calling host thread does nothing for `ns` of simulated time (a sleep until a release time).
  virtual void sleep_ns(double /*ns*/) {}
  // Starts another host thread running fn(*this) at the current instant; the host program ends when
  // every thread has returned.
  virtual void spawn(std::function<void(Runtime&)> fn);
  // Waits until every spawned host thread has returned.
  virtual void join() {}
  // The call stack of later launches' threads that reach recursive functions (CUDA's
  // cudaLimitStackSize), instead of the device's stack_bytes.
  virtual void set_stack_bytes(uint32_t bytes);

  // Statistics of the finished launches, in launch order.
  virtual const std::vector<LaunchStats>& launches() const = 0;
  // The device's properties (SM count, limits, clock), as cudaGetDeviceProperties gives them.
  virtual const DeviceProps& device() const = 0;

  // Convenience for typed buffers.
  template <typename T>
  DevPtr upload(const std::vector<T>& v) {
    DevPtr p = malloc(v.size() * sizeof(T));
    memcpy_h2d(p, v.data(), v.size() * sizeof(T));
    return p;
  }
  template <typename T>
  std::vector<T> download(DevPtr p, size_t n) {
    std::vector<T> v(n);
    memcpy_d2h(v.data(), p, n * sizeof(T));
    return v;
  }

 protected:
  void check_stream(Stream s, const char* what) const;
  void check_event(Event e, const char* what) const;
  bool high_priority(Stream s) const { return streams_[s].priority < 0; }
  bool non_blocking(Stream s) const { return streams_[s].non_blocking; }
  struct EventState {
    uint64_t tag = 0;    // of its last record (0: never recorded)
    bool done = false;   // that record completed, at at_ns
    double at_ns = 0;
  };
  std::vector<EventState> events_;

 private:
  struct StreamProps {
    int priority = 0;  // -1 high, 0 low
    bool non_blocking = false;
  };
  std::vector<StreamProps> streams_{1};  // [0]: the NULL stream, low and blocking
  std::set<Stream> destroyed_;           // destroy_stream's, for create_stream once the ids run out
};

}  // namespace gpuvp::rt
