#pragma once
// The bytes a cache's fetch was made for. A cache reads whole sectors; the requester asked for a
// part of them, and only that part must lie inside a mapped allocation (a sector read past the end
// of a buffer is no error). A memory that checks bounds checks [addr, addr + len) when the
// extension is there; len 0: nothing to check (a write-back of bytes checked when they were
// written). Caches pass it on to the next level.
#include <tlm>

#include <cstdint>

namespace gpuvp {

struct DemandExtension : tlm::tlm_extension<DemandExtension> {
  uint64_t addr = 0;
  unsigned len = 0;

  tlm_extension_base* clone() const override { return new DemandExtension(*this); }
  void copy_from(const tlm_extension_base& e) override { *this = static_cast<const DemandExtension&>(e); }
};

}  // namespace gpuvp
