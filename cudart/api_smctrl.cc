// SM partitions: what libsmctrl's calls set, and the SM set a launch goes to (cudart/smctrl.h).
#include <fmt/format.h>

#include <map>
#include <optional>
#include <utility>

#include "cudart/say.h"
#include "cudart/api.h"
#include "cudart/smctrl.h"

using namespace gpuvp;
using namespace gpuvp::cudart;

namespace {

// libsmctrl's masks (a set bit disables that SM) and the SM sets made for them; under State::lock.
struct Partitions {
  uint64_t global = 0;
  std::map<rt::Stream, uint64_t> streams;
  std::map<uint64_t, uint32_t> sets;  // enabled SMs -> SM set
  bool warned = false;                // the batch mode's warning, once
};

Partitions& partitions() {
  static Partitions p;
  return p;
}

// libsmctrl_set_next_mask: the calling thread's next launch only.
std::optional<uint64_t>& next_mask() {
  thread_local std::optional<uint64_t> m;
  return m;
}

uint64_t disabling_mask(rt::Stream s) {
  Partitions& p = partitions();
  std::optional<uint64_t> next;
  next.swap(next_mask());
  if (next) return *next;
  auto it = p.streams.find(s);
  return it != p.streams.end() ? it->second : p.global;
}

// The SMs a disabling mask leaves; bits of SMs the GPU lacks are ignored, as a GPU ignores TPCs it lacks
// (libsmctrl's ~0x1ull idiom sets them all).
uint64_t enabled_sms(uint64_t disabled) {
  const uint32_t n = Session::get().props().sm_count;
  const uint64_t all = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  return ~disabled & all;
}

}  // namespace

namespace gpuvp::cudart {

uint32_t launch_sm_set(rt::Stream s) {
  const uint64_t disabled = disabling_mask(s);
  const uint64_t sms = enabled_sms(disabled);
  if (sms == enabled_sms(0)) return 0;
  Partitions& p = partitions();
  if (!Session::get().concurrent()) {
    if (!std::exchange(p.warned, true))
      say("gpuvp cudart: libsmctrl mask {:#x} ignored: the batch scheduler (scheduler.kind batch) runs "
                         "every kernel on every SM\n", disabled);
    return 0;
  }
  require(sms != 0, kErrorInvalidValue,
          fmt::format("libsmctrl mask {:#x} disables every SM of the GPU's {}: the kernel could run nowhere", disabled,
                      Session::get().props().sm_count));
  auto it = p.sets.find(sms);
  if (it == p.sets.end()) {
    uint32_t set = 0;
    on_device([&](rt::Runtime& rt) { set = rt.create_sm_set(sms); });
    it = p.sets.emplace(sms, set).first;
  }
  return it->second;
}

}  // namespace gpuvp::cudart

namespace {
// libsmctrl's calls are not CUDA calls: what they reject is said on stderr under their own name, and the
// thread's last CUDA error stays what it was.
template <typename F>
int smctrl_call(const char* api, F&& f) {
  const Error before = last_error();
  const int r = call(api, std::forward<F>(f));
  last_error() = before;
  return r;
}
}  // namespace

// The entry point libsmctrl.so's mask calls forward to: `which` 0 global mask, 1 `stream`'s mask, 2 the
// thread's next.
CUDART_EXPORT int __cudaGpuvpSmMask(int which, void* stream, uint64_t mask) {
  static const char* const names[] = {"libsmctrl_set_global_mask", "libsmctrl_set_stream_mask",
                                      "libsmctrl_set_next_mask"};
  return smctrl_call(which >= 0 && which <= 2 ? names[which] : "libsmctrl", [&] {
    require(which >= 0 && which <= 2, kErrorInvalidValue, fmt::format("unknown mask kind {}", which));
    std::lock_guard lk(State::get().lock);
    Partitions& p = partitions();
    if (which == 0) p.global = mask;
    if (which == 1) p.streams[stream_of(stream)] = mask;
    if (which == 2) next_mask() = mask;
  });
}

// libsmctrl_get_tpc_info's: one SM per TPC.
CUDART_EXPORT int __cudaGpuvpTpcCount(uint32_t* num_tpcs, int device) {
  return smctrl_call("libsmctrl_get_tpc_info", [&] {
    require(num_tpcs != nullptr, kErrorInvalidValue, "pointer to the result is NULL");
    check_device(device);
    *num_tpcs = Session::get().props().sm_count;
  });
}
