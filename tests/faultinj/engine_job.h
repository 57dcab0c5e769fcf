#pragma once
// A small exec job for the engine tests: vectorAdd (tests/data/ptx/vectorAdd.ptx) on one flexgrip SM,
// 8 blocks of 32 threads, 2 blocks per core (4 batches), a = 0, 1, 2, ..., b = 1, c = 0, n = 256.
//
// Where things are (from the design, not from a run):
//  - the runtime's malloc is first fit from gmem base + 256, 256-aligned, in allocation order
//    (sw/runtime/host_runtime.cc), and ExecJob allocates its buffers in argument order: a (1 KiB) at
//    base + 0x100, b at base + 0x500, c at base + 0x900; the job's output is a || b || c.
//  - the module is the first one loaded and vectorAdd calls no function: its first instruction is
//    at the system-memory base (code_base = sysmem base + round_up(0, 256)).
//  - gpu.sm0.regs: 64-bit slot s is words 2s, 2s+1; slot (w * num_regs + k) * 32 + l for warp w,
//    register k, lane l (models/sm/simt_core_state.cc); vectorAdd has 21 register slots.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "faultinj/engine.h"
#include "faultinj/job.h"
#include "platform/config/config.h"
#include "sw/isa/address_map.h"

namespace gpuvp::fi::test {

constexpr uint64_t kN = 256;
constexpr uint64_t kBlocks = 8, kThreads = 32, kBpc = 2;
constexpr uint64_t kBufA = amap::kGlobalBase + 0x100, kBufB = amap::kGlobalBase + 0x500,
                   kBufC = amap::kGlobalBase + 0x900;
constexpr unsigned kVectorAddSlots = 21;

inline uint64_t gmem_word(uint64_t address) { return (address - amap::kGlobalBase) / 4; }
inline uint64_t sysmem_word(uint64_t address) { return (address - amap::kSystemBase) / 4; }
// Word (low half) of warp w, register slot k, lane l of vectorAdd in gpu.smN.regs.
inline uint64_t reg_word(unsigned w, unsigned k, unsigned l) {
  return 2 * ((uint64_t(w) * kVectorAddSlots + k) * 32 + l);
}

inline Config engine_config() {
  Config c = Config::preset("flexgrip");
  c.set("sm.count=1");
  return c;
}

inline nlohmann::json vector_add_desc() {
  using nlohmann::json;
  return {{"ptx", std::string(GPUVP_TEST_DATA) + "/ptx/vectorAdd.ptx"},
          {"kernel", "vectorAdd"},
          {"grid", {kBlocks}},
          {"block", {kThreads}},
          {"blocks_per_core", kBpc},
          {"args",
           {{{"buffer", {{"type", "f32"}, {"count", kN}, {"init", "iota"}}}},
            {{"buffer", {{"type", "f32"}, {"count", kN}, {"init", "const"}, {"value", 1.0}}}},
            {{"buffer", {{"type", "f32"}, {"count", kN}}}},
            {{"i32", kN}}}}};
}

inline JobFactory vector_add_factory() {
  return [] { return exec_job(engine_config(), vector_add_desc(), "engine test"); };
}

// A fault with a time trigger.
inline Fault fault_at(uint64_t id, const std::string& target, uint64_t index, unsigned bit, uint64_t time_ps) {
  Fault f;
  f.id = id;
  f.target = target;
  f.index = index;
  f.bit = bit;
  f.time_ps = time_ps;
  return f;
}

// The start instants of the golden run's phases named `phase`, each with the start of the next phase.
inline std::vector<std::pair<uint64_t, uint64_t>> phase_spans(const GoldenRun& g, const std::string& phase) {
  std::vector<std::pair<uint64_t, uint64_t>> v;
  for (size_t i = 0; i < g.phases.size(); ++i)
    if (g.phases[i].phase == phase)
      v.emplace_back(g.phases[i].start_ps, i + 1 < g.phases.size() ? g.phases[i + 1].start_ps : g.end_ps);
  return v;
}

// A clock edge in the middle of [a, b).
inline uint64_t mid_edge(const GoldenRun& g, uint64_t a, uint64_t b) {
  return (a + (b - a) / 2) / g.period_ps * g.period_ps;
}

}  // namespace gpuvp::fi::test
