#include "rtl/block_scheduler_wrapper.h"

#include <stdexcept>

#include "models/common/log.h"
#include "rtl/stall_arbiter_wrapper.h"

namespace gpuvp {

RtlBlockScheduler::RtlBlockScheduler(sc_core::sc_module_name name, const BlockSchedulerConfig& cfg, Registry& reg)
    : BlockDispatcher(name, cfg.num_sms), cfg_(cfg), n_(cfg.num_sms), reg_(reg), edge_(cfg.clock) {
  if (n_ == 0 || n_ > rtl::max_scheduler_sms())
    throw std::invalid_argument(
        fmt::format("{}: RTL scheduler needs 1..{} SMs, got {}", cfg.path, rtl::max_scheduler_sms(), n_));
  m_ = rtl::make_block_scheduler(n_, this->name());
  const rtl::VModel& m = *m_;
  i_rst_ = m.port("rst");
  i_en_ = m.port("en");
  i_bpc_ = m.port("cfg_blocks_per_core");
  i_gx_ = m.port("cfg_grid_x");
  i_gy_ = m.port("cfg_grid_y");
  i_gz_ = m.port("cfg_grid_z");
  i_bx_ = m.port("cfg_block_x");
  i_by_ = m.port("cfg_block_y");
  i_bz_ = m.port("cfg_block_z");
  i_shmem_ = m.port("cfg_shmem_size");
  i_dyn_ = m.port("cfg_dyn_shmem_size");
  i_param_ = m.port("cfg_param_size");
  i_done_ = m.port("smp_done");
  m.port("policy").set(static_cast<uint64_t>(cfg.policy));
  m.port("seed").set(cfg.seed);
  o_rdy_ = m.signal("rdy");
  o_kdone_ = m.signal("kernel_done");
  o_en_ = m.signal("smp_en");
  o_reset_ = m.signal("smp_reset");
  o_state_ = m.signal("state");
  o_bx_ = m.signal("block_x");
  o_by_ = m.signal("block_y");
  o_bz_ = m.signal("block_z");
  o_gx_ = m.signal("grid_x");
  o_gy_ = m.signal("grid_y");
  o_gz_ = m.signal("grid_z");
  o_tpb_ = m.signal("threads_per_block");
  o_shmem_ = m.signal("shmem_per_block");
  for (unsigned i = 0; i < n_; ++i) {
    o_nb_.push_back(m.signal("num_blocks", i));
    o_idx_.push_back(m.signal("block_idx", i));
  }
  m_->power_on_reset();
  snap_.assign(m.flops().size(), 0);
  rtl::flops_changed(m, snap_);
  register_flops(reg, m, cfg.path, [this] { wake(); });
  track_accesses();

  SC_METHOD(process);  // runs once at time 0: drives the reset outputs
  sensitive << rst << en;
  for (auto* pin : launch.all()) sensitive << *pin;
  for (unsigned i = 0; i < n_; ++i) sensitive << smp_done[i];
  sensitive << wake_ev_ << edge_.event();
}

void RtlBlockScheduler::process() {
  const bool at_edge = edge_.take();
  if (at_edge) {
    ++evaluations_;
    // The input ports are as wide as the RTL fields: the Var truncates like the model does.
    i_rst_.set(rst.read());
    i_en_.set(en.read());
    i_bpc_.set(launch.blocks_per_core.read());
    i_gx_.set(launch.grid_x.read());
    i_gy_.set(launch.grid_y.read());
    i_gz_.set(launch.grid_z.read());
    i_bx_.set(launch.block_x.read());
    i_by_.set(launch.block_y.read());
    i_bz_.set(launch.block_z.read());
    i_shmem_.set(launch.shmem_size.read());
    i_dyn_.set(launch.dyn_shmem_size.read());
    i_param_.set(launch.param_size.read());
    uint64_t done = 0;
    for (unsigned i = 0; i < n_; ++i)
      if (smp_done[i].read()) done |= uint64_t{1} << i;
    i_done_.set(done);
  }
  if (at_edge && reg_.recording()) acc_->before_edge(sc_core::sc_time_stamp().value());
  rtl::gated_step(*m_, snap_, edge_, at_edge, [this] { drive(); });
  if (at_edge) {
    const SchedPhase ph = phase_of_state(unsigned(o_state_.get()), o_reset_.get() != 0);
    if (ph != phase_ && record_history_) phases_.push_back({ph, cfg_.clock.cycle(sc_core::sc_time_stamp())});
    phase_ = ph;
  }
}

// The registers the model records (models/scheduler/block_scheduler.cc, track_accesses), found here by
// evaluation, and prng (the model records it for the random policy; here its fate says whether the
// policy draws from it). The launch outputs but threads_per_block are read by the SMs whose smp_en rises;
// the other flip-flops (state, rdy, kernel_done, smp_en, smp_reset) are read at every edge or by
// consumers that react to any change, as in the model: read at every instant (read_always).
void RtlBlockScheduler::track_accesses() {
  for (const char* h : {"state", "rdy", "kernel_done", "smp_en", "smp_reset"}) read_always(reg_.at_mut(cfg_.path + "." + h));
  std::vector<std::string> dims = {"block_x", "block_y", "block_z", "grid_x", "grid_y", "grid_z", "shmem_per_block"};
  std::vector<std::string> consumed = dims;
  for (unsigned i = 0; i < n_; ++i)
    for (const char* a : {"num_blocks", "block_idx"}) consumed.push_back(fmt::format("{}[{}]", a, i));
  std::vector<std::string> observed = consumed;
  for (const char* r : {"blocks_scheduled_cnt", "smp_done_array", "threads_per_block", "prng"}) observed.push_back(r);
  acc_ = std::make_unique<rtl::FlopAccesses>(*m_, reg_, cfg_.path, cfg_.clock.period().value(), observed, consumed,
                                             "smp_en");
}

// The edges skipped after the last evaluated one still read what it read, up to the end of the run.
void RtlBlockScheduler::end_of_simulation() {
  acc_->finish(sc_core::sc_time_stamp().value());
}

void RtlBlockScheduler::drive() {
  auto put = [](auto& port, auto v) {
    if (port.read() != v) port.write(v);
  };
  put(rdy, o_rdy_.get() != 0);
  put(kernel_done, o_kdone_.get() != 0);
  const uint64_t en_bits = o_en_.get(), rst_bits = o_reset_.get();
  for (unsigned i = 0; i < n_; ++i) {
    put(num_blocks[i], static_cast<uint32_t>(o_nb_[i].get()));
    put(block_idx[i], static_cast<uint32_t>(o_idx_[i].get()));
    put(smp_en[i], static_cast<bool>(en_bits >> i & 1u));
    put(smp_reset[i], static_cast<bool>(rst_bits >> i & 1u));
  }
  put(dims.block_x, static_cast<uint32_t>(o_bx_.get()));
  put(dims.block_y, static_cast<uint32_t>(o_by_.get()));
  put(dims.block_z, static_cast<uint32_t>(o_bz_.get()));
  put(dims.grid_x, static_cast<uint32_t>(o_gx_.get()));
  put(dims.grid_y, static_cast<uint32_t>(o_gy_.get()));
  put(dims.grid_z, static_cast<uint32_t>(o_gz_.get()));
  put(dims.threads_per_block, static_cast<uint32_t>(o_tpb_.get()));
  put(dims.shmem_per_block, static_cast<uint32_t>(o_shmem_.get()));
}

void RtlBlockScheduler::trace(sc_core::sc_trace_file* tf, const std::string& prefix) const {
  trace_flops(tf, *m_, prefix);
}

}  // namespace gpuvp
