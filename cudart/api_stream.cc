// Streams and events. Handles are the addresses of the library's records, but for the default streams:
// NULL, cudaStreamLegacy (0x1) and cudaStreamPerThread (0x2) (stream_of says which stream each is).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "cudart/api.h"
#include "cudart/coherence.h"
#include "sw/isa/device_error.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

// The platform has the TX2's two priorities (docs/concurrent-kernels.md): -1 high, 0 low.
constexpr int kGreatestPriority = -1, kLeastPriority = 0;

// A new stream, recorded (State::lock held).
StreamRecord& add_stream(unsigned flags, int priority) {
  auto r = std::make_unique<StreamRecord>();
  r->priority = std::clamp(priority, kGreatestPriority, kLeastPriority);  // CUDA clamps
  r->flags = flags;
  on_device([&](rt::Runtime& rt) { r->id = rt.create_stream(r->priority, (flags & kStreamNonBlocking) != 0); });
  StreamRecord& rec = *r;
  State::get().streams[r.get()] = std::move(r);
  return rec;
}

// The calling thread's per-thread default stream: a blocking stream of the default priority, as CUDA's
// is (it synchronises with the NULL stream, not with other streams), made at the thread's first use.
// Its record is among the program's streams, so the NULL stream's waits count it; its handle is never
// given out (the program names it cudaStreamPerThread), and it outlives its thread.
rt::Stream per_thread_stream() {
  thread_local const StreamRecord* own = nullptr;
  if (!own) own = &add_stream(0, kLeastPriority);
  return own->id;
}

}  // namespace

namespace gpuvp::cudart {

bool& per_thread_default() {
  thread_local bool on = false;
  return on;
}

std::vector<rt::Stream> streams_before(rt::Stream id) {
  std::vector<rt::Stream> before{id};
  bool blocking = id != 0;
  for (auto& [handle, r] : State::get().streams) {
    const bool r_blocking = !(r->flags & kStreamNonBlocking);
    if (id == 0 && r_blocking) before.push_back(r->id);
    if (r->id == id) blocking = r_blocking;
  }
  if (blocking) before.push_back(0);
  return before;
}

void wait_as_in(rt::Runtime& rt, rt::Stream id) {
  for (rt::Stream s : streams_before(id)) rt.stream_synchronize(s);
}

rt::Stream stream_of(const void* handle) {
  if (dev(handle) == 0) return per_thread_default() ? per_thread_stream() : 0;
  if (dev(handle) == kStreamLegacy) return 0;
  if (dev(handle) == kStreamPerThread) return per_thread_stream();
  auto& st = State::get().streams;
  auto it = st.find(handle);
  require(it != st.end(), kErrorInvalidResourceHandle, fmt::format("{} is not a stream", handle));
  return it->second->id;
}

EventRecord& event_of(const void* handle) {
  auto& ev = State::get().events;
  auto it = ev.find(handle);
  require(it != ev.end(), kErrorInvalidResourceHandle, fmt::format("{} is not an event", handle));
  return *it->second;
}

bool& in_host_function() {
  thread_local bool inside = false;
  return inside;
}

}  // namespace gpuvp::cudart

namespace {

// Polling calls let simulated time pass so that a loop around them ends (GPUVP_POLL_NS).
template <typename F>
bool poll(F&& done) {
  bool ok = false;
  on_device([&](rt::Runtime& rt) {
    ok = done(rt);
    if (!ok) rt.sleep_ns(Session::get().settings().poll_ns);
  });
  return ok;
}

}  // namespace

CUDART_EXPORT int cudaStreamCreateWithPriority(void** stream, unsigned flags, int priority) {
  return call("cudaStreamCreateWithPriority", [&] {
    require(stream != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    require(flags <= kStreamNonBlocking, kErrorInvalidValue, fmt::format("unknown stream flags {:#x}", flags));
    std::lock_guard lk(State::get().lock);
    *stream = &add_stream(flags, priority);
  });
}

CUDART_EXPORT int cudaStreamCreateWithFlags(void** stream, unsigned flags) {
  return served_as("cudaStreamCreateWithFlags", [&] { return cudaStreamCreateWithPriority(stream, flags, kLeastPriority); });
}

CUDART_EXPORT int cudaStreamCreate(void** stream) {
  return served_as("cudaStreamCreate", [&] { return cudaStreamCreateWithPriority(stream, 0, kLeastPriority); });
}

// The platform's stream ids are not reused: destroying waits for the stream's work (CUDA lets it
// finish in the background) and forgets the handle.
CUDART_EXPORT int cudaStreamDestroy(void* stream) {
  return call("cudaStreamDestroy", [&] {
    State& s = State::get();
    std::lock_guard lk(s.lock);
    require(dev(stream) > 2, kErrorInvalidResourceHandle, "the default stream cannot be destroyed");
    const rt::Stream id = stream_of(stream);
    on_device([&](rt::Runtime& rt) {
      rt.stream_synchronize(id);
      rt.destroy_stream(id);
    });
    s.streams.erase(stream);
  });
}

CUDART_EXPORT int cudaStreamSynchronize(void* stream) {
  return call("cudaStreamSynchronize", [&] {
    std::lock_guard lk(State::get().lock);
    const rt::Stream id = stream_of(stream);
    on_device([&](rt::Runtime& rt) {
      rt.stream_synchronize(id);
      to_host_if_idle(rt);
    });
  });
}

CUDART_EXPORT int cudaStreamQuery(void* stream) {
  bool idle = true;
  const int e = call("cudaStreamQuery", [&] {
    std::lock_guard lk(State::get().lock);
    const rt::Stream id = stream_of(stream);
    idle = poll([&](rt::Runtime& rt) { return rt.stream_idle(id); });
  });
  return e ? e : idle ? kSuccess : kErrorNotReady;
}

CUDART_EXPORT int cudaStreamGetPriority(void* stream, int* priority) {
  return call("cudaStreamGetPriority", [&] {
    require(priority != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    stream_of(stream);
    *priority = dev(stream) <= 2 ? kLeastPriority : State::get().streams[stream]->priority;
  });
}

CUDART_EXPORT int cudaStreamGetFlags(void* stream, unsigned* flags) {
  return call("cudaStreamGetFlags", [&] {
    require(flags != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    stream_of(stream);
    *flags = dev(stream) <= 2 ? 0 : State::get().streams[stream]->flags;
  });
}

CUDART_EXPORT int cudaStreamWaitEvent(void* stream, void* event, unsigned flags) {
  return call("cudaStreamWaitEvent", [&] {
    require(flags == 0, kErrorInvalidValue, fmt::format("unknown flags {:#x}", flags));
    std::lock_guard lk(State::get().lock);
    const rt::Stream id = stream_of(stream);
    EventRecord& e = event_of(event);
    if (!e.recorded) return;  // CUDA: waiting for an event never recorded is no wait
    on_device([&](rt::Runtime& rt) { rt.stream_wait_event(id, e.ev); });
  });
}

namespace {

// A host function in stream order (docs/cuda.md, "Host functions"): a host thread of the runtime
// waits, in simulated time, for the work before it (streams_before), then runs it, taking no simulated time.
// Every later call waits until it has run (Session::serve), so later work in the stream starts after
// it. A device error in that work is the program's to find at its next call: the function is not run.
void launch_host_function(void* stream, std::function<void()> fn) {
  std::lock_guard lk(State::get().lock);
  const std::vector<rt::Stream> before = streams_before(stream_of(stream));
  on_device([&](rt::Runtime& rt) {
    Session::get().host_functions_pending(1);
    rt.spawn([before, fn](rt::Runtime& r) {
      struct Done {
        ~Done() { Session::get().host_functions_pending(-1); }
      } done;
      try {
        for (rt::Stream s : before) r.stream_synchronize(s);
      } catch (const DeviceError&) {
        return;
      }
      if (Session::get().abandoned()) return;
      to_host_if_idle(r);  // what the work before it wrote to managed or mapped memory
      struct Inside {
        Inside() { in_host_function() = true; }
        ~Inside() { in_host_function() = false; }
      } inside;
      fn();
    });
  });
}

}  // namespace

CUDART_EXPORT int cudaLaunchHostFunc(void* stream, void (*fn)(void*), void* data) {
  return call("cudaLaunchHostFunc", [&] {
    require(fn != nullptr, kErrorInvalidValue, "the host function is NULL");
    launch_host_function(stream, [fn, data] { fn(data); });
  });
}

// The callback gets its stream and cudaSuccess (one whose work failed is not called, as above).
CUDART_EXPORT int cudaStreamAddCallback(void* stream, void (*cb)(void*, int, void*), void* data, unsigned flags) {
  return call("cudaStreamAddCallback", [&] {
    require(cb != nullptr, kErrorInvalidValue, "the callback is NULL");
    require(flags == 0, kErrorInvalidValue, fmt::format("flags must be 0, not {:#x}", flags));
    launch_host_function(stream, [cb, stream, data] { cb(stream, kSuccess, data); });
  });
}

CUDART_EXPORT int cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  return call("cudaDeviceGetStreamPriorityRange", [&] {
    if (least) *least = kLeastPriority;
    if (greatest) *greatest = kGreatestPriority;
  });
}

CUDART_EXPORT int cudaEventCreateWithFlags(void** event, unsigned flags) {
  return call("cudaEventCreateWithFlags", [&] {
    require(event != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    require(!(flags & ~(kEventBlockingSync | kEventDisableTiming | kEventInterprocess)), kErrorInvalidValue,
            fmt::format("unknown event flags {:#x}", flags));
    require(!(flags & kEventInterprocess), kErrorNotSupported, "cudaEventInterprocess: one process only");
    State& s = State::get();
    std::lock_guard lk(s.lock);
    auto r = std::make_unique<EventRecord>();
    r->flags = flags;
    on_device([&](rt::Runtime& rt) {
      auto& free = s.free_events;
      auto done = std::find_if(free.begin(), free.end(), [&](rt::Event e) { return rt.event_done(e); });
      if (done == free.end()) return void(r->ev = rt.create_event());
      r->ev = *done;
      free.erase(done);
    });
    *event = r.get();
    s.events[r.get()] = std::move(r);
  });
}

CUDART_EXPORT int cudaEventCreate(void** event) {
  return served_as("cudaEventCreate", [&] { return cudaEventCreateWithFlags(event, 0); });
}

CUDART_EXPORT int cudaEventDestroy(void* event) {
  return call("cudaEventDestroy", [&] {
    State& s = State::get();
    std::lock_guard lk(s.lock);
    s.free_events.push_back(event_of(event).ev);
    s.events.erase(event);
  });
}

CUDART_EXPORT int cudaEventRecord(void* event, void* stream) {
  return call("cudaEventRecord", [&] {
    std::lock_guard lk(State::get().lock);
    EventRecord& e = event_of(event);
    const rt::Stream id = stream_of(stream);
    on_device([&](rt::Runtime& rt) { rt.record_event(e.ev, id); });
    e.recorded = true;
  });
}

CUDART_EXPORT int cudaEventRecordWithFlags(void* event, void* stream, unsigned flags) {
  if (flags != 0)
    return call("cudaEventRecordWithFlags", [&] { throw CudaError(kErrorInvalidValue, "flags must be 0"); });
  return served_as("cudaEventRecordWithFlags", [&] { return cudaEventRecord(event, stream); });
}

CUDART_EXPORT int cudaEventSynchronize(void* event) {
  return call("cudaEventSynchronize", [&] {
    std::lock_guard lk(State::get().lock);
    EventRecord& e = event_of(event);
    if (!e.recorded) return;
    on_device([&](rt::Runtime& rt) {
      rt.event_synchronize(e.ev);
      to_host_if_idle(rt);
    });
  });
}

CUDART_EXPORT int cudaEventQuery(void* event) {
  bool done = true;
  const int e = call("cudaEventQuery", [&] {
    std::lock_guard lk(State::get().lock);
    EventRecord& r = event_of(event);
    if (r.recorded) done = poll([&](rt::Runtime& rt) { return rt.event_done(r.ev); });
  });
  return e ? e : done ? kSuccess : kErrorNotReady;
}

// Simulated time between the two records, in ms.
CUDART_EXPORT int cudaEventElapsedTime(float* ms, void* start, void* end) {
  bool ready = true;
  const int e = call("cudaEventElapsedTime", [&] {
    require(ms != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    std::lock_guard lk(State::get().lock);
    EventRecord& a = event_of(start);
    EventRecord& b = event_of(end);
    require(!((a.flags | b.flags) & kEventDisableTiming), kErrorInvalidResourceHandle,
            "an event was created with cudaEventDisableTiming");
    require(a.recorded && b.recorded, kErrorInvalidResourceHandle, "an event was never recorded");
    on_device([&](rt::Runtime& rt) {
      ready = rt.event_done(a.ev) && rt.event_done(b.ev);
      if (ready) *ms = float(rt.event_elapsed_ms(a.ev, b.ev));
    });
  });
  return e ? e : ready ? kSuccess : (last_error() = kErrorNotReady);
}

CUDART_PER_THREAD(cudaStreamSynchronize_ptsz, cudaStreamSynchronize)
CUDART_PER_THREAD(cudaStreamQuery_ptsz, cudaStreamQuery)
CUDART_PER_THREAD(cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent)
CUDART_PER_THREAD(cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc)
CUDART_PER_THREAD(cudaStreamAddCallback_ptsz, cudaStreamAddCallback)
CUDART_PER_THREAD(cudaStreamGetPriority_ptsz, cudaStreamGetPriority)
CUDART_PER_THREAD(cudaStreamGetFlags_ptsz, cudaStreamGetFlags)
CUDART_PER_THREAD(cudaEventRecord_ptsz, cudaEventRecord)
CUDART_PER_THREAD(cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags)
