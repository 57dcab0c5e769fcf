// Parameters of the NBTI aging models (nbti.*) and how they are read. The NBTI constants are the 65 nm
// ones of the public OldSpot tool (none are public for 16 nm FinFET); docs/power.md has the sources.
#include "models/power/nbti.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace gpuvp::power {

namespace {
using P = ParamDef;
const bool declared_nbti = declare_params({
    "nbti", "gpu.nbti", "",
    {
        P::Float("nbti.vdd", 1.1, 0.1, 5, "Supply voltage of the lane clusters for aging (V)"),
        P::Float("nbti.vth0", 0.5, 0.01, 2, "Nominal threshold voltage Vth0 (V; below nbti.vdd)"),
        P::String("nbti.temperature", "fixed", {"fixed", "thermal"},
                  "Temperature the lane clusters age at: fixed (nbti.temp_k) or thermal (their SM's mean temperature "
                  "from the compact thermal model, the run repeated for the years: the steady state of every SM's "
                  "mean power; docs/power.md, \"Aging study\")"),
        P::Float("nbti.temp_k", 350, 200, 500, "Temperature the lane clusters age at under nbti.temperature = fixed (K)"),
        P::Float("nbti.k", 0.027e-12, 0, 1, "NBTI power law: scale K (V)"),
        P::Float("nbti.a", 5.5e12, 0, 1e20, "NBTI power law: coefficient A of the time-dependent term"),
        P::Float("nbti.b", 8e11, 0, 1e20, "NBTI power law: coefficient B of the time-independent term"),
        P::Float("nbti.g", 4.5, 0, 20, "NBTI power law: voltage exponent g of (Vdd - Vth0)"),
        P::Float("nbti.e1_ev", 0.08, 0, 2, "NBTI power law: activation energy E1 of the A term (eV)"),
        P::Float("nbti.e2_ev", 0.03, 0, 2, "NBTI power law: activation energy E2 of the B term (eV)"),
        P::Float("nbti.alpha", 1.3, 0.5, 3, "Alpha-power law exponent of the gate delay"),
        P::Float("nbti.sigma_v", 0.02, 0, 0.5,
                 "Process variation: standard deviation of a lane cluster's Vth0 (V; no public figure for these chips, an "
                 "assumption). The largest draw, 8.65 sigma_v, must stay below nbti.vth0 and nbti.vdd - nbti.vth0"),
        P::Float("nbti.fail", 0.05, 0, 10, "Delay degradation at which a lane cluster misses timing"),
    },
});
}  // namespace

NbtiParams NbtiParams::from(const Params& p) {
  (void)declared_nbti;
  NbtiParams n;
  n.vdd = p.f("vdd");
  n.vth0 = p.f("vth0");
  n.temp_k = p.f("temp_k");
  n.thermal = p.s("temperature") == "thermal";
  n.k = p.f("k");
  n.a = p.f("a");
  n.b = p.f("b");
  n.g = p.f("g");
  n.e1_ev = p.f("e1_ev");
  n.e2_ev = p.f("e2_ev");
  n.alpha = p.f("alpha");
  n.sigma_v = p.f("sigma_v");
  n.fail = p.f("fail");
  n.check();
  return n;
}

double aging_temp_k(const NbtiParams& p, const std::vector<double>& steady_k, unsigned sm) {
  if (!p.thermal) return p.temp_k;
  if (sm >= steady_k.size())
    throw std::invalid_argument(fmt::format("nbti.temperature = thermal: no temperature for SM {}", sm));
  return steady_k[sm];
}

// The delay model divides by Vdd - Vth0, and a threshold at or beyond the supply (or below 0) means a
// transistor that never switches (or never turns off): every cluster's threshold, the largest offset a
// variation map can draw included, must stay between 0 and Vdd.
void NbtiParams::check() const {
  if (!(vth0 < vdd))
    throw std::invalid_argument(fmt::format(
        "nbti.vth0 = {} V is not below nbti.vdd = {} V: a threshold at or above the supply never switches", vth0, vdd));
  const double reach = max_variation_sigmas() * sigma_v, room = std::min(vth0, vdd - vth0);
  if (!(reach < room))
    throw std::invalid_argument(fmt::format(
        "nbti.sigma_v = {} V: a variation map draws offsets up to {:.3g} sigma_v = {:.3g} V, which must stay below "
        "nbti.vth0 = {} V and nbti.vdd - nbti.vth0 = {:.3g} V (every threshold between 0 and the supply): below {:.3g} "
        "V here",
        sigma_v, max_variation_sigmas(), reach, vth0, vdd - vth0, room / max_variation_sigmas()));
}

}  // namespace gpuvp::power
