#pragma once
// Memory-mapped configuration block: 64 x 32-bit registers (map: sw/isa/config_regs.h), a TLM-2.0 target
// at absolute addresses amap::kConfigBase .. kConfigBase + 0xFF, and the signals the block
// scheduler needs.
//
// TLM rules (b_transport and transport_dbg):
//   - address and length must be multiples of 4, 4 <= length, and the whole access inside the
//     block: otherwise TLM_ADDRESS_ERROR_RESPONSE (nothing is read or written);
//   - streaming width must equal the data length (no streaming): else TLM_BURST_ERROR_RESPONSE;
//   - byte enables are not supported: TLM_BYTE_ENABLE_ERROR_RESPONSE;
//   - TLM_IGNORE_COMMAND: TLM_OK_RESPONSE, nothing done;
//   - multi-word aligned bursts read/write consecutive registers; data is little-endian words;
//   - b_transport adds latency_cycles * clock period to the delay (loosely timed: register
//     effects happen at call time, except the start, see below). transport_dbg has no latency and
//     no side effects (a debug write of kControl does not start a kernel).
// Reset values: block-scheduler.md (blocks_per_core 1, num_gprs 0x0B, shmem_size 0x10, block 16x16x1,
// grid 3x1) plus grid_z = 1; everything else 0.
// Register behaviour:
//   - kStatus (14) is read-only (writes ignored): bit0 busy, bit1 done (sticky until the next
//     start), bit2 error (a start written while busy; cleared by the next accepted start).
//   - kControl (13): a write with bit0 = 1 starts a kernel: at call time + delay (the moment the
//     write completes), `en` rises, status = busy. en is held until the scheduler's rdy input is
//     seen low (the scheduler accepted the start), then dropped; kernel_done (rising) sets
//     status = done and clears busy. A start while busy sets the error bit and is ignored.
//     The register keeps the value written (reads return it).
//   - every other register is plain read/write; the outputs follow register writes at once.
// Registry names (<path>.<field>, 32 bits unless noted): blocks_per_core, num_gprs, shmem_size,
// param_size, dyn_shmem_size, block_x, block_y, block_z, grid_x, grid_y, grid_z, entry_lo,
// entry_hi, control, status, local_bytes, num_reg_slots, num_preds, stream, priority, launch_id,
// reg[21] .. reg[31] (unnamed spare indices), param[0] .. param[31] (indices 0x20..0x3F),
// en (1 bit, the start flip-flop).
//
// Access recording (faultinj/lifetimes.h), at the simulated instant of each call (register effects
// happen at call time; an arbitrated caller calls at its grant): a word a transaction reads is read, a
// word it writes is written whole (byte enables are refused); a start reads status and writes it whole,
// a start while busy and kernel_done read it (they keep other bits). The registers driving the launch
// pins (blocks_per_core, grid, block, shmem_size, dyn_shmem_size, param_size) and en are read at every
// instant: the scheduler reacts to any change of its inputs (read_always).
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/common/clock.h"
#include "models/common/launch_signals.h"
#include "models/common/params.h"
#include "models/common/registry.h"
#include "sw/isa/config_regs.h"

namespace gpuvp {

struct ConfigBlockConfig {
  Clock clock;
  unsigned latency_cycles = 1;
  std::string path = "gpu.cfg";

  static ConfigBlockConfig from(const Params& p, const Clock& clk);  // config_block_params.cc
};

class ConfigBlock : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ConfigBlock> in{"in"};

  // Scheduler side.
  sc_core::sc_in<bool> rdy{"rdy"};
  sc_core::sc_in<bool> kernel_done{"kernel_done"};
  sc_core::sc_out<bool> en{"en"};
  LaunchConfigPins<OutPin> launch;  // the launch registers, driven as they are written

  ConfigBlock(sc_core::sc_module_name name, const ConfigBlockConfig& cfg, Registry& reg);
  SC_HAS_PROCESS(ConfigBlock);

  static uint32_t reset_value(unsigned index);
  uint32_t reg(unsigned index) const { return regs_.at(index); }
  uint64_t starts() const { return starts_; }
  // The start pulses posted and not yet taken, relative to `now` (ps) (Registry::add_timing).
  uint64_t timing_digest(uint64_t now) const;

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);
  unsigned access(tlm::tlm_generic_payload& trans, bool debug, const sc_core::sc_time& delay);
  void drive();
  void on_start();
  void on_rdy();
  void on_kernel_done();
  void note(unsigned index, Access kind) const;

  ConfigBlockConfig cfg_;
  Registry& reg_;
  std::array<const Target*, cfgreg::kNumRegs> targets_{};
  std::array<uint32_t, cfgreg::kNumRegs> regs_{};
  bool en_ = false;
  uint64_t starts_ = 0;
  sc_core::sc_event drive_ev_;
  sc_core::sc_event_queue start_q_;
  std::vector<uint64_t> start_at_;  // the instants (ps) start_q_ has pending
};

}  // namespace gpuvp
