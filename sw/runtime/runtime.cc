// The Runtime's stream and event calls in the batch mode: every call completes in call order.
#include "sw/runtime/runtime.h"

#include <fmt/format.h>

namespace gpuvp::rt {

Stream Runtime::create_stream(int priority, bool non_blocking) {
  const StreamProps props{priority < 0 ? -1 : 0, non_blocking};  // TX2: high -1, low 0; CUDA clamps the rest
  if (streams_.size() < kMaxStreams) {
    streams_.push_back(props);
    return Stream(streams_.size() - 1);
  }
  for (auto it = destroyed_.begin(); it != destroyed_.end(); ++it)
    if (stream_idle(*it)) {
      const Stream s = *it;
      destroyed_.erase(it);
      streams_[s] = props;
      return s;
    }
  throw RuntimeError(fmt::format("create_stream: {} streams exist and none destroyed is idle (the dispatcher keeps 16 "
                                 "bits of a stream id)", kMaxStreams - 1));
}

void Runtime::destroy_stream(Stream s) {
  check_stream(s, "destroy_stream");
  if (s != 0) destroyed_.insert(s);
}

Event Runtime::create_event() {
  events_.emplace_back();
  return Event{uint32_t(events_.size())};  // ids from 1: a default Event{} is no event
}

void Runtime::check_stream(Stream s, const char* what) const {
  if (s >= streams_.size())
    throw RuntimeError(fmt::format("{}: stream {} was not created ({} streams)", what, s, streams_.size()));
}

void Runtime::check_event(Event e, const char* what) const {
  if (e.id == 0 || e.id > events_.size()) throw RuntimeError(fmt::format("{}: event {} was not created", what, e.id));
}

uint64_t Runtime::launch_async(Stream s, const Module& m, const std::string& kernel, Dim3 grid, Dim3 block,
                               const KernelArgs& args, uint32_t dyn_shmem) {
  check_stream(s, "launch");
  return launch(m, kernel, grid, block, args, dyn_shmem);
}

uint64_t Runtime::launch_sub_async(Stream, const Module&, const std::string& kernel, Dim3, Dim3, const KernelArgs&,
                                   SubKernel, uint32_t) {
  throw RuntimeError(fmt::format("launch of a sub-kernel of {}: needs the concurrent mode (scheduler.kind = concurrent)",
                                 kernel));
}

uint32_t Runtime::create_sm_set(uint64_t) {
  throw RuntimeError("create_sm_set: SM sets need the concurrent mode (scheduler.kind = concurrent)");
}

void Runtime::set_sm_set(uint32_t, uint64_t) {
  throw RuntimeError("set_sm_set: SM sets need the concurrent mode (scheduler.kind = concurrent)");
}

double Runtime::launch_done_ns(uint64_t) const {
  throw RuntimeError("launch_done_ns: needs the concurrent mode (scheduler.kind = concurrent)");
}

void Runtime::wait_any(const std::vector<uint64_t>&, double) {
  throw RuntimeError("wait_any: needs the concurrent mode (scheduler.kind = concurrent)");
}

void Runtime::memcpy_h2d_async(DevPtr dst, const void* src, size_t bytes, Stream s) {
  check_stream(s, "memcpy_h2d_async");
  memcpy_h2d(dst, src, bytes);
}

void Runtime::memcpy_d2h_async(void* dst, DevPtr src, size_t bytes, Stream s) {
  check_stream(s, "memcpy_d2h_async");
  memcpy_d2h(dst, src, bytes);
}

void Runtime::record_event(Event e, Stream s) {
  check_event(e, "record_event");
  check_stream(s, "record_event");
  synchronize();
  EventState& ev = events_[e.id - 1];
  ev.tag = ~uint64_t{0};
  ev.done = true;
  ev.at_ns = now_ns();
}

void Runtime::stream_wait_event(Stream s, Event e) {
  check_event(e, "stream_wait_event");
  check_stream(s, "stream_wait_event");
}

void Runtime::event_synchronize(Event e) { check_event(e, "event_synchronize"); }

double Runtime::event_elapsed_ms(Event a, Event b) {
  check_event(a, "event_elapsed_ms");
  check_event(b, "event_elapsed_ms");
  for (Event e : {a, b}) {
    const EventState& ev = events_[e.id - 1];
    if (!ev.tag) throw RuntimeError(fmt::format("event_elapsed_ms: event {} was never recorded", e.id));
    if (!ev.done)
      throw RuntimeError(fmt::format("event_elapsed_ms: event {} has not completed (event_synchronize first)", e.id));
  }
  return (events_[b.id - 1].at_ns - events_[a.id - 1].at_ns) / 1e6;
}

void Runtime::stream_synchronize(Stream s) {
  check_stream(s, "stream_synchronize");
  synchronize();
}

void Runtime::write_symbol(uint64_t addr, const void*, size_t) {
  throw RuntimeError(fmt::format("write_symbol at {:#x}: this runtime has no module variables", addr));
}

void Runtime::read_symbol(void*, uint64_t addr, size_t) {
  throw RuntimeError(fmt::format("read_symbol at {:#x}: this runtime has no module variables", addr));
}

void Runtime::write_unordered(uint64_t addr, const void*, size_t) {
  throw RuntimeError(fmt::format("write_unordered at {:#x}: this runtime has no unordered access", addr));
}

void Runtime::read_unordered(void*, uint64_t addr, size_t) {
  throw RuntimeError(fmt::format("read_unordered at {:#x}: this runtime has no unordered access", addr));
}

bool Runtime::event_done(Event e) {
  check_event(e, "event_done");
  return true;
}

bool Runtime::stream_idle(Stream s) {
  stream_synchronize(s);
  return true;
}

void Runtime::set_stack_bytes(uint32_t) { throw RuntimeError("set_stack_bytes: this runtime launches no kernels"); }

void Runtime::spawn(std::function<void(Runtime&)>) {
  throw RuntimeError("spawn: this runtime has no host threads");
}

}  // namespace gpuvp::rt
