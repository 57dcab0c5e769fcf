#pragma once
// InterleavedRouter: one port per memory slice for each requester, chosen by address.
//
//   in[0..N-1]            (simple_target_socket_tagged)   <- requesters (SMs)
//   out[s * N + r]        (simple_initiator_socket)       -> slice s's arbiter, its requester port r
//
// A Fermi-class GPU reaches its memory partitions (an L2 slice and a DRAM channel each) through a
// crossbar: requests to different partitions do not wait for each other. One ArbitratedTarget per
// slice behind this router models that: a transaction to address a goes to slice
// (a / interleave_bytes) mod slices, the same line interleaving as the L2's slices
// (models/cache/timed_cache.cc), through that slice's arbiter. The router itself takes no time and
// holds no state: the payload (with its delay and extensions) passes through as it is. An access is
// routed by its first byte (the SMs' accesses never cross a line). Debug transport goes the same way;
// DMI is refused (it would bypass the arbiters).
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>

namespace gpuvp {

class InterleavedRouter : public sc_core::sc_module {
 public:
  sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<InterleavedRouter>> in;
  sc_core::sc_vector<tlm_utils::simple_initiator_socket<InterleavedRouter>> out;

  InterleavedRouter(sc_core::sc_module_name name, unsigned requesters, unsigned slices, uint64_t interleave_bytes);

  unsigned requesters() const { return n_; }
  unsigned slices() const { return slices_; }
  unsigned slice_of(uint64_t addr) const { return unsigned(addr / interleave_ % slices_); }
  // The initiator socket requester r uses for slice s.
  tlm_utils::simple_initiator_socket<InterleavedRouter>& port(unsigned s, unsigned r) { return out[s * n_ + r]; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);

  unsigned n_, slices_;
  uint64_t interleave_;
};

}  // namespace gpuvp
