// The aging-aware policy (docs/power.md, "Aging-aware instruction distribution"): cluster formation
// picks the clusters of least delay and gates the most aged surplus ones; the distribution ratio gives
// each working cluster the share that makes all of them end near the same delay.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "models/power/cluster_plan.h"

namespace gpuvp::power {

std::unique_ptr<ClusterPlanner> make_even_planner();
std::unique_ptr<ClusterPlanner> make_even_subset_planner();

// The variation map has one Vth0 per cluster, so sorting lanes by delay and grouping similar ones keeps
// each cluster whole: formation orders the clusters and keeps the fastest `needed` working.
std::vector<bool> form_clusters(const std::vector<double>& dvth, unsigned needed) {
  std::vector<size_t> order(dvth.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return dvth[a] < dvth[b]; });
  std::vector<bool> working(dvth.size(), false);
  for (size_t i = 0; i < order.size() && i < std::max(needed, 1u); ++i) working[order[i]] = true;
  return working;
}

double history_shift(const NbtiModel& m, const NbtiParams& p, double offset, double stress_s, double elapsed_s,
                     double duty, double horizon_s) {
  if (elapsed_s <= 0) return m.shift(p.vth0 + offset, duty, horizon_s);
  const double total = elapsed_s + horizon_s;
  return m.shift(p.vth0 + offset, (stress_s + duty * horizon_s) / total, total);
}

std::vector<double> current_dvth(const NbtiParams& p, const PlanInput& in) {
  const auto nbti = make_power_law_nbti(p);
  std::vector<double> d = in.offsets;
  if (in.elapsed_s > 0)
    for (size_t c = 0; c < d.size(); ++c) d[c] += history_shift(*nbti, p, in.offsets[c], in.stress_s.at(c), in.elapsed_s, 0, 0);
  return d;
}

namespace {

// Delay degradation of cluster c after its aging so far and the horizon at duty `duty`.
double aged_delay(const NbtiModel& nbti, const DelayModel& delay, const NbtiParams& p, const PlanInput& in, size_t c,
                  double duty) {
  const double stress = in.elapsed_s > 0 ? in.stress_s.at(c) : 0.0;
  const double off = in.offsets[c];
  return delay.degradation(off + history_shift(nbti, p, off, stress, in.elapsed_s, duty, in.horizon_s));
}

// The duty in [0, 1] at which cluster c ends at delay `target` (delay grows with duty): bisection.
double duty_for(const NbtiModel& nbti, const DelayModel& delay, const NbtiParams& p, const PlanInput& in, size_t c,
                double target) {
  double lo = 0, hi = 1;
  if (aged_delay(nbti, delay, p, in, c, lo) >= target) return 0;
  if (aged_delay(nbti, delay, p, in, c, hi) <= target) return 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (aged_delay(nbti, delay, p, in, c, mid) < target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

// The working clusters together carry the equal shares' work, n x in.duty, none beyond its lanes
// (duty 1): the target is the common final delay whose duties carry exactly that work (a bisection on
// the delay; the sum of the duties grows with it). Near the average delay at equal shares, and a
// kernel that keeps its clusters busy leaves no work to move: every one saturated.
std::vector<double> distribution_ratio(const NbtiParams& p, const PlanInput& in, const std::vector<bool>& working) {
  const auto nbti = make_power_law_nbti(p);
  const auto delay = make_alpha_power_delay(p);
  const unsigned n = unsigned(std::count(working.begin(), working.end(), true));
  const double work = n * in.duty;
  std::vector<double> duty(working.size(), 0.0);
  const auto duties_at = [&](double target) {
    double sum = 0;
    for (size_t c = 0; c < working.size(); ++c)
      if (working[c]) sum += duty[c] = duty_for(*nbti, *delay, p, in, c, target);
    return sum;
  };
  double lo = 1e300, hi = 0;
  for (size_t c = 0; c < working.size(); ++c)
    if (working[c]) {
      lo = std::min(lo, aged_delay(*nbti, *delay, p, in, c, 0.0));
      hi = std::max(hi, aged_delay(*nbti, *delay, p, in, c, 1.0));
    }
  if (n == 0 || work >= n || duties_at(hi) <= work) {
    for (size_t c = 0; c < working.size(); ++c) duty[c] = working[c] ? 1.0 / std::max(n, 1u) : 0.0;
    return duty;
  }
  for (int i = 0; i < 50; ++i) {
    const double mid = (lo + hi) / 2;
    (duties_at(mid) < work ? lo : hi) = mid;
  }
  const double sum = duties_at(hi);
  for (double& d : duty) d /= sum;
  return duty;
}

std::vector<unsigned> round_limits(const std::vector<double>& weights, unsigned round) {
  std::vector<unsigned> l(weights.size(), 0);
  double sum = 0;
  unsigned used = 0;
  for (size_t c = 0; c < weights.size(); ++c)
    if (weights[c] > 0) {
      sum += weights[c];
      l[c] = 1;  // a working cluster with any share keeps at least one instruction per round
      ++used;
    }
  const unsigned extra = round > used ? round - used : 0;
  std::vector<std::pair<double, size_t>> rest;  // (-remainder, cluster): largest remainder first
  for (size_t c = 0; c < weights.size(); ++c) {
    if (!(weights[c] > 0)) continue;
    const double exact = weights[c] / sum * extra;
    l[c] += unsigned(exact);
    used += unsigned(exact);
    rest.push_back({-(exact - std::floor(exact)), c});
  }
  std::stable_sort(rest.begin(), rest.end());
  for (size_t i = 0; used < std::max(round, 1u) && i < rest.size(); ++i, ++used) ++l[rest[i].second];
  return l;
}

namespace {
class AgingAwarePlanner final : public ClusterPlanner {
 public:
  explicit AgingAwarePlanner(const NbtiParams& p) : p_(p) {}
  std::vector<unsigned> limits(const PlanInput& in) const override {
    const std::vector<bool> working = form_clusters(current_dvth(p_, in), in.needed);
    return round_limits(distribution_ratio(p_, in, working), in.round);
  }

 private:
  NbtiParams p_;
};
}  // namespace

const std::vector<std::string>& cluster_planners() {
  static const std::vector<std::string> names = {"even", "even-subset", "aging-aware"};
  return names;
}

std::unique_ptr<ClusterPlanner> make_cluster_planner(const std::string& name, const NbtiParams& p) {
  if (name == "even") return make_even_planner();
  if (name == "even-subset") return make_even_subset_planner();
  if (name == "aging-aware") return std::make_unique<AgingAwarePlanner>(p);
  throw std::invalid_argument("'" + name + "' is not a cluster distribution policy (even, even-subset, aging-aware)");
}

}  // namespace gpuvp::power
