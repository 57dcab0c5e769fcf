#include "models/config_block/config_block.h"

#include <algorithm>
#include <cstring>

#include "sw/isa/address_map.h"
#include "models/common/digest.h"
#include "models/common/log.h"

namespace gpuvp {

namespace {
using cfgreg::kStatusBusy, cfgreg::kStatusDone, cfgreg::kStatusError;
constexpr uint64_t kBytes = cfgreg::kNumRegs * 4;
}  // namespace

uint32_t ConfigBlock::reset_value(unsigned i) { return cfgreg::reset_value(i); }

ConfigBlock::ConfigBlock(sc_core::sc_module_name name, const ConfigBlockConfig& cfg, Registry& reg)
    : sc_core::sc_module(name), cfg_(cfg), reg_(reg) {
  for (unsigned i = 0; i < cfgreg::kNumRegs; ++i) regs_[i] = reset_value(i);
  auto w = [this] { drive_ev_.notify(sc_core::SC_ZERO_TIME); };
  for (unsigned i = 0; i < cfgreg::kNumRegs; ++i) {
    reg.add_field(cfg.path + "." + cfgreg::name(i), 32, &regs_[i], w);
  }
  reg.add_field(cfg.path + ".en", 1, &en_, w);
  // The registers drive() puts on the launch pins, and en.
  static const unsigned kPins[] = {cfgreg::kBlocksPerCore, cfgreg::kGridX,     cfgreg::kGridY,        cfgreg::kGridZ,
                                   cfgreg::kBlockX,        cfgreg::kBlockY,    cfgreg::kBlockZ,       cfgreg::kShmemSize,
                                   cfgreg::kDynShmemSize,  cfgreg::kParamSize};
  for (unsigned i = 0; i < cfgreg::kNumRegs; ++i) {
    Target& t = reg.at_mut(cfg.path + "." + cfgreg::name(i));
    t.reads_observed = true;
    targets_[i] = &t;
    if (std::find(std::begin(kPins), std::end(kPins), i) != std::end(kPins)) read_always(t);
  }
  read_always(reg.at_mut(cfg.path + ".en"));
  reg.add_timing(cfg.path, [this](uint64_t now) { return timing_digest(now); });

  in.register_b_transport(this, &ConfigBlock::b_transport);
  in.register_transport_dbg(this, &ConfigBlock::transport_dbg);

  SC_METHOD(drive);  // runs at time 0: drives the reset values
  sensitive << drive_ev_;
  SC_METHOD(on_start);
  sensitive << start_q_;
  dont_initialize();
  SC_METHOD(on_rdy);
  sensitive << rdy;
  dont_initialize();
  SC_METHOD(on_kernel_done);
  sensitive << kernel_done.pos();
  dont_initialize();
}

unsigned ConfigBlock::access(tlm::tlm_generic_payload& t, bool debug, const sc_core::sc_time& delay) {
  const uint64_t a = t.get_address();
  const unsigned len = t.get_data_length();
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return 0;
  }
  if (a < amap::kConfigBase || a % 4 != 0 || len == 0 || len % 4 != 0 || len > kBytes ||
      a - amap::kConfigBase > kBytes - len || t.get_data_ptr() == nullptr) {
    log::debug(cfg_.path, "bad access at {:#x} length {}", a, len);
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  if (!debug && t.get_byte_enable_ptr() != nullptr) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return 0;
  }
  if (!debug && t.get_streaming_width() < len) {
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return 0;
  }
  const unsigned first = static_cast<unsigned>((a - amap::kConfigBase) / 4);
  unsigned char* d = t.get_data_ptr();
  bool changed = false;
  for (unsigned w = 0; w < len / 4; ++w) {
    const unsigned i = first + w;
    if (t.is_read()) {
      uint32_t v = regs_[i];
      note(i, Access::Read);
      for (unsigned b = 0; b < 4; ++b) d[4 * w + b] = static_cast<unsigned char>(v >> (8 * b));
    } else {
      uint32_t v = 0;
      for (unsigned b = 0; b < 4; ++b) v |= uint32_t{d[4 * w + b]} << (8 * b);
      const cfgreg::Access acc = cfgreg::access(i);
      if (acc == cfgreg::Access::ReadOnly) continue;
      regs_[i] = v;
      note(i, Access::Write);
      changed = true;
      if (acc == cfgreg::Access::Start && (v & 1u) && !debug) {
        start_q_.notify(delay);
        start_at_.push_back((sc_core::sc_time_stamp() + delay).value());
      }
    }
  }
  if (changed) drive_ev_.notify(sc_core::SC_ZERO_TIME);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
  return len;
}

void ConfigBlock::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  delay += cfg_.clock.cycles(cfg_.latency_cycles);
  access(t, false, delay);
}

unsigned ConfigBlock::transport_dbg(tlm::tlm_generic_payload& t) { return access(t, true, sc_core::SC_ZERO_TIME); }

// One word's access at the current simulated instant, while recording.
void ConfigBlock::note(unsigned index, Access kind) const {
  if (reg_.recording()) reg_.note(*targets_[index], 0, kind, sc_core::sc_time_stamp().value());
}

uint64_t ConfigBlock::timing_digest(uint64_t now) const {
  uint64_t h = 0;
  for (uint64_t t : start_at_) h = digest_fold(h, t - now);
  return h;
}

void ConfigBlock::on_start() {
  const uint64_t now = sc_core::sc_time_stamp().value();
  start_at_.erase(std::remove_if(start_at_.begin(), start_at_.end(), [now](uint64_t t) { return t <= now; }),
                  start_at_.end());
  uint32_t& st = regs_[cfgreg::kStatus];
  note(cfgreg::kStatus, Access::Read);
  if (st & kStatusBusy) {
    st |= kStatusError;
    log::warn(cfg_.path, "start while busy ignored");
    return;
  }
  st = kStatusBusy;
  note(cfgreg::kStatus, Access::Write);
  en_ = true;
  ++starts_;
  log::debug(cfg_.path, "start (launch {})", regs_[cfgreg::kLaunchId]);
  drive_ev_.notify(sc_core::SC_ZERO_TIME);
}

void ConfigBlock::on_rdy() {
  if (en_ && !rdy.read()) {
    en_ = false;
    drive_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

void ConfigBlock::on_kernel_done() {
  uint32_t& st = regs_[cfgreg::kStatus];
  note(cfgreg::kStatus, Access::Read);  // the other bits are kept
  st = (st & ~kStatusBusy) | kStatusDone;
  log::debug(cfg_.path, "kernel done");
}

void ConfigBlock::drive() {
  auto put = [](auto& port, auto v) {
    if (port.read() != v) port.write(v);
  };
  put(en, en_);
  put(launch.blocks_per_core, regs_[cfgreg::kBlocksPerCore]);
  put(launch.grid_x, regs_[cfgreg::kGridX]);
  put(launch.grid_y, regs_[cfgreg::kGridY]);
  put(launch.grid_z, regs_[cfgreg::kGridZ]);
  put(launch.block_x, regs_[cfgreg::kBlockX]);
  put(launch.block_y, regs_[cfgreg::kBlockY]);
  put(launch.block_z, regs_[cfgreg::kBlockZ]);
  put(launch.shmem_size, regs_[cfgreg::kShmemSize]);
  put(launch.dyn_shmem_size, regs_[cfgreg::kDynShmemSize]);
  put(launch.param_size, regs_[cfgreg::kParamSize]);
}

}  // namespace gpuvp
