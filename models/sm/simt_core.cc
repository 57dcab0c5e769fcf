// SimtCore: launch, and the issue loop (warp choice, fetch, dispatch to the instruction families).
// The other parts of the core are in their own files (docs/sm.md, "Files").
#include "models/sm/simt_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/sm/exec.h"
#include "models/sm/instruction_buffer.h"
#include "models/sm/warp_scheduler.h"

namespace gpuvp {

using namespace isa;

SimtCore::SimtCore(const SmConfig& cfg, CoreEnv& env)
    : cfg_(cfg),
      env_(env),
      scheduler_(sm::make_warp_scheduler(cfg.warp_policy)),
      ibuf_(std::make_unique<sm::InstructionBuffer>(cfg.ibuf_insts, env)),
      ops_(sm::op_table().data()) {
  period_ps_ = uint64_t(std::llround(cfg.clock.period().to_seconds() * 1e12));
  if (period_ps_ == 0) period_ps_ = 1;
  unsigned sps = cfg.sps ? cfg.sps : 1;
  issue_cycles_ = (cfg.warp_size + sps - 1) / sps;
  if (issue_cycles_ == 0) issue_cycles_ = 1;
  smem_.assign(cfg.shared_bytes, 0);
  if (cfg.timing == SmTiming::Flexgrip) {
    pipe_ = std::make_unique<sm::FlexgripPipeline>();
    packets_ = issue_cycles_;  // lane groups of sps threads
  }
}

SimtCore::~SimtCore() { clear(); }

void SimtCore::clear() {
  for (auto& w : warps_) {
    delete[] w.rstack;
    w.rstack = nullptr;
  }
  blocks_.clear();
  warps_.clear();
  live_warps_ = 0;
  has_error_ = false;
  block_times_.clear();
}

void SimtCore::fail(const std::string& kind, const std::string& what, const Warp* w, int lane, uint64_t addr) {
  if (has_error_) return;
  has_error_ = true;
  error_ = DeviceErrorInfo{};
  error_.kind = kind;
  error_.pc = cur_pc_;
  error_.sm = int(cfg_.id);
  error_.lane = lane;
  error_.address = addr;
  if (w) {
    error_.block = int64_t(blocks_[w->block].linear);
    error_.warp = int(w->id);
  }
  error_.message = fmt::format("{} error: {} (sm {}, pc {:#x}, block {}, warp {}, lane {}, address {:#x})", kind, what,
                               cfg_.id, cur_pc_, error_.block, error_.warp, lane, addr);
}

bool SimtCore::fault_at(const CoreEnv::Fault& f, const Warp& w, int lane, uint64_t addr) {
  fail(f.kind.empty() ? "tlm" : f.kind, f.message.empty() ? "memory access failed" : f.message, &w, lane, addr);
  return false;
}

bool SimtCore::launch(const LaunchParams& lp, uint64_t start) {
  clear();
  lp_ = lp;
  cur_pc_ = lp.entry;
  ibuf_->new_launch();  // the loader may have rewritten code between batches: refetch
  if (!fits(lp)) return false;
  size_t nb = lp.blocks.size();
  threads_ = uint32_t(uint64_t(lp.block[0]) * lp.block[1] * lp.block[2]);  // fits() bounded it
  wpb_ = (threads_ + cfg_.warp_size - 1) / cfg_.warp_size;
  regfile_.assign(size_t(nb) * wpb_ * lp.num_regs * 32, 0);
  predfile_.assign(size_t(nb) * wpb_ * std::max(lp.num_preds, 1u), 0);
  blocks_.resize(nb);
  warps_.resize(nb * wpb_);
  block_times_.resize(nb);
  if (pipe_) {  // the SMP controller sets the batch up before the first warp issues
    start += sm::flexgrip_setup_cycles(unsigned(nb), threads_, uint32_t(lp.params.size() + 3) / 4, unsigned(nb * wpb_));
    pipe_->reset(start);
    fg_last_ = start;
  }
  for (size_t j = 0; j < nb; ++j) init_block(unsigned(j), start);
  live_warps_ = unsigned(warps_.size());
  now_ = synced_ = start;
  last_ = -1;
  stats_.batches++;
  stats_.blocks += nb;
  return true;
}

// Resource checks of a batch; sets the shared memory layout (user_off_, user_bytes_, stride_).
bool SimtCore::fits(const LaunchParams& lp) {
  auto resource = [&](const std::string& what) {
    fail("resource", what, nullptr, -1, 0);
    return false;
  };
  uint64_t threads = uint64_t(lp.block[0]) * lp.block[1] * lp.block[2];
  size_t nb = lp.blocks.size();
  if (cfg_.warp_size == 0 || cfg_.warp_size > 32) return resource(fmt::format("warp size {} (1..32)", cfg_.warp_size));
  if (threads == 0) return resource("empty block (0 threads)");
  if (threads > cfg_.max_threads_per_block)
    return resource(fmt::format("threads per block: {} > max_threads_per_block {}", threads, cfg_.max_threads_per_block));
  if (nb > cfg_.max_blocks) return resource(fmt::format("resident blocks: {} > max_blocks {}", nb, cfg_.max_blocks));
  if (threads * nb > cfg_.max_threads)
    return resource(fmt::format("threads: {} blocks x {} > max_threads {}", nb, threads, cfg_.max_threads));
  if (uint64_t(lp.regs_per_thread) * threads * nb > cfg_.registers)
    return resource(fmt::format("registers: {} per thread x {} threads x {} blocks > {}", lp.regs_per_thread, threads, nb,
                                cfg_.registers));
  if (lp.local_bytes > cfg_.max_local_bytes)
    return resource(fmt::format("local memory: {} bytes per thread > max_local_bytes {}", lp.local_bytes, cfg_.max_local_bytes));
  user_off_ = user_region_offset(uint32_t(lp.params.size()));
  user_bytes_ = lp.static_shared + lp.dyn_shared;
  uint64_t need = uint64_t(user_off_) + user_bytes_;
  if (need > cfg_.shared_per_block)
    return resource(fmt::format("shared memory per block: {} bytes > shared_per_block {}", need, cfg_.shared_per_block));
  stride_ = std::max<uint32_t>(lp.smem_per_block, uint32_t((need + 255) / 256 * 256));
  if (uint64_t(stride_) * nb > smem_.size())
    return resource(fmt::format("shared memory: {} blocks x {} bytes > {} bytes", nb, stride_, smem_.size()));
  return true;
}

// Resident block j of the batch: its shared memory (header, parameters, zeroed user region), local
// memory and warps, all starting at the entry point at cycle `start`.
void SimtCore::init_block(unsigned j, uint64_t start) {
  Block& b = blocks_[j];
  b.linear = lp_.blocks[j];
  b.smem_base = j * stride_;
  b.first_warp = j * wpb_;
  b.nwarps = b.live_warps = wpb_;
  if (lp_.local_bytes) b.local.assign(size_t(threads_) * lp_.local_bytes, 0);
  uint8_t* s = smem_.data() + b.smem_base;
  std::memset(s, 0, stride_);
  uint16_t hdr[6] = {uint16_t(lp_.block[0]), uint16_t(lp_.block[1]), uint16_t(lp_.block[2]),
                     uint16_t(lp_.grid[0]),  uint16_t(lp_.grid[1]),  uint16_t(lp_.grid[2])};
  std::memcpy(s, hdr, 12);
  uint32_t lin = uint32_t(b.linear);
  std::memcpy(s + 12, &lin, 4);
  if (!lp_.params.empty()) std::memcpy(s + kBlockHeaderBytes, lp_.params.data(), lp_.params.size());
  block_times_[j] = BlockTimes{b.linear, start, start};
  for (unsigned k = 0; k < wpb_; ++k) {
    Warp& w = warps_[b.first_warp + k];
    w = Warp{};
    w.id = b.first_warp + k;
    w.block = j;
    w.in_block = k;
    unsigned first = k * cfg_.warp_size;
    unsigned n = std::min(cfg_.warp_size, threads_ - first);
    w.live = n >= 32 ? ~0u : ((1u << n) - 1);
    w.ready = start;
    w.regs = regfile_.data() + size_t(w.id) * lp_.num_regs * 32;
    w.preds = predfile_.data() + size_t(w.id) * std::max(lp_.num_preds, 1u);
    w.groups[0] = Group{lp_.entry, w.live};
    w.ngroups = 1;
  }
}

bool SimtCore::run() {
  while (live_warps_ && !has_error_) {
    int i = scheduler_->pick(warps_, last_, now_);
    if (i >= 0 && warps_[i].ready > now_) {  // a policy that waits for its warp (rr_strict)
      now_ = warps_[i].ready;
      if (now_ - synced_ >= 1000) {
        env_.sync(now_);
        synced_ = now_;
      }
      continue;
    }
    if (i < 0) {
      uint64_t t = ~uint64_t{0};
      for (auto& w : warps_)
        if (w.state == Warp::Ready) t = std::min(t, w.ready);
      if (t == ~uint64_t{0}) {
        const Warp* bw = nullptr;
        for (auto& w : warps_)
          if (w.state == Warp::Barrier) bw = &w;
        if (bw) cur_pc_ = bw->groups[0].pc;
        fail("barrier", "block cannot make progress: barrier never completes (warps exited or diverged)", bw, -1, 0);
        break;
      }
      now_ = std::max(now_, t);
      // Every warp is waiting (memory latency, nanosleep): one jump, and let simulated time follow.
      if (now_ - synced_ >= 1000) {
        env_.sync(now_);
        synced_ = now_;
      }
      continue;
    }
    if (now_ >= horizon_) {  // let simulated time reach the core before it goes past the horizon
      env_.sync(now_);
      synced_ = now_;
    }
    last_ = i;
    if (issue_log_) issue_log_->push_back(now_);
    in_step_ = true;  // a stop while the instruction waits for memory sees its data in flight
    step(warps_[i]);
    in_step_ = false;
    if (now_ - synced_ >= quantum_) {
      env_.sync(now_);
      synced_ = now_;
    }
  }
  if (pipe_) now_ = std::max(now_, fg_last_ + sm::kFgBatchEnd);  // the scheduler sees the last warp finish
  return !has_error_;
}

bool SimtCore::validate(const Inst& in, uint64_t pc) {
  auto bad = [&](const std::string& why) {
    fail("decode", fmt::format("invalid instruction at {:#x}: {}", pc, why), nullptr, -1, pc);
    return false;
  };
  if (in.guard >= 0 && uint32_t(in.guard) >= lp_.num_preds) return bad(fmt::format("guard predicate {} out of range", in.guard));
  for (int i = 0; i < in.nops; ++i) {
    const Operand& o = in.ops[i];
    if ((o.kind == OpKind::Reg || (o.kind == OpKind::Mem && o.reg != kNoReg)) && o.reg >= lp_.num_regs)
      return bad(fmt::format("register slot {} >= {}", o.reg, lp_.num_regs));
    if (o.kind == OpKind::Pred && o.reg >= lp_.num_preds)
      return bad(fmt::format("predicate slot {} >= {}", o.reg, lp_.num_preds));
  }
  if (in.op == Opcode::Ld || in.op == Opcode::St || in.op == Opcode::Atom || in.op == Opcode::Red) {
    unsigned b = bits_of(in.type);
    if (b < 8) return bad("memory access without a data type");
    if (in.nops < in.vec + 1) return bad("missing memory operand");
    int mi = in.op == Opcode::Ld ? in.vec : in.op == Opcode::Atom ? 1 : 0;
    if (in.ops[mi].kind != OpKind::Mem) return bad("missing memory operand");
  }
  return true;
}

const Inst* SimtCore::fetch(Warp& w, uint64_t pc) {
  sm::InstructionBuffer::Error err;
  bool validated = false;
  return fetched(w, pc, ibuf_->fetch(pc, now_, stats_.fetches, err, validated), err, validated);
}

// The instruction a fetch returned, checked; nullptr after reporting why there is none.
const Inst* SimtCore::fetched(Warp& w, uint64_t pc, const Inst* in, const sm::InstructionBuffer::Error& err,
                              bool validated) {
  if (!in) {
    if (err.decode) fail("decode", fmt::format("undecodable instruction at {:#x}: {}", pc, err.why), &w, -1, pc);
    else fault_at(err.fault, w, -1, err.addr);
    return nullptr;
  }
  if (!validated) {  // register and predicate bounds, once per launch
    if (!validate(*in, pc)) return nullptr;
    ibuf_->mark_validated(pc);
  }
  return in;
}

// Issues one instruction of warp w: its frontier group, timed by the SM's timing model.
void SimtCore::step(Warp& w) {
  unsigned gi = w.ngroups == 1 ? 0 : w.frontier();
  uint64_t pc = w.groups[gi].pc;
  cur_pc_ = pc;
  if (pipe_) return step_flexgrip(w, gi, pc);
  const Inst* in = fetch(w, pc);
  if (!in) return;
  if (now_ >= horizon_) {  // the fetch took the core to the horizon: execute only once time is there
    env_.sync(now_);
    synced_ = now_;
  }
  now_ += issue_cycles_;
  lat_ = cfg_.lat.alu;
  done_at_ = now_;
  if (execute(w, gi, *in, pc) && w.state == Warp::Ready) w.ready = std::max(w.ready, done_at_ + lat_);
}

// The instruction's semantics: the lanes the guard enables, then the family handler of the opcode
// (exec.h). Control handlers move the group themselves; after the others it moves on to the next
// instruction. False when the warp stopped on an error.
bool SimtCore::execute(Warp& w, unsigned gi, const Inst& in, uint64_t pc) {
  Group& g = w.groups[gi];
  uint32_t active = g.mask;
  if (in.guard >= 0) {
    uint32_t p = w.preds[in.guard];
    active &= in.guard_neg ? ~p : p;
  }
  ++stats_.warp_insts;
  stats_.thread_insts += unsigned(__builtin_popcount(active));
  fg_.active = active;
  const sm::OpEntry& op = ops_[size_t(in.op)];
  sm::Exec x{*this, w, in, g, gi, active, pc, pc + in.size};
  if (op.control) {
    op.fn(x);
    return !x.halt;
  }
  if (active) {
    if (in.type == DType::F64) lat_ = cfg_.lat.fp64;
    (op.fn_float && is_float(in.type) ? op.fn_float : op.fn)(x);
  }
  if (has_error_) return false;
  w.move(gi, w.groups[gi].mask, x.next);
  return true;
}

// --- test access --------------------------------------------------------------------------------

uint64_t SimtCore::reg(unsigned b, unsigned tid, unsigned slot) const {
  const Warp& w = warps_.at(blocks_.at(b).first_warp + tid / cfg_.warp_size);
  return w.regs[size_t(slot) * 32 + tid % cfg_.warp_size];
}
bool SimtCore::pred(unsigned b, unsigned tid, unsigned slot) const {
  const Warp& w = warps_.at(blocks_.at(b).first_warp + tid / cfg_.warp_size);
  return (w.preds[slot] >> (tid % cfg_.warp_size)) & 1;
}
uint8_t* SimtCore::local(unsigned b, unsigned tid) {
  return blocks_.at(b).local.data() + size_t(tid) * lp_.local_bytes;
}

}  // namespace gpuvp
