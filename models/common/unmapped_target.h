#pragma once
// A target for initiator sockets that have no path in a configuration: every access, timed or
// debug, answers TLM_ADDRESS_ERROR_RESPONSE, so a stray access is a reported error, never a hang.
// Used for the SMs' configuration-block sockets under the concurrent dispatcher, which hands
// blocks with their launch parameters to the SMs directly (docs/architecture.md, "Concurrent mode").
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

class UnmappedTarget : public sc_core::sc_module {
 public:
  using Socket = tlm_utils::simple_target_socket_tagged<UnmappedTarget>;

  UnmappedTarget(sc_core::sc_module_name name, unsigned n) : sc_core::sc_module(name) {
    for (unsigned i = 0; i < n; ++i) {
      in.push_back(std::make_unique<Socket>(("in_" + std::to_string(i)).c_str()));
      in.back()->register_b_transport(this, &UnmappedTarget::b_transport, int(i));
      in.back()->register_transport_dbg(this, &UnmappedTarget::transport_dbg, int(i));
    }
  }
  Socket& operator[](unsigned i) { return *in.at(i); }

 private:
  void b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time&) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  unsigned transport_dbg(int, tlm::tlm_generic_payload& t) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  std::vector<std::unique_ptr<Socket>> in;
};

}  // namespace gpuvp
