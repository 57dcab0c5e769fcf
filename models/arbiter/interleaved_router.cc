#include "models/arbiter/interleaved_router.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuvp {

InterleavedRouter::InterleavedRouter(sc_core::sc_module_name name, unsigned requesters, unsigned slices,
                                     uint64_t interleave_bytes)
    : sc_core::sc_module(name),
      in("in", requesters),
      out("out", size_t(requesters) * slices),
      n_(requesters),
      slices_(slices),
      interleave_(interleave_bytes) {
  if (requesters == 0 || slices == 0 || interleave_bytes == 0)
    throw std::invalid_argument(fmt::format("{}: a router needs requesters, slices and an interleave ({}, {}, {})",
                                            this->name(), requesters, slices, interleave_bytes));
  for (unsigned i = 0; i < n_; ++i) {
    in[i].register_b_transport(this, &InterleavedRouter::b_transport, int(i));
    in[i].register_transport_dbg(this, &InterleavedRouter::transport_dbg, int(i));
    in[i].register_get_direct_mem_ptr(this, &InterleavedRouter::get_direct_mem_ptr, int(i));
  }
}

void InterleavedRouter::b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  port(slice_of(trans.get_address()), unsigned(id))->b_transport(trans, delay);
}

unsigned InterleavedRouter::transport_dbg(int id, tlm::tlm_generic_payload& trans) {
  return port(slice_of(trans.get_address()), unsigned(id))->transport_dbg(trans);
}

bool InterleavedRouter::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.allow_none();
  return false;
}

}  // namespace gpuvp
