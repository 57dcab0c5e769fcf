#include "faultinj/saboteur.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gpuvp::fi {

namespace {
constexpr const char* kFields[] = {"address", "data", "byte_enable", "command"};
}

const char* to_string(BusField f) { return kFields[static_cast<int>(f)]; }

BusField parse_bus_field(const std::string& s) {
  for (int i = 0; i < 4; ++i)
    if (s == kFields[i]) return static_cast<BusField>(i);
  throw std::invalid_argument(fmt::format("bus field '{}' unknown (one of address, data, byte_enable, command)", s));
}

std::string target_name(const std::string& link, BusField field) { return "bus:" + link + "." + to_string(field); }

unsigned bus_field_bits(BusField f) {
  switch (f) {
    case BusField::Address: return 40;
    case BusField::Data: return 64;
    case BusField::ByteEnable: return 8;
    case BusField::Command: return 1;
  }
  return 1;
}

BusSaboteur::BusSaboteur(sc_core::sc_module_name name, bool record_times) : sc_module(name), record_(record_times) {
  in.register_b_transport(this, &BusSaboteur::b_transport);
  in.register_transport_dbg(this, &BusSaboteur::transport_dbg);
  in.register_get_direct_mem_ptr(this, &BusSaboteur::get_direct_mem_ptr);
}

bool BusSaboteur::arm(uint64_t k, BusField field, const Fault& f) {
  if (k <= count_) return false;
  armed_ = true;
  k_ = k;
  field_ = field;
  fault_ = f;
  return true;
}

void BusSaboteur::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  ++count_;
  if (record_) times_.push_back(sc_core::sc_time_stamp().value());
  const bool hit = armed_ && count_ == k_;
  if (!hit) {
    out->b_transport(t, delay);
    return;
  }
  armed_ = false;
  fired_ = true;
  const bool read_data = field_ == BusField::Data && t.is_read();
  if (!read_data) corrupt_before(t);
  out->b_transport(t, delay);
  if (read_data) corrupt_data(t);  // a read is corrupted on its way back
}

void BusSaboteur::corrupt_before(tlm::tlm_generic_payload& t) {
  switch (field_) {
    case BusField::Address: t.set_address(apply(fault_, t.get_address(), bus_field_bits(field_))); break;
    case BusField::Data: corrupt_data(t); break;
    case BusField::Command:
      if (t.is_read() || t.is_write()) t.set_command(t.is_read() ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      break;
    case BusField::ByteEnable: {
      // All bytes enabled, then the fault applied to the enable bits of the first eight bytes.
      const unsigned n = t.get_data_length();
      be_.assign(n, 0xFF);
      const uint64_t bits = apply(fault_, n >= 8 ? 0xFF : (1u << n) - 1, 8);
      for (unsigned i = 0; i < std::min(n, 8u); ++i) be_[i] = (bits >> i & 1) ? 0xFF : 0x00;
      t.set_byte_enable_ptr(be_.data());
      t.set_byte_enable_length(n);
      break;
    }
  }
}

void BusSaboteur::corrupt_data(tlm::tlm_generic_payload& t) {
  unsigned char* d = t.get_data_ptr();
  const unsigned n = std::min(t.get_data_length(), 8u);
  if (!d || n == 0) return;
  uint64_t v = 0;
  std::memcpy(&v, d, n);
  v = apply(fault_, v, 8 * n);
  std::memcpy(d, &v, n);
}

unsigned BusSaboteur::transport_dbg(tlm::tlm_generic_payload& t) { return out->transport_dbg(t); }

bool BusSaboteur::get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  if (armed_) return false;  // every access must cross the saboteur while it may fire
  return out->get_direct_mem_ptr(t, dmi);
}

}  // namespace gpuvp::fi
