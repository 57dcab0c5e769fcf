#pragma once
// Managed and mapped memory (docs/cuda.md, "Managed and mapped memory"). The platform's GPU reaches
// only its global memory, so memory both sides use is a Mirror: host pages and a device range. The
// device range is authoritative from a launch that may use it until the work that may use it is done
// at a synchronisation (the device idle; for managed memory attached to one stream, that stream idle):
// it is copied to the device at the launch and back at that point; the host pages are authoritative
// the rest of the time. While the device owns them, managed pages are inaccessible to the host: a
// host access then faults, as it does on GPUs without concurrent managed access (Jetson TX2, pre-Pascal).
// Everything here runs with State::lock held; functions taking rt run on the simulation's thread.
#include <cstddef>
#include <cstdint>

#include "cudart/state.h"

namespace gpuvp::cudart {

// A new mirror of `size` bytes: a device block, and host pages at the device address (host == nullptr)
// or the program's own host memory (cudaHostRegister).
Mirror& add_mirror(rt::Runtime& rt, Mirror::Kind kind, size_t size, unsigned flags, void* host = nullptr);
// A __managed__ variable of a loaded module: its bytes at `addr`, read into the host pages.
void add_var_mirror(rt::Runtime& rt, uint64_t addr, size_t size);
void remove_mirror(rt::Runtime& rt, const Mirror& m);

// The mirror holding [p, p + n) on its device or its host side, or nullptr.
Mirror* mirror_of(const void* p, size_t n);
// The host address of p, a pointer into a mirror on either side.
void* host_side(const void* p);

void to_device(rt::Runtime& rt, rt::Stream launch);  // before a launch in `launch`: the host's bytes to the device
void to_host_if_idle(rt::Runtime& rt); // after a synchronisation: the bytes back of mirrors no work may use
// cudaStreamAttachMemAsync: the launches that take the mirror to the device from now on.
void attach(Mirror& m, Mirror::Scope scope, rt::Stream stream);
void host_view(rt::Runtime& rt);       // waits for the device, then the bytes back (a copy or memset of a mirror)

}  // namespace gpuvp::cudart
