#include "platform/platform.h"

#include <fmt/format.h>

#include <chrono>
#include <set>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/arbiter/arbitrated_port.h"
#include "sw/isa/address_map.h"
#include "models/common/error_sink.h"
#include "models/common/log.h"
#include "models/config_block/config_block.h"
#include "models/host_bus/host_bus.h"
#include "models/memory/memory.h"
#include "models/scheduler/block_scheduler.h"
#include "models/sm/sm.h"
#include "rtl/block_scheduler_wrapper.h"
#include "rtl/stall_arbiter_wrapper.h"
#include "sw/runtime/host_runtime.h"

namespace gpuvp {

using sc_core::sc_signal;
using sc_core::sc_time;
using sc_core::sc_vector;

namespace {

MemoryConfig memory_config(const Config& c, const std::string& which, uint64_t base, const Clock& clk) {
  MemoryConfig m;
  m.base = base;
  m.clock = clk;
  if (which == "gmem") {
    m.size = static_cast<uint64_t>(c.f("gmem.size_mib") * 1024 * 1024) & ~uint64_t{255};
    const std::string& model = c.s("gmem.model");
    m.timing = model == "dram" ? MemoryConfig::Timing::Dram
               : model == "fixed" ? MemoryConfig::Timing::Fixed
                                  : MemoryConfig::Timing::ByteSerial;
    m.latency = static_cast<unsigned>(c.i("gmem.latency"));
    m.bytes_per_cycle = static_cast<unsigned>(c.i("gmem.bytes_per_cycle"));
    m.bandwidth_gbps = c.f("gmem.bandwidth_gbps");
    m.latency_ns = c.f("gmem.latency_ns");
    m.access_width = 8;
  } else if (which == "sysmem") {
    m.size = static_cast<uint64_t>(c.f("sysmem.size_mib") * 1024 * 1024) & ~uint64_t{255};
    m.timing = MemoryConfig::Timing::Fixed;
    m.latency = static_cast<unsigned>(c.i("sysmem.latency"));
    m.bytes_per_cycle = static_cast<unsigned>(c.i("sysmem.bytes_per_cycle"));
    m.access_width = 4;
  } else {
    m.size = static_cast<uint64_t>(c.f("cmem.size_kib") * 1024) & ~uint64_t{255};
    m.timing = MemoryConfig::Timing::Fixed;
    m.latency = static_cast<unsigned>(c.i("cmem.latency"));
    m.bytes_per_cycle = static_cast<unsigned>(c.i("cmem.bytes_per_cycle"));
    m.access_width = 8;
  }
  return m;
}

SmConfig sm_config(const Config& c, unsigned id, const Clock& clk) {
  SmConfig s;
  s.id = id;
  s.num_sms = static_cast<unsigned>(c.i("sm.count"));
  s.warp_size = static_cast<unsigned>(c.i("sm.warp_size"));
  s.sps = static_cast<unsigned>(c.i("sm.sps"));
  s.clock = clk;
  s.max_threads = static_cast<unsigned>(c.i("sm.max_threads"));
  s.max_threads_per_block = static_cast<unsigned>(c.i("sm.max_threads_per_block"));
  s.max_blocks = static_cast<unsigned>(c.i("sm.max_blocks"));
  s.registers = static_cast<unsigned>(c.i("sm.registers"));
  s.shared_bytes = static_cast<uint32_t>(c.i("sm.shared_bytes"));
  s.shared_per_block = static_cast<uint32_t>(c.i("sm.shared_per_block"));
  s.ibuf_insts = static_cast<unsigned>(c.i("sm.ibuf_insts"));
  s.coalesce = c.b("sm.coalesce");
  s.coalesce_bytes = static_cast<unsigned>(c.i("sm.coalesce_bytes"));
  s.warp_policy = c.s("sm.warp_policy") == "gto" ? WarpPolicy::Gto : WarpPolicy::RoundRobin;
  s.interleaved_blocks = c.s("scheduler.policy") == "round_robin";
  s.max_local_bytes = static_cast<uint32_t>(c.i("sm.local_bytes"));
  s.lat.alu = static_cast<unsigned>(c.i("sm.latency.alu"));
  s.lat.mul = static_cast<unsigned>(c.i("sm.latency.mul"));
  s.lat.fp64 = static_cast<unsigned>(c.i("sm.latency.fp64"));
  s.lat.sfu = static_cast<unsigned>(c.i("sm.latency.sfu"));
  s.lat.shared = static_cast<unsigned>(c.i("sm.latency.shared"));
  s.lat.branch = static_cast<unsigned>(c.i("sm.latency.branch"));
  s.lat.barrier = static_cast<unsigned>(c.i("sm.latency.barrier"));
  s.lat.atomic = static_cast<unsigned>(c.i("sm.latency.atomic"));
  return s;
}

}  // namespace

class PlatformImpl : public sc_core::sc_module, public rt::HostInterface {
 public:
  SC_HAS_PROCESS(PlatformImpl);

  Config cfg;
  Registry reg;
  ErrorSink errors;
  Clock clk;
  rt::DeviceProps dev;
  unsigned n;  // SMs

  std::unique_ptr<Memory> gmem, sysmem, cmem;
  std::unique_ptr<ConfigBlock> cfgblk;
  std::unique_ptr<ArbitratedTarget> arb_gmem_rd, arb_gmem_wr, arb_cmem, arb_sysmem, arb_cfg;
  std::unique_ptr<BlockDispatcher> sched;
  std::vector<std::unique_ptr<Sm>> sms;
  // The Verilated cores in use (their flip-flops go to the VCD).
  RtlBlockScheduler* rtl_sched = nullptr;
  std::vector<RtlStallArbiter*> rtl_arbiters;
  std::unique_ptr<HostBus> bus;
  tlm_utils::simple_initiator_socket<PlatformImpl> host_out{"host_out"};

  // Configuration block -> scheduler.
  sc_signal<bool> rst{"rst"}, en{"en"}, rdy{"rdy"}, kernel_done{"kernel_done"};
  sc_signal<uint32_t> c_bpc{"c_bpc"}, c_gx{"c_gx"}, c_gy{"c_gy"}, c_gz{"c_gz"}, c_bx{"c_bx"}, c_by{"c_by"},
      c_bz{"c_bz"}, c_shmem{"c_shmem"}, c_dyn{"c_dyn"}, c_param{"c_param"};
  // Scheduler -> SMs.
  sc_vector<sc_signal<uint32_t>> num_blocks, block_idx;
  sc_vector<sc_signal<bool>> smp_en, smp_reset, smp_done;
  sc_signal<uint32_t> l_bx{"l_bx"}, l_by{"l_by"}, l_bz{"l_bz"}, l_gx{"l_gx"}, l_gy{"l_gy"}, l_gz{"l_gz"},
      l_tpb{"l_tpb"}, l_shmem{"l_shmem"};

  std::function<void(rt::Runtime&)> host_fn;
  std::exception_ptr host_exc;
  bool host_done = false;
  std::vector<rt::LaunchStats> launches;
  uint64_t done_count = 0, done_consumed = 0;
  uint64_t start_ps = 0;
  std::vector<std::pair<uint64_t, uint64_t>> windows;  // kernel execution windows (ps)
  sc_core::sc_event done_ev;
  sc_core::sc_trace_file* vcd = nullptr;
  double host_seconds = 0;

  PlatformImpl(sc_core::sc_module_name name, const Config& c)
      : sc_module(name),
        cfg(c),
        clk(c.f("gpu.clock_mhz")),
        n(static_cast<unsigned>(c.i("sm.count"))),
        num_blocks("num_blocks", n),
        block_idx("block_idx", n),
        smp_en("smp_en", n),
        smp_reset("smp_reset", n),
        smp_done("smp_done", n) {
    cfg.validate();
    // sc_stop() at the end of the host program and the VCD time unit are the normal course, not news.
    log::install_report_handler();
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions("tracing timescale unit set", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    log::set_default_level(log::parse_level(cfg.s("log.level")));
    fill_props();

    gmem = std::make_unique<Memory>("gmem", memory_config(cfg, "gmem", amap::kGlobalBase, clk), reg, "gpu.gmem");
    gmem->set_protection(cfg.b("gmem.check_bounds"));
    sysmem = std::make_unique<Memory>("sysmem", memory_config(cfg, "sysmem", amap::kSystemBase, clk), reg, "gpu.sysmem");
    cmem = std::make_unique<Memory>("cmem", memory_config(cfg, "cmem", amap::kConstBase, clk), reg, "gpu.cmem");

    ConfigBlockConfig cbc;
    cbc.clock = clk;
    cbc.latency_cycles = static_cast<unsigned>(cfg.i("cfgblock.latency"));
    cbc.path = "gpu.cfg";
    cfgblk = std::make_unique<ConfigBlock>("cfg", cbc, reg);

    auto arb = [&](const char* nm, unsigned reqs) {
      ArbitratedTargetConfig ac;
      ac.requesters = reqs;
      ac.clock = clk;
      ac.path = std::string("gpu.") + nm;
      ArbitratedTarget::CoreFactory core;
      if (cfg.s("arbiter.impl") == "rtl")
        core = [this, path = ac.path](const char* core_name, unsigned k) -> std::unique_ptr<StallArbiterCore> {
          auto c = std::make_unique<RtlStallArbiter>(core_name, k, clk, reg, path);
          rtl_arbiters.push_back(c.get());
          return c;
        };
      return std::make_unique<ArbitratedTarget>(nm, ac, reg, core);
    };
    arb_gmem_rd = arb("arb_gmem_rd", n);
    arb_gmem_wr = arb("arb_gmem_wr", n);
    arb_cmem = arb("arb_cmem", n);
    arb_sysmem = arb("arb_sysmem", n);
    arb_cfg = arb("arb_cfg", n + 1);  // the host is the last requester of the configuration block

    BlockSchedulerConfig sc;
    sc.num_sms = n;
    sc.clock = clk;
    sc.policy = parse_sched_policy(cfg.s("scheduler.policy"));
    sc.seed = static_cast<uint64_t>(cfg.i("scheduler.seed"));
    sc.path = "gpu.sched";
    if (cfg.s("scheduler.impl") == "rtl") {
      auto r = std::make_unique<RtlBlockScheduler>("sched", sc, reg);
      rtl_sched = r.get();
      sched = std::move(r);
    } else {
      sched = std::make_unique<BlockScheduler>("sched", sc, reg);
    }

    for (unsigned i = 0; i < n; ++i) {
      std::string nm = fmt::format("sm{}", i);
      sms.push_back(std::make_unique<Sm>(nm.c_str(), sm_config(cfg, i, clk), reg, errors, "gpu." + nm));
    }

    HostBusConfig hb;
    hb.bytes_per_ns = cfg.f("host.bus_bytes_per_ns");
    hb.latency_ns = cfg.f("host.bus_latency_ns");
    bus = std::make_unique<HostBus>("host_bus", hb);

    wire();
    SC_THREAD(host_thread);
    SC_METHOD(watch_scheduler);
    sensitive << rdy << kernel_done;
    dont_initialize();
  }

  void fill_props() {
    // The SM limits the runtime checks launches against are the SMs' own configuration.
    const SmConfig sm = sm_config(cfg, 0, clk);
    dev.name = cfg.s("platform.name");
    dev.sm_count = n;
    dev.warp_size = sm.warp_size;
    dev.max_threads = sm.max_threads;
    dev.max_threads_per_block = sm.max_threads_per_block;
    dev.max_blocks = sm.max_blocks;
    dev.registers = sm.registers;
    dev.shared_bytes = sm.shared_bytes;
    dev.shared_per_block = sm.shared_per_block;
    dev.local_bytes = sm.max_local_bytes;
    dev.blocks_per_core = static_cast<unsigned>(cfg.i("scheduler.blocks_per_core"));
    dev.clock_mhz = cfg.f("gpu.clock_mhz");
    dev.launch_latency_ns = cfg.f("host.launch_latency_ns");
    dev.gmem_base = amap::kGlobalBase;
    dev.gmem_size = memory_config(cfg, "gmem", 0, clk).size;
    dev.sysmem_base = amap::kSystemBase;
    dev.sysmem_size = memory_config(cfg, "sysmem", 0, clk).size;
    dev.cmem_base = amap::kConstBase;
    dev.cmem_size = memory_config(cfg, "cmem", 0, clk).size;
    dev.cfg_base = amap::kConfigBase;
  }

  void wire() {
    // Host side: the bus reaches the memories directly and the configuration block through its arbiter.
    host_out.bind(bus->in);
    bus->add_range(dev.gmem_base, dev.gmem_size, "gmem");
    bus->out.bind(gmem->in);
    bus->add_range(dev.sysmem_base, dev.sysmem_size, "sysmem");
    bus->out.bind(sysmem->in);
    bus->add_range(dev.cmem_base, dev.cmem_size, "cmem");
    bus->out.bind(cmem->in);
    bus->add_range(dev.cfg_base, cfgreg::kNumRegs * 4, "cfg");
    bus->out.bind(arb_cfg->in[n]);

    arb_gmem_rd->out.bind(gmem->in);
    arb_gmem_wr->out.bind(gmem->in);
    arb_cmem->out.bind(cmem->in);
    arb_sysmem->out.bind(sysmem->in);
    arb_cfg->out.bind(cfgblk->in);

    cfgblk->rdy(rdy);
    cfgblk->kernel_done(kernel_done);
    cfgblk->en(en);
    cfgblk->blocks_per_core(c_bpc);
    cfgblk->grid_x(c_gx);
    cfgblk->grid_y(c_gy);
    cfgblk->grid_z(c_gz);
    cfgblk->block_x(c_bx);
    cfgblk->block_y(c_by);
    cfgblk->block_z(c_bz);
    cfgblk->shmem_size(c_shmem);
    cfgblk->dyn_shmem_size(c_dyn);
    cfgblk->param_size(c_param);

    BlockDispatcher& s = *sched;
    s.rst(rst);
    s.en(en);
    s.cfg_blocks_per_core(c_bpc);
    s.cfg_grid_x(c_gx);
    s.cfg_grid_y(c_gy);
    s.cfg_grid_z(c_gz);
    s.cfg_block_x(c_bx);
    s.cfg_block_y(c_by);
    s.cfg_block_z(c_bz);
    s.cfg_shmem_size(c_shmem);
    s.cfg_dyn_shmem_size(c_dyn);
    s.cfg_param_size(c_param);
    s.rdy(rdy);
    s.kernel_done(kernel_done);
    s.block_x(l_bx);
    s.block_y(l_by);
    s.block_z(l_bz);
    s.grid_x(l_gx);
    s.grid_y(l_gy);
    s.grid_z(l_gz);
    s.threads_per_block(l_tpb);
    s.shmem_per_block(l_shmem);
    for (unsigned i = 0; i < n; ++i) {
      s.smp_done[i](smp_done[i]);
      s.num_blocks[i](num_blocks[i]);
      s.block_idx[i](block_idx[i]);
      s.smp_en[i](smp_en[i]);
      s.smp_reset[i](smp_reset[i]);
      Sm& sm = *sms[i];
      sm.smp_en(smp_en[i]);
      sm.smp_reset(smp_reset[i]);
      sm.num_blocks(num_blocks[i]);
      sm.block_idx(block_idx[i]);
      sm.block_x(l_bx);
      sm.block_y(l_by);
      sm.block_z(l_bz);
      sm.grid_x(l_gx);
      sm.grid_y(l_gy);
      sm.grid_z(l_gz);
      sm.shmem_per_block(l_shmem);
      sm.smp_done(smp_done[i]);
      sm.imem.bind(arb_sysmem->in[i]);
      sm.cfg.bind(arb_cfg->in[i]);
      sm.cmem.bind(arb_cmem->in[i]);
      sm.gmem_rd.bind(arb_gmem_rd->in[i]);
      sm.gmem_wr.bind(arb_gmem_wr->in[i]);
    }
  }

  // The execution window of a kernel: from the scheduler leaving IDLE (rdy falls) to kernel_done.
  void watch_scheduler() {
    uint64_t now = sc_core::sc_time_stamp().value();
    if (rdy.event() && !rdy.read()) start_ps = now;
    if (kernel_done.event() && kernel_done.read()) {
      windows.emplace_back(start_ps, now);
      ++done_count;
      done_ev.notify(sc_core::SC_ZERO_TIME);
    }
  }

  void host_thread() {
    try {
      rt::HostRuntime runtime(*this);
      try {
        host_fn(runtime);
        runtime.synchronize();  // a kernel still running when the host program returns is waited for
      } catch (...) {
        launches = runtime.launches();
        throw;
      }
      launches = runtime.launches();
    } catch (...) {
      host_exc = std::current_exception();
    }
    host_done = true;
    sc_core::sc_stop();
  }

  void transact(tlm::tlm_command cmd, uint64_t addr, void* data, size_t len) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(static_cast<unsigned char*>(data));
    p.set_data_length(static_cast<unsigned>(len));
    p.set_streaming_width(static_cast<unsigned>(len));
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    host_out->b_transport(p, delay);
    if (delay != sc_core::SC_ZERO_TIME) wait(delay);
    if (p.get_response_status() != tlm::TLM_OK_RESPONSE)
      throw rt::RuntimeError(fmt::format("host bus {} of {} bytes at {:#x}: {}", cmd == tlm::TLM_READ_COMMAND ? "read" : "write",
                                         len, addr, p.get_response_string()));
  }

  void bus_read(uint64_t addr, void* dst, size_t n_) override { transact(tlm::TLM_READ_COMMAND, addr, dst, n_); }
  void bus_write(uint64_t addr, const void* src, size_t n_) override {
    transact(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), n_);
  }

  void wait_kernel_done(uint64_t& s, uint64_t& e) override {
    while (done_count <= done_consumed && !errors.first) wait(done_ev | errors.event);
    if (errors.first) throw DeviceError(*errors.first);
    ++done_consumed;
    s = windows[done_consumed - 1].first;
    e = windows[done_consumed - 1].second;
  }

  const rt::DeviceProps& props() const override { return dev; }
  void wait_ns(double ns) override { wait(sc_time(ns, sc_core::SC_NS)); }
  void map_global(uint64_t addr, uint64_t size) override { gmem->map(addr, size); }
  void unmap_global(uint64_t addr) override { gmem->unmap(addr); }
};

std::vector<ArbitratedTarget*> arbiters_of(PlatformImpl& p) {
  return {p.arb_gmem_rd.get(), p.arb_gmem_wr.get(), p.arb_cmem.get(), p.arb_sysmem.get(), p.arb_cfg.get()};
}

Platform::Platform(const Config& cfg) : impl_(std::make_unique<PlatformImpl>("gpu", cfg)) {}
Platform::~Platform() {
  if (impl_ && impl_->vcd) sc_core::sc_close_vcd_trace_file(impl_->vcd);
}

Registry& Platform::registry() { return impl_->reg; }
const rt::DeviceProps& Platform::props() const { return impl_->dev; }
const Config& Platform::config() const { return impl_->cfg; }

void Platform::trace_vcd(const std::string& path) {
  auto& p = *impl_;
  p.vcd = sc_core::sc_create_vcd_trace_file(path.c_str());
  p.vcd->set_time_unit(1, sc_core::SC_PS);  // tk1/tx2 clock periods are not whole nanoseconds
  auto t = [&](const auto& sig, const std::string& nm) { sc_core::sc_trace(p.vcd, sig, nm); };
  // The arbiters' pins, traced on the core's ports (the same for the model and an RTL core).
  for (auto* a : arbiters_of(p)) {
    StallArbiterCore& c = a->core();
    for (unsigned i = 0; i < c.size(); ++i) {
      std::string base = fmt::format("{}.", a->basename());
      t(c.req[i], base + fmt::format("req_{}", i));
      t(c.ack[i], base + fmt::format("ack_{}", i));
      t(c.grant[i], base + fmt::format("grant_{}", i));
      t(c.stall[i], base + fmt::format("stall_{}", i));
    }
  }
  t(p.en, "sched.en");
  t(p.rdy, "sched.rdy");
  t(p.kernel_done, "sched.kernel_done");
  t(p.c_bpc, "sched.blocks_per_core");
  t(p.c_gx, "sched.grid_x");
  t(p.c_gy, "sched.grid_y");
  for (unsigned i = 0; i < p.n; ++i) {
    std::string sm = fmt::format("sm{}.", i);
    t(p.smp_en[i], sm + "smp_en");
    t(p.smp_reset[i], sm + "smp_reset");
    t(p.smp_done[i], sm + "smp_done");
    t(p.num_blocks[i], sm + "num_blocks");
    t(p.block_idx[i], sm + "block_idx");
  }
  // Internal flip-flops of the Verilated RTL, under their registry names.
  if (p.rtl_sched) p.rtl_sched->trace(p.vcd, p.rtl_sched->config().path + ".");
  for (RtlStallArbiter* a : p.rtl_arbiters) a->trace(p.vcd, a->path() + ".");
}

void Platform::run(const std::function<void(rt::Runtime&)>& host) {
  auto& p = *impl_;
  p.host_fn = host;
  auto t0 = std::chrono::steady_clock::now();
  double limit_ms = p.cfg.f("sim.timeout_ms");
  if (limit_ms > 0)
    sc_core::sc_start(sc_time(limit_ms, sc_core::SC_MS) - sc_core::sc_time_stamp());
  else
    sc_core::sc_start();
  p.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (p.host_exc) std::rethrow_exception(p.host_exc);
  if (!p.host_done) {
    if (p.errors.first) throw DeviceError(*p.errors.first);
    if (limit_ms > 0 && sc_core::sc_time_stamp() >= sc_time(limit_ms, sc_core::SC_MS))
      throw TimeoutError(fmt::format(
          "timeout: the host program had not finished after {} ms of simulated time (a kernel that never "
          "reaches kernel_done?); sim.timeout_ms sets the limit",
          limit_ms));
    throw std::runtime_error(fmt::format(
        "simulation stalled at {}: the host program waits but no model has anything left to do",
        sc_core::sc_time_stamp().to_string()));
  }
}



PlatformStats Platform::stats() const {
  auto& p = *impl_;
  PlatformStats st;
  st.sim_seconds = sc_core::sc_time_stamp().to_seconds();
  st.host_seconds = p.host_seconds;
  st.launches = p.launches;
  uint64_t window_ps = 0;
  for (auto& [s, e] : p.windows) window_ps += e - s;
  st.kernel_cycles = p.clk.cycle(sc_time::from_value(window_ps));
  for (auto& sm : p.sms) {
    st.sms.push_back(sm->stats());
    st.thread_insts += sm->stats().thread_insts;
    st.sm_busy_fraction.push_back(window_ps ? double(sm->stats().busy_ps) / double(window_ps) : 0.0);
  }
  for (ArbitratedTarget* a : arbiters_of(p)) {
    ArbiterStats as;
    as.name = a->basename();
    for (unsigned i = 0; i < a->size(); ++i) {
      as.grants.push_back(a->stats(i).grants);
      as.stall_cycles.push_back(a->stats(i).stall_cycles);
    }
    st.arbiters.push_back(std::move(as));
  }
  return st;
}

std::vector<BlockRecord> Platform::timeline() const {
  std::vector<BlockRecord> all;
  for (auto& sm : impl_->sms) all.insert(all.end(), sm->block_records().begin(), sm->block_records().end());
  std::stable_sort(all.begin(), all.end(), [](const BlockRecord& a, const BlockRecord& b) {
    return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.sm < b.sm;
  });
  return all;
}

nlohmann::json PlatformStats::to_json() const {
  nlohmann::json j;
  j["sim_seconds"] = sim_seconds;
  j["host_seconds"] = host_seconds;
  j["kernel_cycles"] = kernel_cycles;
  j["thread_insts"] = thread_insts;
  j["thread_insts_per_host_second"] = host_seconds > 0 ? thread_insts / host_seconds : 0.0;
  for (size_t i = 0; i < sms.size(); ++i) {
    const SmStats& s = sms[i];
    j["sms"].push_back({{"id", i},
                        {"busy_fraction", sm_busy_fraction[i]},
                        {"warp_insts", s.warp_insts},
                        {"thread_insts", s.thread_insts},
                        {"fetches", s.fetches},
                        {"mem_transactions", s.mem_transactions},
                        {"batches", s.batches},
                        {"blocks", s.blocks}});
  }
  for (auto& a : arbiters) j["arbiters"].push_back({{"name", a.name}, {"grants", a.grants}, {"stall_cycles", a.stall_cycles}});
  for (auto& l : launches)
    j["launches"].push_back({{"kernel", l.kernel},
                             {"launch_id", l.launch_id},
                             {"start_ps", l.start_ps},
                             {"end_ps", l.end_ps},
                             {"cycles", l.cycles},
                             {"blocks_per_core", l.blocks_per_core}});
  return j;
}

nlohmann::json timeline_trace_events(const std::vector<BlockRecord>& blocks, const std::vector<rt::LaunchStats>& launches) {
  // Chrome trace-event format: one process (the GPU), one thread per SM, times in microseconds.
  nlohmann::json ev = nlohmann::json::array();
  std::set<unsigned> sms;
  for (auto& b : blocks) {
    sms.insert(b.sm);
    std::string kernel = b.launch_id >= 1 && b.launch_id <= launches.size() ? launches[b.launch_id - 1].kernel : "kernel";
    ev.push_back({{"name", fmt::format("{} block {}", kernel, b.block)},
                  {"cat", kernel},
                  {"ph", "X"},
                  {"pid", 0},
                  {"tid", b.sm},
                  {"ts", b.start_ps / 1e6},
                  {"dur", (b.end_ps - b.start_ps) / 1e6},
                  {"args", {{"block", b.block}, {"sm", b.sm}, {"launch", b.launch_id}}}});
  }
  for (unsigned s : sms)
    ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", s}, {"args", {{"name", fmt::format("SM {}", s)}}}});
  return nlohmann::json{{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
}

}  // namespace gpuvp
