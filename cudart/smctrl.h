#pragma once
// libsmctrl's SM partitions (Bakita & Anderson, RTAS 2023) for unmodified CUDA programs (docs/cuda.md,
// "SM partitions"): libsmctrl.so (cudart/libsmctrl.cc) forwards its calls to __cudaGpuvpSmMask, and a
// launch goes to an SM set of the dispatcher holding the SMs its mask leaves enabled. One SM per TPC:
// bit i of a mask is SM i, set to disable it, as on the Jetsons' GPUs (a TPC of one SM).
#include <cstdint>

#include "sw/runtime/runtime.h"

namespace gpuvp::cudart {

// The SM set a launch in stream `s` goes to (0: every SM): the calling thread's next mask (consumed),
// else the stream's, else the global one; sets are made once per distinct SMs. On the application's
// thread with State::lock held, before the launch is handed to the simulation; creating a set is a
// call of its own there (on_device). A mask disabling every SM is refused (cudaErrorInvalidValue);
// in the batch mode, which has no SM sets, a mask is ignored with one warning per process.
uint32_t launch_sm_set(rt::Stream s);

}  // namespace gpuvp::cudart
