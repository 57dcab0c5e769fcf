// Compact thermal RC network per SM, implicit Euler: (C/dt + G) T' = C/dt T + P + T_amb / R_v, with
// G the conductance matrix. The matrix depends only on dt, so its inverse is kept for the last dt. A
// stretch of constant power is one exact step through the eigen-decomposition of G.
#include <cmath>

#include "models/power/thermal_model.h"

namespace gpuvp::power {

std::vector<unsigned> floorplan_neighbours(unsigned k, unsigned sms, unsigned columns) {
  std::vector<unsigned> out;
  const unsigned r = k / columns, c = k % columns;
  if (c > 0) out.push_back(k - 1);
  if (c + 1 < columns && k + 1 < sms) out.push_back(k + 1);
  if (r > 0) out.push_back(k - columns);
  if (k + columns < sms) out.push_back(k + columns);
  return out;
}

namespace {
// Inverse of a small dense matrix (Gauss-Jordan with partial pivoting); the system is diagonally
// dominant, so it is well conditioned.
std::vector<double> invert(std::vector<double> a, unsigned n) {
  std::vector<double> inv(size_t(n) * n, 0.0);
  for (unsigned i = 0; i < n; ++i) inv[size_t(i) * n + i] = 1;
  for (unsigned col = 0; col < n; ++col) {
    unsigned piv = col;
    for (unsigned r = col + 1; r < n; ++r)
      if (std::fabs(a[size_t(r) * n + col]) > std::fabs(a[size_t(piv) * n + col])) piv = r;
    for (unsigned j = 0; j < n; ++j) {
      std::swap(a[size_t(col) * n + j], a[size_t(piv) * n + j]);
      std::swap(inv[size_t(col) * n + j], inv[size_t(piv) * n + j]);
    }
    const double d = a[size_t(col) * n + col];
    for (unsigned j = 0; j < n; ++j) {
      a[size_t(col) * n + j] /= d;
      inv[size_t(col) * n + j] /= d;
    }
    for (unsigned r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = a[size_t(r) * n + col];
      if (f == 0) continue;
      for (unsigned j = 0; j < n; ++j) {
        a[size_t(r) * n + j] -= f * a[size_t(col) * n + j];
        inv[size_t(r) * n + j] -= f * inv[size_t(col) * n + j];
      }
    }
  }
  return inv;
}

// Eigen-decomposition of a small symmetric matrix (cyclic Jacobi): a = V diag(w) V^T, V column-wise
// in `v` (v[i * n + m]: component i of eigenvector m).
void symmetric_eigen(std::vector<double> a, unsigned n, std::vector<double>& w, std::vector<double>& v) {
  v.assign(size_t(n) * n, 0.0);
  for (unsigned i = 0; i < n; ++i) v[size_t(i) * n + i] = 1;
  auto at = [n](std::vector<double>& m, unsigned r, unsigned c) -> double& { return m[size_t(r) * n + c]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (unsigned p = 0; p < n; ++p)
      for (unsigned q = p + 1; q < n; ++q) off += at(a, p, q) * at(a, p, q);
    if (off < 1e-30) break;
    for (unsigned p = 0; p < n; ++p)
      for (unsigned q = p + 1; q < n; ++q) {
        if (at(a, p, q) == 0) continue;
        const double theta = (at(a, q, q) - at(a, p, p)) / (2 * at(a, p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (unsigned k = 0; k < n; ++k) {  // a = J^T a J, v = v J
          const double akp = at(a, k, p), akq = at(a, k, q);
          at(a, k, p) = c * akp - s * akq;
          at(a, k, q) = s * akp + c * akq;
        }
        for (unsigned k = 0; k < n; ++k) {
          const double apk = at(a, p, k), aqk = at(a, q, k);
          at(a, p, k) = c * apk - s * aqk;
          at(a, q, k) = s * apk + c * aqk;
        }
        for (unsigned k = 0; k < n; ++k) {
          const double vkp = at(v, k, p), vkq = at(v, k, q);
          at(v, k, p) = c * vkp - s * vkq;
          at(v, k, q) = s * vkp + c * vkq;
        }
      }
  }
  w.resize(n);
  for (unsigned i = 0; i < n; ++i) w[i] = at(a, i, i);
}

class CompactThermal : public ThermalModel {
 public:
  CompactThermal(const ThermalParams& t, unsigned sms) : t_(t), n_(sms), temps_(sms, t.ambient_k), rhs_(sms) {
    t.check_sms(sms);
    if (!t.initial_k.empty()) temps_ = t.initial_k;
    const unsigned cols = t.columns ? t.columns : unsigned(std::ceil(std::sqrt(double(sms))));
    for (unsigned k = 0; k < sms; ++k) nb_.push_back(floorplan_neighbours(k, sms, cols));
  }

  void step(const std::vector<double>& p_w, double dt_s) override {
    if (dt_s != dt_) prepare(dt_s);
    const double c_dt = t_.capacitance / dt_s;
    for (unsigned k = 0; k < n_; ++k) rhs_[k] = c_dt * temps_[k] + p_w[k] + t_.ambient_k / t_.r_vertical;
    for (unsigned k = 0; k < n_; ++k) {
      double s = 0;
      for (unsigned j = 0; j < n_; ++j) s += inv_[size_t(k) * n_ + j] * rhs_[j];
      temps_[k] = s;
    }
    x_known_ = false;
  }
  // In the eigenbasis of G each mode m decays on its own: x_m(t) = x_ss,m + exp(-w_m t / C) (x_m(0) - x_ss,m),
  // with x = V^T T and x_ss = (V^T b) / w (b = P + T_amb / R_v).
  void hold(const std::vector<double>& p_w, double dt_s) override {
    modes(p_w);
    hold_steady(dt_s);
  }
  // modes() is up to date (x_ the temperatures, ss_ the powers' steady state): hold's step itself.
  void hold_steady(double dt_s) override {
    const std::vector<double>& decay = decays(dt_s);
    for (unsigned m = 0; m < n_; ++m) x_[m] = ss_[m] + decay[m] * (x_[m] - ss_[m]);
    for (unsigned i = 0; i < n_; ++i) {
      double t = 0;
      for (unsigned m = 0; m < n_; ++m) t += vecs_[size_t(i) * n_ + m] * x_[m];
      temps_[i] = t;
    }
    x_known_ = false;  // the next modes() projects the new temperatures, as it always has
  }
  // T_i(t) - T_ss,i = sum_m V_im (x_m - ss_m) exp(-w_m t / C), integrated: (C / w_m) (1 - exp(-w_m dt / C)).
  // V is orthonormal: the distance is the same in the eigenbasis.
  double steady_excess(const std::vector<double>& p_w, double dt_s, std::vector<double>& t_ss,
                       std::vector<double>& excess_ks) override {
    modes(p_w);
    const std::vector<double>& kept = kept_fractions(dt_s);
    area_.resize(n_);
    double d = 0;
    for (unsigned m = 0; m < n_; ++m) {
      d += (x_[m] - ss_[m]) * (x_[m] - ss_[m]);
      area_[m] = (x_[m] - ss_[m]) * t_.capacitance / eig_[m] * kept[m];
    }
    t_ss = ss_temps_;
    excess_ks.resize(n_);
    for (unsigned i = 0; i < n_; ++i) {
      double e = 0;
      for (unsigned m = 0; m < n_; ++m) e += vecs_[size_t(i) * n_ + m] * area_[m];
      excess_ks[i] = e;
    }
    return std::sqrt(d);
  }
  // Mode m of the raise decays as exp(-w_m t / C): its mean over [a, b] is
  // (C / (w_m (b - a))) (exp(-w_m a / C) - exp(-w_m b / C)), exp(-w_m a / C) when b = a.
  std::vector<double> raise_for_mean(const std::vector<double>& shift_k, double from_s, double to_s) override {
    if (vecs_.empty()) symmetric_eigen(conductance(0.0), n_, eig_, vecs_);
    std::vector<double> modal(n_), out(n_, 0.0);
    project(shift_k, 0.0, modal);
    for (unsigned m = 0; m < n_; ++m) {
      const double rate = eig_[m] / t_.capacitance, start = std::exp(-rate * from_s), len = to_s - from_s;
      modal[m] /= len > 0 ? -start * std::expm1(-rate * len) / (rate * len) : start;
    }
    for (unsigned i = 0; i < n_; ++i)
      for (unsigned m = 0; m < n_; ++m) out[i] += vecs_[size_t(i) * n_ + m] * modal[m];
    return out;
  }
  const std::vector<double>& temps() const override { return temps_; }

 private:
  // G + diag(c_over_dt): the conductance matrix, plus C/dt on the diagonal for an implicit step.
  std::vector<double> conductance(double c_over_dt) const {
    std::vector<double> a(size_t(n_) * n_, 0.0);
    const double g_lat = t_.r_lateral > 0 ? 1.0 / t_.r_lateral : 0.0;
    for (unsigned k = 0; k < n_; ++k) {
      a[size_t(k) * n_ + k] = c_over_dt + 1.0 / t_.r_vertical + g_lat * double(nb_[k].size());
      for (unsigned j : nb_[k]) a[size_t(k) * n_ + j] -= g_lat;
    }
    return a;
  }
  // The temperatures in the eigenbasis (x_) and the steady state of `p_w` there (ss_). Each is worked out
  // again only when what it depends on changed: a steady stretch asks twice for the same (steady_excess
  // then hold), and the powers of a long wait are the same at every wake-up.
  void modes(const std::vector<double>& p_w) {
    if (vecs_.empty()) symmetric_eigen(conductance(0.0), n_, eig_, vecs_);
    x_.resize(n_);
    ss_.resize(n_);
    if (!x_known_) project(temps_, 0.0, x_);
    if (ss_p_ != p_w) {
      project(p_w, t_.ambient_k / t_.r_vertical, ss_);
      for (unsigned m = 0; m < n_; ++m) ss_[m] /= eig_[m];
      ss_p_ = p_w;
      ss_temps_.assign(n_, 0.0);
      for (unsigned i = 0; i < n_; ++i)
        for (unsigned m = 0; m < n_; ++m) ss_temps_[i] += vecs_[size_t(i) * n_ + m] * ss_[m];
    }
    x_known_ = true;
  }
  // out_m = sum_i V_im (v_i + add): a vector in the eigenbasis.
  void project(const std::vector<double>& v, double add, std::vector<double>& out) const {
    for (unsigned m = 0; m < n_; ++m) {
      double s = 0;
      for (unsigned i = 0; i < n_; ++i) s += vecs_[size_t(i) * n_ + m] * (v[i] + add);
      out[m] = s;
    }
  }
  // exp(-w_m dt / C) per mode, and 1 - exp(-w_m dt / C) (kept_fractions: what of a mode's excess the
  // stretch integrates), for the last dt asked: the waits of a periodic wake-up are all alike.
  const std::vector<double>& decays(double dt_s) {
    if (dt_s != decay_dt_) {
      decay_.resize(n_);
      for (unsigned m = 0; m < n_; ++m) decay_[m] = std::exp(-eig_[m] * dt_s / t_.capacitance);
      decay_dt_ = dt_s;
    }
    return decay_;
  }
  const std::vector<double>& kept_fractions(double dt_s) {
    if (dt_s != kept_dt_) {
      kept_.resize(n_);
      for (unsigned m = 0; m < n_; ++m) kept_[m] = -std::expm1(-eig_[m] * dt_s / t_.capacitance);
      kept_dt_ = dt_s;
    }
    return kept_;
  }
  void prepare(double dt_s) {
    dt_ = dt_s;
    inv_ = invert(conductance(t_.capacitance / dt_s), n_);
  }

  ThermalParams t_;
  unsigned n_;
  std::vector<std::vector<unsigned>> nb_;
  std::vector<double> temps_, rhs_, inv_;
  std::vector<double> eig_, vecs_;  // eigen-decomposition of G (hold), computed on first use
  std::vector<double> x_, ss_;       // modes(): the temperatures and ss_p_'s steady state, eigenbasis
  std::vector<double> ss_p_;         // the powers ss_ is for
  std::vector<double> ss_temps_;     // ss_ back in temperatures (K per SM): a wait's wake-ups ask for the same
  bool x_known_ = false;             // x_ is the projection of temps_ as they are
  std::vector<double> decay_, kept_;  // decays() and kept_fractions() for decay_dt_ and kept_dt_
  std::vector<double> area_;         // steady_excess's scratch: each mode's excess integrated
  double decay_dt_ = -1, kept_dt_ = -1;
  double dt_ = -1;
};
}  // namespace

std::unique_ptr<ThermalModel> make_thermal_model(const ThermalParams& t, unsigned sms) {
  return std::make_unique<CompactThermal>(t, sms);
}

namespace {
std::unique_ptr<ThermalModel> at_ambient(ThermalParams t, unsigned sms) {
  t.initial_k.clear();  // (the steady state and the modes do not depend on where the network starts)
  return make_thermal_model(t, sms);
}
}  // namespace

std::vector<double> steady_temps(const ThermalParams& t, const std::vector<double>& p_w) {
  std::vector<double> t_ss, excess;
  at_ambient(t, unsigned(p_w.size()))->steady_excess(p_w, 0.0, t_ss, excess);
  return t_ss;
}

// The run from T_amb + x instead of T_amb has the pilot's trajectory plus the free decay of x: its mean
// over the window is the pilot's plus the mean of that decay, which raise_for_mean sets to what the
// periodic state's mean asks.
std::vector<double> periodic_start(const ThermalParams& t, const std::vector<double>& p_w,
                                   const std::vector<double>& mean_k, double from_s, double to_s) {
  const std::vector<double> target = steady_temps(t, p_w);
  std::vector<double> shift(p_w.size());
  for (size_t k = 0; k < shift.size(); ++k) shift[k] = target[k] - mean_k[k];
  std::vector<double> start = at_ambient(t, unsigned(p_w.size()))->raise_for_mean(shift, from_s, to_s);
  for (double& x : start) x += t.ambient_k;
  return start;
}

}  // namespace gpuvp::power
