#pragma once
// Where models report the errors they detect; the platform's host port waits on `event` next to
// kernel_done and hands the first error to the runtime.
#include <systemc>

#include <optional>

#include "sw/isa/device_error.h"

namespace gpuvp {

struct ErrorSink {
  std::optional<DeviceErrorInfo> first;  // the first error wins; later ones are consequences
  sc_core::sc_event event;
  void report(const DeviceErrorInfo& e) {
    if (!first) {
      first = e;
      event.notify(sc_core::SC_ZERO_TIME);
    }
  }
};

}  // namespace gpuvp
