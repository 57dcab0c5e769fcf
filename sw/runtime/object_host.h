#pragma once
// Data objects (docs/reliability.md): the host program names its allocations, and a platform that
// protects some of them by replication has the runtime make their copies. A HostInterface that also
// implements ObjectHost is told the names and asked for copies; other hosts ignore both.
#include <cstdint>
#include <string>
#include <vector>

#include "sw/runtime/runtime.h"

namespace gpuvp::rt {

class ObjectHost {
 public:
  virtual ~ObjectHost() = default;
  virtual void name_global(uint64_t addr, const std::string& name) = 0;
  // Copies the platform's protection wants of the allocation at `addr` (1: unprotected).
  virtual unsigned copies_wanted(uint64_t addr) const = 0;
  // Where the runtime put them (the start-address table).
  virtual void set_replicas(uint64_t addr, const std::vector<uint64_t>& copies) = 0;
};

// Names the allocation starting at `p`: the memory profile names it so, and protection selects
// objects by name. Unnamed allocations are "allocN" (N: their rank). A runtime other than the
// host runtime ignores it; an address that starts no allocation is a RuntimeError.
void name_allocation(Runtime& rt, DevPtr p, const std::string& name);

}  // namespace gpuvp::rt
