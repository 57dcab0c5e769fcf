#pragma once
// Bus saboteur: a pass-through TLM module on one link of the platform (Platform::link_names()) that
// counts the transactions crossing it and corrupts the k-th one: its address, its data, its byte
// enables or its command. DMI is refused while it is armed, so nothing bypasses it.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "faultinj/fault.h"

namespace gpuvp::fi {

enum class BusField : uint8_t { Address = 0, Data = 1, ByteEnable = 2, Command = 3 };
const char* to_string(BusField f);
BusField parse_bus_field(const std::string& s);  // throws std::invalid_argument naming the choices
// Bits a fault may hit in the field: 40 address bits (the platform's address space), 64 data bits
// (the first 8 bytes of the transfer), 8 byte-enable bits (one per byte of the first 8), 1 command bit.
unsigned bus_field_bits(BusField f);
// The fault-list target name of a bus field: "bus:gpu.sm0.gmem_wr.address".
std::string target_name(const std::string& link, BusField field);

class BusSaboteur : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<BusSaboteur> in{"in"};
  tlm_utils::simple_initiator_socket<BusSaboteur> out{"out"};

  BusSaboteur(sc_core::sc_module_name name, bool record_times);

  uint64_t transactions() const { return count_; }
  // Simulated instants (ps) of the transactions so far, when recording.
  const std::vector<uint64_t>& times() const { return times_; }
  // Corrupts transaction number `k` (1-based, counted since the start) with `f` on `field`
  // (f.bit, f.model, f.mask as for a register). False if that transaction has already passed.
  bool arm(uint64_t k, BusField field, const Fault& f);
  bool fired() const { return fired_; }
  bool armed() const { return armed_; }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& t);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
  void corrupt_before(tlm::tlm_generic_payload& t);
  void corrupt_data(tlm::tlm_generic_payload& t);

  bool record_;
  uint64_t count_ = 0;
  std::vector<uint64_t> times_;
  bool armed_ = false, fired_ = false;
  uint64_t k_ = 0;
  BusField field_ = BusField::Address;
  Fault fault_;
  std::vector<unsigned char> be_;  // byte enables of a corrupted transaction
};

}  // namespace gpuvp::fi
