// Parameters of the power, thermal and electromigration models (power.*, thermal.*, em.*) and how
// each reads them. The energy defaults are McPAT's per-access figures for the public GPUWattch GTX480
// configuration (40 nm, 0.96 V); docs/power.md has every source and the assumptions.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "models/power/em_model.h"
#include "models/power/power_model.h"
#include "models/power/thermal_model.h"

namespace gpuvp::power {

namespace {
using P = ParamDef;

struct EnergyDefault {
  Event e;
  double pj;
  const char* doc;
};
const EnergyDefault kEnergy[] = {
    {Event::WarpInst, 13.81, "per warp instruction: instruction buffer + decode (1.81) and scheduler (12.0)"},
    {Event::Int, 0.57, "per lane: integer ALU operation (also moves, warp-level and other instructions)"},
    {Event::Fp32, 46.2, "per lane: fp32 operation (FPU)"},
    {Event::Fp64, 57.1, "per lane: fp64 operation (no GTX480 figure: the 28 nm fp64 FMA, 40 pJ, scaled to 40 nm)"},
    {Event::Sfu, 94.8, "per lane: special function unit operation"},
    {Event::Ldst, 0.57, "per lane: load-store unit address generation (no public figure: an integer ALU operation)"},
    {Event::Control, 0.57, "per lane: branch and control (no public figure: an integer ALU operation)"},
    {Event::RegRead, 26.0, "per lane: register-file read"},
    {Event::RegWrite, 14.3, "per lane: register-file write"},
    {Event::Shared, 301, "per warp access: shared memory (also parameter and local memory, held on chip)"},
    {Event::L1dRead, 117, "per access: L1 data cache read"},
    {Event::L1dWrite, 123, "per access: L1 data cache write"},
    {Event::ConstCache, 117, "per access: constant cache (no public figure: an L1 read)"},
    {Event::ICache, 29.6, "per access: instruction cache"},
    {Event::Offchip, 0, "per transaction leaving the SM: interconnect (no public figure; the L2 and DRAM are counted "
                        "at chip level)"},
};

std::vector<ParamDef> power_defs() {
  std::vector<ParamDef> d = {
      P::Bool("power.enabled", true,
              "Count activity and compute power, temperature and wear (docs/power.md); a stretch of constant "
              "power (idle, or blocks resident and asleep) is one step however long"),
      P::Int("power.interval", 500, 1, 1e9, "Sample interval (GPU cycles of each SM's own clock)"),
      P::Float("power.node_nm", 40, 1, 1000,
               "Process node (nm): the energies (given at 40 nm) scale by node_nm / 40 x (v0 / 0.96)^2 (first-order "
               "scaling, an assumption)"),
      P::Float("power.v0", 0.96, 0.1, 5, "Nominal voltage of the scaled energies and static power (V)"),
      P::Float("power.vdd", 0.96, 0.1, 5, "Operating voltage (V): dynamic power x (vdd/v0)^2, static x vdd/v0"),
      P::Float("power.static_w", 0.28, 0, 1000, "Static power of a powered SM at v0 (W)"),
      P::Bool("power.gating", true, "An SM without a resident block is power-gated: no static power"),
      P::Float("power.cluster_static_share", 0.5, 0, 1,
               "Share of a powered SM's static power that its lane clusters draw, split evenly between them (the "
               "rest, register file, memories and control, is the SM's whatever its clusters do): a cluster the "
               "distribution unit gates (limit 0) draws none of its part. No public breakdown exists for these "
               "chips: half is a round middle value, a convention (docs/power.md); with no cluster gated the "
               "static power is the SM's whole figure whatever the share"),
      P::Float("power.chip_w", 10, 0, 10000, "Chip-level constant power that belongs to no SM (W)"),
      P::Float("power.l2_read_pj", 203, 0, 1e6, "Energy per L2 read access (pJ, at 40 nm / 0.96 V; scaled)"),
      P::Float("power.l2_write_pj", 322, 0, 1e6, "Energy per L2 write access (pJ, at 40 nm / 0.96 V; scaled)"),
      P::Float("power.dram_pj_per_byte", 250, 0, 1e6,
               "DRAM energy per byte moved (pJ; 16 nJ per 64-byte line, a 28 nm figure; not scaled)"),
      P::Int("power.clusters", 0, 0, kMaxClusters,
             "Lane clusters per SM (warp-size lanes each; 0: sm.sps / sm.warp_size, at least 1; at most that)"),
  };
  for (const EnergyDefault& e : kEnergy)
    d.push_back(P::Float(fmt::format("power.energy_pj.{}", event_name(e.e)), e.pj, 0, 1e6,
                         fmt::format("Energy (pJ at 40 nm / 0.96 V) {}", e.doc)));
  return d;
}

const bool declared_power = declare_params({"power", "gpu.power", "", power_defs()});
const bool declared_thermal = declare_params({
    "thermal", "gpu.thermal", "",
    {
        P::Float("thermal.ambient_k", 318.15, 200, 500, "Ambient temperature (K)"),
        P::Float("thermal.r_vertical", 4.0, 0.001, 1e6, "Thermal resistance SM to ambient (K/W)"),
        P::Float("thermal.r_lateral", 10.0, 0, 1e6, "Thermal resistance between floorplan neighbours (K/W; 0: none)"),
        P::Float("thermal.capacitance", 0.002, 1e-9, 1e6, "Thermal capacitance per SM (J/K)"),
        P::Int("thermal.columns", 0, 0, 1024, "Floorplan columns: SMs row by row (0: ceil(sqrt(sm.count)))"),
        P::String("thermal.initial", "ambient", {},
                  "Temperatures at the start: ambient (every SM at thermal.ambient_k), or one per SM in K "
                  "separated by commas (SM 0 first; a wear study sets them)"),
    },
});
const bool declared_em = declare_params({
    "em", "gpu.em", "",
    {
        P::String("em.model", "black", {"black", "nucleation"},
                  "Electromigration time-to-failure model: black (Black's equation) or nucleation (Korhonen)"),
        P::Float("em.ttf_years", 10, 0.001, 1000, "Nominal lifetime TTF_N (years) of the nominal point"),
        P::Float("em.nominal_w", 4, 0.001, 1e4, "Nominal per-SM power (W) the lifetime is calibrated to"),
        P::Float("em.nominal_k", 353.15, 200, 600, "Nominal SM temperature (K) the lifetime is calibrated to"),
        P::Float("em.width_um", 500, 0.001, 1e6, "Width of an SM's supply segment (um)"),
        P::Float("em.thickness_um", 1, 0.001, 1e6, "Thickness of an SM's supply segment (um)"),
        P::Float("em.n", 2, 0.1, 10, "Black: current density exponent (2: nucleation-dominated, 1: void growth)"),
        P::Float("em.ea_ev", 0.86, 0.01, 5, "Activation energy (eV; copper 0.86)"),
        P::Float("em.z", 10, 0.1, 1000, "Nucleation: effective charge number"),
        P::Float("em.rho", 3e-8, 1e-12, 1, "Nucleation: resistivity (ohm m)"),
        P::Float("em.omega", 1.66e-29, 1e-35, 1e-20, "Nucleation: atomic volume (m^3)"),
        P::Float("em.bulk_pa", 1e11, 1, 1e15, "Nucleation: effective bulk modulus B (Pa)"),
        P::Float("em.d0", 7.56e-5, 1e-20, 1, "Nucleation: diffusivity prefactor D0 (m^2/s)"),
        P::Float("em.sigma_crit_pa", 400e6, 1, 1e12, "Nucleation: critical stress (Pa)"),
        P::Float("em.sigma_t_pa", 0, -1e12, 1e12, "Nucleation: thermal (residual) stress (Pa)"),
        P::Float("em.length_um", 100, 0.001, 1e6, "Nucleation: segment length (um)"),
    },
});
// thermal.initial: "ambient" (none), or kelvins separated by commas.
std::vector<double> initial_temps(const std::string& text) {
  std::vector<double> out;
  if (text == "ambient") return out;
  for (size_t from = 0; from <= text.size();) {
    const size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = text.substr(from, comma - from);
    char* end = nullptr;
    const double k = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(k >= 200 && k <= 2000))
      throw std::invalid_argument(fmt::format(
          "thermal.initial: '{}' (item {}) is not a temperature from 200 to 2000 K; the value is ambient or one "
          "temperature per SM in K separated by commas",
          item, out.size()));
    out.push_back(k);
    from = comma + 1;
  }
  return out;
}
}  // namespace

EnergyTable EnergyTable::from(const Params& p) {
  (void)declared_power;
  EnergyTable t;
  t.v0 = p.f("v0");
  t.vdd = p.f("vdd");
  const double scale = p.f("node_nm") / 40.0 * (t.v0 / 0.96) * (t.v0 / 0.96);
  for (const EnergyDefault& e : kEnergy) t.pj[size_t(e.e)] = p.f(fmt::format("energy_pj.{}", event_name(e.e))) * scale;
  t.static_w = p.f("static_w");
  t.chip_w = p.f("chip_w");
  t.l2_read_pj = p.f("l2_read_pj") * scale;
  t.l2_write_pj = p.f("l2_write_pj") * scale;
  t.dram_pj_per_byte = p.f("dram_pj_per_byte");
  t.gating = p.b("gating");
  t.cluster_share = p.f("cluster_static_share");
  return t;
}

ThermalParams ThermalParams::from(const Params& p) {
  (void)declared_thermal;
  ThermalParams t;
  t.ambient_k = p.f("ambient_k");
  t.r_vertical = p.f("r_vertical");
  t.r_lateral = p.f("r_lateral");
  t.capacitance = p.f("capacitance");
  t.columns = unsigned(p.i("columns"));
  t.initial_k = initial_temps(p.s("initial"));
  return t;
}

void ThermalParams::check_sms(unsigned sms) const {
  if (!initial_k.empty() && initial_k.size() != sms)
    throw std::invalid_argument(fmt::format("thermal.initial gives {} temperatures, the GPU has {} SMs (sm.count)",
                                            initial_k.size(), sms));
}

std::string initial_value(const std::vector<double>& temps_k) {
  return fmt::format("{}", fmt::join(temps_k, ","));  // shortest text that reads back to the same double
}

EmParams EmParams::from(const Params& p) {
  (void)declared_em;
  EmParams e;
  e.model = p.s("model");
  e.ttf_years = p.f("ttf_years");
  e.nominal_w = p.f("nominal_w");
  e.nominal_k = p.f("nominal_k");
  e.width_um = p.f("width_um");
  e.thickness_um = p.f("thickness_um");
  e.n = p.f("n");
  e.ea_ev = p.f("ea_ev");
  e.z = p.f("z");
  e.rho = p.f("rho");
  e.omega = p.f("omega");
  e.bulk = p.f("bulk_pa");
  e.d0 = p.f("d0");
  e.sigma_crit = p.f("sigma_crit_pa");
  e.sigma_t = p.f("sigma_t_pa");
  e.length = p.f("length_um") * 1e-6;
  return e;
}

}  // namespace gpuvp::power
