#include "platform/platform.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <systemc>

#include "models/common/log.h"
#include "platform/platform_impl.h"
#include "sw/isa/address_map.h"
#include "sw/isa/config_regs.h"
#include "sw/ptx/schedule.h"

namespace gpuvp {

using sc_core::sc_time;

// Each model declares its parameters in its folder; the wiring below reads them through
// XConfig::from, which keeps those declarations in the link.
const std::vector<ParamGroup>& model_param_groups() { return param_groups(); }

PlatformImpl::PlatformImpl(sc_core::sc_module_name name, const Config& c, const PlatformHooks& h)
    : sc_module(name),
      cfg(c),
      clk(c.f("gpu.clock_mhz")),
      n(static_cast<unsigned>(c.i("sm.count"))),
      concurrent(c.s("scheduler.kind") == "concurrent"),
      num_blocks("num_blocks", n),
      block_idx("block_idx", n),
      smp_en("smp_en", n),
      smp_reset("smp_reset", n),
      smp_done("smp_done", n),
      hooks(h) {
  cfg.validate();
  // sc_stop() at the end of the host program and the VCD time unit are the normal course, not news.
  log::install_report_handler();
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("tracing timescale unit set", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  log::set_default_level(log::parse_level(cfg.s("log.level")));
  for (auto& [module, level] : parse_log_modules(cfg.s("log.modules"))) log::set_level(module, level);

  build_memories();
  try {
    objects = std::make_unique<DataObjects>(ProtectionConfig::from(cfg.params("protect", "")));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());  // it names the keys and the object
  }
  cfgblk = std::make_unique<ConfigBlock>("cfg", ConfigBlockConfig::from(cfg.params("cfgblock", "gpu.cfg"), clk), reg);
  build_arbiters();
  build_scheduler();
  // The SMs derive their blocks' identity from the policy the scheduler actually runs.
  const bool interleaved = interleaves_blocks(sched_cfg.policy);
  for (unsigned i = 0; i < n; ++i) {
    std::string nm = fmt::format("sm{}", i);
    SmConfig sc = SmConfig::from(cfg.params("sm", "gpu." + nm));
    sc.id = i;
    sc.num_sms = n;
    sc.clock = clk;
    sc.interleaved_blocks = interleaved;
    sc.concurrent = concurrent;
    sc.caches = SmCaches::from(cfg.params("sm", "gpu." + nm));
    sc.caches.gmem_allows = [this](uint64_t a, uint64_t len) { return gmem->allows(a, len); };
    sms.push_back(std::make_unique<Sm>(nm.c_str(), sc, reg, errors, "gpu." + nm, &prints));
    sms.back()->set_data_objects(objects.get());
    sms.back()->record_blocks(false);  // Platform::record_timeline asks for them
  }
  build_power();
  prints.set_capacity(uint64_t(cfg.i("host.printf_fifo_bytes")));
  fill_props();
  if (sched) sched->record_history(false);  // Platform::record_markers asks for them
  if (concurrent) build_concurrent();
  bus = std::make_unique<HostBus>("host_bus", HostBusConfig::from(cfg.params("host", "gpu.host_bus")));
  host = std::make_unique<HostPort>("host", dev, errors, prints, *gmem, *objects);
  reg.add_timing("host", [this](uint64_t now) { return host->timing_digest(now); });
  host->set_schedule(ptx::parse_schedule(cfg.s("asm.schedule")));
  wire();
  SC_METHOD(watch_dispatch);  // observes only: block dispatches for statistics and fault triggers
  for (auto& e : smp_en) sensitive << e;
  dont_initialize();
}

void PlatformImpl::watch_dispatch() {
  bool any = false;
  for (auto& e : smp_en) any |= e.read();
  if (any) note_dispatch();
}

void PlatformImpl::note_dispatch() {
  const uint64_t now = sc_core::sc_time_stamp().value();
  if (keep_dispatches && (dispatches.empty() || dispatches.back() != now)) dispatches.push_back(now);
}

void PlatformImpl::build_memories() {
  gmem = std::make_unique<Memory>("gmem", MemoryConfig::global(cfg.params("gmem", "gpu.gmem"), clk), reg, "gpu.gmem");
  sysmem = std::make_unique<Memory>("sysmem", MemoryConfig::system(cfg.params("sysmem", "gpu.sysmem"), clk), reg,
                                    "gpu.sysmem");
  cmem = std::make_unique<Memory>("cmem", MemoryConfig::constant(cfg.params("cmem", "gpu.cmem"), clk), reg, "gpu.cmem");
  const Params l2p = cfg.params("l2", "gpu.l2");
  if (!L2Config::configured(l2p)) return;
  L2Config lc = L2Config::from(l2p, clk);
  lc.gmem_base = gmem->config().base;
  lc.gmem_size = gmem->config().size;
  lc.sysmem_base = sysmem->config().base;
  lc.sysmem_size = sysmem->config().size;
  lc.cmem_base = cmem->config().base;
  lc.cmem_size = cmem->config().size;
  lc.gmem_allows = [this](uint64_t a, uint64_t len) { return gmem->allows(a, len); };
  l2 = std::make_unique<L2Cache>("l2", lc, reg, "gpu.l2");
}

template <class Make>
void PlatformImpl::build_gmem_port(const std::string& name, Make&& arb, std::unique_ptr<ArbitratedTarget>& single,
                                   SlicedPort& sliced) {
  if (!l2 || !l2->config().slice_ports || l2->config().timing.banks < 2) {
    single = arb(name, n);
    return;
  }
  const unsigned slices = l2->config().timing.banks;
  sliced.router = std::make_unique<InterleavedRouter>(("route_" + name.substr(4)).c_str(), n, slices,
                                                      l2->config().geometry.line_bytes);
  for (unsigned k = 0; k < slices; ++k) {
    sliced.slices.push_back(arb(fmt::format("{}_s{}", name, k), n));
    for (unsigned i = 0; i < n; ++i) sliced.router->port(k, i).bind(sliced.slices.back()->in[i]);
  }
}

// The port's arbiters' outputs to `next` (the L2 or global memory).
template <class T>
void PlatformImpl::link_gmem_port(const std::string& name, std::unique_ptr<ArbitratedTarget>& single,
                                  SlicedPort& sliced, T& next) {
  if (single) return link(fmt::format("gpu.{}.out", name), single->out, next);
  for (size_t k = 0; k < sliced.slices.size(); ++k)
    link(fmt::format("gpu.{}_s{}.out", name, k), sliced.slices[k]->out, next);
}

// SM i's socket to the port: its arbiter, or the router in front of the slices' arbiters.
template <class I>
void PlatformImpl::link_gmem_requester(const std::string& name, I& init, unsigned i,
                                       std::unique_ptr<ArbitratedTarget>& single, SlicedPort& sliced) {
  if (single) return link(name, init, single->in[i]);
  link(name, init, sliced.router->in[i]);
}

void PlatformImpl::build_arbiters() {
  const bool rtl = cfg.s("arbiter.impl") == "rtl";
  auto arb = [&](const std::string& nm, unsigned reqs) {
    ArbitratedTargetConfig ac;
    ac.requesters = reqs;
    ac.clock = clk;
    ac.path = "gpu." + nm;
    ac.sequential_search = cfg.s("arbiter.search") == "sequential";
    ArbitratedTarget::CoreFactory core;
    if (!rtl && hooks.arbiter_pins)
      core = [this, ac](const char* core_name, unsigned k) -> std::unique_ptr<StallArbiterCore> {
        return std::make_unique<StallArbiter>(core_name, k, clk, reg, ac.path, ac.sequential_search);
      };
    if (rtl)
      core = [this, ac](const char* core_name, unsigned k) -> std::unique_ptr<StallArbiterCore> {
        auto c = std::make_unique<RtlStallArbiter>(core_name, k, clk, reg, ac.path, ac.sequential_search);
        rtl_arbiters.push_back(c.get());
        return c;
      };
    return std::make_unique<ArbitratedTarget>(nm.c_str(), ac, reg, core);
  };
  build_gmem_port("arb_gmem_rd", arb, arb_gmem_rd, gmem_rd_sliced);
  build_gmem_port("arb_gmem_wr", arb, arb_gmem_wr, gmem_wr_sliced);
  arb_cmem = arb("arb_cmem", n);
  arb_sysmem = arb("arb_sysmem", n);
  // The host is the last requester of the configuration block. The concurrent dispatcher hands the
  // SMs their blocks with the launch parameters, so there the host is its only requester (and the
  // SM count is not bounded by the arbiter's 64 requesters).
  arb_cfg = arb("arb_cfg", concurrent ? 1 : n + 1);
  if (concurrent) no_cfg = std::make_unique<UnmappedTarget>("no_cfg", n);
}

void PlatformImpl::build_scheduler() {
  sched_cfg = BlockSchedulerConfig::from(cfg.params("scheduler", "gpu.sched"), n, clk);
  if (concurrent) return;  // build_concurrent, once the SMs say what they hold
  const BlockSchedulerConfig& sc = sched_cfg;
  if (cfg.s("scheduler.impl") == "rtl") {
    auto r = std::make_unique<RtlBlockScheduler>("sched", sc, reg);
    rtl_sched = r.get();
    sched = std::move(r);
  } else {
    sched = std::make_unique<BlockScheduler>("sched", sc, reg);
  }
}

// The concurrent mode: the dispatcher places blocks within the resources every SM has (fill_props).
void PlatformImpl::build_concurrent() {
  const SmLimits lim{dev.max_threads, dev.shared_bytes, dev.registers, dev.max_blocks};
  disp = std::make_unique<ConcurrentDispatcher>(
      "sched", ConcurrentDispatcherConfig::from(cfg.params("scheduler", "gpu.sched"), n, clk, lim), reg);
  ce = std::make_unique<CopyEngine>("ce", CopyEngineConfig::from(cfg.params("copy", "gpu.ce")), reg, *disp);
  disp->connect_copy_engine(*ce);
  // The dispatch instants, as smp_en gives them in batches.
  disp->on_assign = [this](unsigned, const BlockWork&) { note_dispatch(); };
  for (unsigned i = 0; i < n; ++i) {
    disp->connect_sm(i, *sms[i]);
    sms[i]->connect_dispatcher(*disp, disp.get());
  }
}

// The limits the runtime checks launches against: those every SM meets.
void PlatformImpl::fill_props() {
  const SmConfig& s0 = sms[0]->config();
  dev.name = cfg.s("platform.name");
  dev.sm_count = n;
  dev.warp_size = s0.warp_size;
  dev.max_threads = s0.max_threads;
  dev.max_threads_per_block = s0.max_threads_per_block;
  dev.max_blocks = s0.max_blocks;
  dev.registers = s0.registers;
  dev.shared_bytes = s0.shared_bytes;
  dev.shared_per_block = s0.shared_per_block;
  dev.local_bytes = s0.max_local_bytes;
  dev.stack_bytes = s0.stack_bytes;  // the same on every SM
  for (auto& sm : sms) {
    const SmConfig& s = sm->config();
    dev.max_threads = std::min(dev.max_threads, s.max_threads);
    dev.max_threads_per_block = std::min(dev.max_threads_per_block, s.max_threads_per_block);
    dev.max_blocks = std::min(dev.max_blocks, s.max_blocks);
    dev.registers = std::min(dev.registers, s.registers);
    dev.shared_bytes = std::min(dev.shared_bytes, s.shared_bytes);
    dev.shared_per_block = std::min(dev.shared_per_block, s.shared_per_block);
    dev.local_bytes = std::min(dev.local_bytes, s.max_local_bytes);
  }
  dev.blocks_per_core = static_cast<unsigned>(cfg.params("scheduler", "gpu.sched").i("blocks_per_core"));
  dev.clock_mhz = cfg.f("gpu.clock_mhz");
  dev.launch_latency_ns = cfg.f("host.launch_latency_ns");
  dev.gmem_base = gmem->config().base;
  dev.gmem_size = gmem->config().size;
  dev.sysmem_base = sysmem->config().base;
  dev.sysmem_size = sysmem->config().size;
  dev.cmem_base = cmem->config().base;
  dev.cmem_size = cmem->config().size;
  dev.cfg_base = amap::kConfigBase;
}

void PlatformImpl::wire() {
  // Host side: the bus reaches the memories directly and the configuration block through its arbiter.
  link("gpu.host", host->bus, bus->in);
  host->rdy(rdy);
  host->kernel_done(kernel_done);
  // With an L2, the host reaches global and system memory through it (the point of coherence).
  bus->add_range(dev.gmem_base, dev.gmem_size, "gmem");
  l2 ? bus->out.bind(l2->io) : bus->out.bind(gmem->in);
  bus->add_range(dev.sysmem_base, dev.sysmem_size, "sysmem");
  l2 ? bus->out.bind(l2->io) : bus->out.bind(sysmem->in);
  bus->add_range(dev.cmem_base, dev.cmem_size, "cmem");
  l2 ? bus->out.bind(l2->io) : bus->out.bind(cmem->in);
  bus->add_range(dev.cfg_base, cfgreg::kNumRegs * 4, "cfg");
  bus->out.bind(arb_cfg->in[concurrent ? 0 : n]);

  if (l2) {
    link_gmem_port("arb_gmem_rd", arb_gmem_rd, gmem_rd_sliced, l2->in);
    link_gmem_port("arb_gmem_wr", arb_gmem_wr, gmem_wr_sliced, l2->in);
    link("gpu.arb_sysmem.out", arb_sysmem->out, l2->in);
    link("gpu.l2.gmem", l2->gmem, gmem->in);
    link("gpu.l2.sysmem", l2->sysmem, sysmem->in);
    link("gpu.arb_cmem.out", arb_cmem->out, l2->in);
    link("gpu.l2.cmem", l2->cmem, cmem->in);
  } else {
    link_gmem_port("arb_gmem_rd", arb_gmem_rd, gmem_rd_sliced, gmem->in);
    link_gmem_port("arb_gmem_wr", arb_gmem_wr, gmem_wr_sliced, gmem->in);
    link("gpu.arb_sysmem.out", arb_sysmem->out, sysmem->in);
    link("gpu.arb_cmem.out", arb_cmem->out, cmem->in);
  }
  link("gpu.arb_cfg.out", arb_cfg->out, cfgblk->in);

  cfgblk->rdy(rdy);
  cfgblk->kernel_done(kernel_done);
  cfgblk->en(en);
  cfgblk->launch.bind(launch_cfg);

  if (sched) {
    BlockDispatcher& s = *sched;
    s.rst(rst);
    s.en(en);
    s.launch.bind(launch_cfg);
    s.rdy(rdy);
    s.kernel_done(kernel_done);
    s.dims.bind(launch_dims);
    for (unsigned i = 0; i < n; ++i) {
      s.smp_done[i](smp_done[i]);
      s.num_blocks[i](num_blocks[i]);
      s.block_idx[i](block_idx[i]);
      s.smp_en[i](smp_en[i]);
      s.smp_reset[i](smp_reset[i]);
    }
  }
  if (disp) {
    host->use_dispatcher(*disp);
    disp->host_lookahead = [this] { return host->earliest_submission_ps(); };
    disp->on_done = [this](const WorkItem& w, uint64_t ps) { host->work_done(w, ps); };
    if (l2) link("gpu.ce.out", ce->out, l2->io);
    else link("gpu.ce.out", ce->out, gmem->in);
    ce->share(gmem->dram_bus());  // copies and kernels contend for the DRAM data bus
  }
  for (unsigned i = 0; i < n; ++i) {
    Sm& sm = *sms[i];
    sm.smp_en(smp_en[i]);
    sm.smp_reset(smp_reset[i]);
    sm.num_blocks(num_blocks[i]);
    sm.block_idx(block_idx[i]);
    sm.dims.bind(launch_dims);
    sm.smp_done(smp_done[i]);
    const std::string p = fmt::format("gpu.sm{}.", i);
    link(p + "imem", sm.imem, arb_sysmem->in[i]);
    if (concurrent) link(p + "cfg", sm.cfg, (*no_cfg)[i]);
    else link(p + "cfg", sm.cfg, arb_cfg->in[i]);
    link(p + "cmem", sm.cmem, arb_cmem->in[i]);
    link_gmem_requester(p + "gmem_rd", sm.gmem_rd, i, arb_gmem_rd, gmem_rd_sliced);
    link_gmem_requester(p + "gmem_wr", sm.gmem_wr, i, arb_gmem_wr, gmem_wr_sliced);
  }
}

Platform::Platform(const Config& cfg, const PlatformHooks& hooks)
    : impl_(std::make_unique<PlatformImpl>("gpu", cfg, hooks)) {}
Platform::~Platform() {
  if (impl_ && impl_->vcd) sc_core::sc_close_vcd_trace_file(impl_->vcd);
}

Registry& Platform::registry() { return impl_->reg; }
const rt::DeviceProps& Platform::props() const { return impl_->dev; }
const Config& Platform::config() const { return impl_->cfg; }

void Platform::run(const std::function<void(rt::Runtime&)>& host) {
  start(host);
  finish();
}

void Platform::start(const std::function<void(rt::Runtime&)>& host) { impl_->host->set_program(host); }

bool Platform::finished() const {
  return impl_->host->finished() || sc_core::sc_get_status() == sc_core::SC_STOPPED;
}

bool Platform::advance_to(uint64_t t_ps) {
  auto& p = *impl_;
  const sc_time t = sc_time::from_value(t_ps);
  if (!finished() && t > sc_core::sc_time_stamp()) {
    for (auto& sm : p.sms) sm->set_horizon(t_ps);
    auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start(t - sc_core::sc_time_stamp());
    p.host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return !finished();
}

namespace {
// CPU time of this process: a run paused (Ctrl-Z, SIGSTOP, a suspended VM) or starved of CPU by other
// work does not spend its host-time limit.
double process_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
}  // namespace

// Simulates up to `end` (none: until nothing is left to do) in slices of simulated time, reading the
// process's CPU clock between slices, never per event: false once sim.host_timeout_s of CPU time has
// passed. A slice doubles while it takes under 50 ms and halves above 200 ms, but never grows past
// kMaxSlice, so that a cheap stretch cannot hide an expensive one inside one slice; an idle stretch (no
// event before the next slice ends) is crossed in one call whatever its length. Pausing sc_start
// between slices changes nothing in the simulation (advance_to does the same).
bool PlatformImpl::run_until(const std::optional<sc_time>& end) {
  const sc_time kMaxSlice(10, sc_core::SC_MS);
  const double limit_s = cfg.f("sim.host_timeout_s");
  const double t0 = process_cpu_seconds();
  const auto out_of_time = [&](double now) {
    return (limit_s > 0 && now - t0 >= limit_s) || (host_deadline >= 0 && now >= host_deadline);
  };
  sc_time slice(1, sc_core::SC_US);
  const auto done = [&] { return host->finished() || sc_core::sc_get_status() == sc_core::SC_STOPPED; };
  for (bool first = true; !done() && (!end || sc_core::sc_time_stamp() < *end); first = false) {
    // Nothing left to do (known only once the simulation has started): one call, as without a limit.
    if ((limit_s <= 0 && host_deadline < 0) || (!first && !sc_core::sc_pending_activity())) {
      end ? sc_core::sc_start(*end - sc_core::sc_time_stamp()) : sc_core::sc_start();
      return true;
    }
    const sc_time idle = first ? sc_core::SC_ZERO_TIME : sc_core::sc_time_to_pending_activity();
    const sc_time step = std::max(slice, idle);
    const double s0 = process_cpu_seconds();
    sc_core::sc_start(end ? std::min(step, *end - sc_core::sc_time_stamp()) : step);
    const double now = process_cpu_seconds();
    if (out_of_time(now) && !done()) return false;
    if (idle > slice) continue;  // a jump over an idle stretch says nothing about the cost of a slice
    if (now - s0 < 0.05 && slice < kMaxSlice) slice = std::min(slice * 2, kMaxSlice);
    else if (now - s0 > 0.2 && slice > sc_time(1, sc_core::SC_NS)) slice = slice / 2;
  }
  return true;
}

void Platform::limit_host_time(double s) {
  impl_->deadline_s = s;
  impl_->host_deadline = s > 0 ? process_cpu_seconds() + s : std::numeric_limits<double>::infinity();
}

void Platform::finish(double limit_ms) {
  auto& p = *impl_;
  if (limit_ms <= 0) limit_ms = p.cfg.f("sim.timeout_ms");
  auto t0 = std::chrono::steady_clock::now();
  for (auto& sm : p.sms) sm->set_horizon(~uint64_t{0});
  // A bound beyond the last instant SystemC can hold (2^64 - 1 ps, an experiment's estimate of
  // billions of iterations) is no bound: sc_time would wrap it to a small one.
  const bool bounded = limit_ms > 0 && limit_ms * 1e9 < double(~uint64_t{0});
  const bool in_time = p.run_until(bounded ? std::optional<sc_time>(sc_time(limit_ms, sc_core::SC_MS)) : std::nullopt);
  p.host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (p.host->failure()) std::rethrow_exception(p.host->failure());
  if (!p.host->finished()) {
    if (p.errors.first) throw DeviceError(*p.errors.first);
    if (!in_time)
      throw TimeoutError(fmt::format(
          "timeout: the host-time limit: the run had not finished after {} s of CPU time (sim.host_timeout_s sets "
          "it, 0: no limit); simulated time reached: {:.6f} ms; it was {}",
          p.deadline_s > 0 ? p.deadline_s.load() : p.cfg.f("sim.host_timeout_s"), sc_core::sc_time_stamp().to_seconds() * 1e3,
          p.host->activity()));
    if (bounded && sc_core::sc_time_stamp() >= sc_time(limit_ms, sc_core::SC_MS))
      throw TimeoutError(fmt::format(
          "timeout: the host program had not finished after {} ms of simulated time: it was {}; "
          "sim.timeout_ms sets the limit",
          limit_ms, p.host->activity()));
    throw std::runtime_error(fmt::format(
        "simulation stalled at {}: the host program waits but no model has anything left to do",
        sc_core::sc_time_stamp().to_string()));
  }
  check_protected_names();
}

// After a complete run: every object protect.* names must have been one of the program's.
void Platform::check_protected_names() const {
  const DataObjects& objs = *impl_->objects;
  const std::string why = unmatched_protection(objs.protection(), objs.names());
  if (!why.empty()) throw ConfigError(why);
}

// Activity counting in every SM, the power/thermal/EM models over it, and each SM's aging sensor.
void PlatformImpl::build_power() {
  const Params pp = cfg.params("power", "gpu.power");
  if (!pp.b("enabled") || sms.empty()) return;
  const SmConfig& sc = sms[0]->config();
  const auto pc = power::PowerConfig::from(pp, cfg.params("thermal", "gpu.thermal"), cfg.params("em", "gpu.em"), sc.sps,
                                           sc.warp_size, clk.period().to_seconds());
  power = std::make_unique<power::PowerAccounting>(pc, n, [this] { return clk.cycle(sc_core::sc_time_stamp()); });
  const Params dp = cfg.params("distribution", "gpu.distribution");
  for (unsigned i = 0; i < n; ++i) {
    sms[i]->set_activity(&power->log(i));
    try {
      auto d = sm::make_distributor(dp, pc.clusters);
      power->set_gated_clusters(i, d->gated_clusters());  // for the whole run: the unit is set once
      sms[i]->set_distributor(std::move(d));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
  power->keep_trace(false);  // until an output asks for it (record_power_trace)
  power->register_sensors(reg, "gpu.sm");
}

std::vector<std::string> Platform::link_names() const { return impl_->links; }
std::vector<uint64_t> Platform::dispatch_times() const { return impl_->dispatches; }
void Platform::record_markers() {
  impl_->keep_dispatches = true;
  if (impl_->sched) impl_->sched->record_history(true);
}
void Platform::record_power_trace() {
  if (impl_->power) impl_->power->keep_trace(true);
}
void Platform::record_timeline() {
  for (auto& sm : impl_->sms) sm->record_blocks(true);
}

uint64_t Platform::state_hash() const {
  auto& p = *impl_;
  uint64_t h = word_digest(p.reg.state_hash(), timing_digest() + 1);
  h ^= word_digest(0x57a7e, p.host->read_hash());
  h ^= word_digest(0x9a1f7, p.prints.hash());  // what the kernels printed is output the host sees
  return word_digest(h, sc_core::sc_time_stamp().value() + 1);
}
uint64_t Platform::timing_digest() const { return impl_->reg.timing_digest(sc_core::sc_time_stamp().value()); }
void Platform::record_issues(unsigned sm) { impl_->sms.at(sm)->record_issues(true); }
std::vector<uint64_t> Platform::issue_times(unsigned sm) const { return impl_->sms.at(sm)->issue_times(); }
void Platform::set_retire_observer(unsigned sm, RetireObserver* o) { impl_->sms.at(sm)->set_retire_observer(o); }
uint64_t Platform::warp_insts(unsigned sm) const { return impl_->sms.at(sm)->stats().warp_insts; }
std::vector<std::pair<uint64_t, uint64_t>> Platform::kernel_windows() const { return impl_->host->windows(); }
uint64_t Platform::clock_period_ps() const { return impl_->clk.period().value(); }
const power::PowerAccounting* Platform::power() const {
  if (impl_->power) impl_->power->finish();
  return impl_->power.get();
}

DataObjects& Platform::data_objects() { return *impl_->objects; }

void Platform::stick_global(uint64_t addr, uint32_t mask, uint32_t values) { impl_->gmem->stick(addr, mask, values); }

}  // namespace gpuvp
