// Dispatch table of the instruction families, and special registers.
#include <fmt/format.h>

#include <cstring>

#include "models/sm/exec.h"

namespace gpuvp::sm {

namespace {
void not_executable(Exec& x) {
  x.fail("decode", fmt::format("opcode {} not executable here", unsigned(x.in.op)), -1, 0);
}

OpTable build_table() {
  OpTable t;
  for (auto& e : t) e.fn = not_executable;
  add_int_ops(t);
  add_carry_ops(t);
  add_float_ops(t);
  add_compare_ops(t);
  add_convert_ops(t);
  add_memory_ops(t);
  add_control_ops(t);
  add_warp_ops(t);
  add_video_ops(t);
  add_printf_ops(t);
  return t;
}
}  // namespace

const OpTable& op_table() {
  static const OpTable table = build_table();
  return table;
}

}  // namespace gpuvp::sm

namespace gpuvp {

using isa::SReg;

uint64_t SimtCore::sreg(SReg r, const Warp& w, unsigned lane) const {
  const Block& b = blocks_[w.block];
  const uint8_t* h = smem_.data() + b.smem_base;  // block header: faults in it are visible
  uint16_t hdr[6];
  uint32_t lin;
  std::memcpy(hdr, h, 12);
  std::memcpy(&lin, h + 12, 4);
  auto nz = [](uint32_t v) { return v ? v : 1u; };
  uint32_t tlin = w.in_block * cfg_.warp_size + lane;
  switch (r) {
    case SReg::TidX: return tlin % nz(hdr[0]);
    case SReg::TidY: return (tlin / nz(hdr[0])) % nz(hdr[1]);
    case SReg::TidZ: return tlin / (nz(hdr[0]) * nz(hdr[1]));
    case SReg::NtidX: return hdr[0];
    case SReg::NtidY: return hdr[1];
    case SReg::NtidZ: return hdr[2];
    case SReg::CtaidX: return lin % nz(hdr[3]);
    case SReg::CtaidY: return (lin / nz(hdr[3])) % nz(hdr[4]);
    case SReg::CtaidZ: return lin / (nz(hdr[3]) * nz(hdr[4]));
    case SReg::NctaidX: return hdr[3];
    case SReg::NctaidY: return hdr[4];
    case SReg::NctaidZ: return hdr[5];
    case SReg::LaneId: return lane;
    case SReg::WarpId: return w.id;
    case SReg::NWarpId: return (cfg_.max_threads + cfg_.warp_size - 1) / cfg_.warp_size;
    case SReg::SmId: return cfg_.id;
    case SReg::NSmId: return cfg_.num_sms;
    case SReg::Clock: return uint32_t(now_);
    case SReg::ClockHi: return uint32_t(now_ >> 32);
    case SReg::Clock64: return now_;
    case SReg::GlobalTimer: return now_ * period_ps_ / 1000;
    case SReg::GlobalTimerLo: return uint32_t(now_ * period_ps_ / 1000);
    case SReg::GlobalTimerHi: return uint32_t((now_ * period_ps_ / 1000) >> 32);
    case SReg::LanemaskEq: return uint32_t(1u << lane);
    case SReg::LanemaskLt: return uint32_t((1ull << lane) - 1);
    case SReg::LanemaskLe: return uint32_t((2ull << lane) - 1);
    case SReg::LanemaskGt: return uint32_t(~((2ull << lane) - 1));
    case SReg::LanemaskGe: return uint32_t(~((1ull << lane) - 1));
    case SReg::DynamicSmemSize: return b.lp->dyn_shared;
    case SReg::TotalSmemSize: return b.k.stride;
    case SReg::GridId: return b.lp->launch_id;
    default: return 0;
  }
}

}  // namespace gpuvp
