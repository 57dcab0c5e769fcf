// Parameters of the NBTI aging models (nbti.*) and how they are read. The NBTI constants are the 65 nm
// ones of the public OldSpot tool (none are public for 16 nm FinFET); docs/power.md has the sources.
#include "models/power/nbti.h"

namespace gpuvp::power {

namespace {
using P = ParamDef;
const bool declared_nbti = declare_params({
    "nbti", "gpu.nbti", "",
    {
        P::Float("nbti.vdd", 1.1, 0.1, 5, "Supply voltage of the lane clusters for aging (V)"),
        P::Float("nbti.vth0", 0.5, 0.01, 2, "Nominal threshold voltage Vth0 (V)"),
        P::Float("nbti.temp_k", 350, 200, 500, "Temperature the lane clusters age at (K)"),
        P::Float("nbti.k", 0.027e-12, 0, 1, "NBTI power law: scale K (V)"),
        P::Float("nbti.a", 5.5e12, 0, 1e20, "NBTI power law: coefficient A of the time-dependent term"),
        P::Float("nbti.b", 8e11, 0, 1e20, "NBTI power law: coefficient B of the time-independent term"),
        P::Float("nbti.g", 4.5, 0, 20, "NBTI power law: voltage exponent g of (Vdd - Vth0)"),
        P::Float("nbti.e1_ev", 0.08, 0, 2, "NBTI power law: activation energy E1 of the A term (eV)"),
        P::Float("nbti.e2_ev", 0.03, 0, 2, "NBTI power law: activation energy E2 of the B term (eV)"),
        P::Float("nbti.alpha", 1.3, 0.5, 3, "Alpha-power law exponent of the gate delay"),
        P::Float("nbti.sigma_v", 0.02, 0, 0.5,
                 "Process variation: standard deviation of a lane cluster's Vth0 (V; no public figure for these chips, an "
                 "assumption)"),
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
  n.k = p.f("k");
  n.a = p.f("a");
  n.b = p.f("b");
  n.g = p.f("g");
  n.e1_ev = p.f("e1_ev");
  n.e2_ev = p.f("e2_ev");
  n.alpha = p.f("alpha");
  n.sigma_v = p.f("sigma_v");
  n.fail = p.f("fail");
  return n;
}

}  // namespace gpuvp::power
