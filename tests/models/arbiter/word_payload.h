#pragma once
// A one-word transaction, as the arbiter tests' initiators send.
#include <cstdint>

#include <tlm>

namespace gpuvp::test {

inline void word_payload(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t addr, uint32_t& v) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
  t.set_data_length(4);
  t.set_streaming_width(4);
}

}  // namespace gpuvp::test
