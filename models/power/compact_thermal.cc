// Compact thermal RC network per SM, implicit Euler: (C/dt + G) T' = C/dt T + P + T_amb / R_v, with
// G the conductance matrix. The matrix depends only on dt, so its inverse is kept for the last dt.
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

class CompactThermal : public ThermalModel {
 public:
  CompactThermal(const ThermalParams& t, unsigned sms) : t_(t), n_(sms), temps_(sms, t.ambient_k), rhs_(sms) {
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
  }
  const std::vector<double>& temps() const override { return temps_; }

 private:
  void prepare(double dt_s) {
    dt_ = dt_s;
    std::vector<double> a(size_t(n_) * n_, 0.0);
    const double g_lat = t_.r_lateral > 0 ? 1.0 / t_.r_lateral : 0.0;
    for (unsigned k = 0; k < n_; ++k) {
      a[size_t(k) * n_ + k] = t_.capacitance / dt_s + 1.0 / t_.r_vertical + g_lat * double(nb_[k].size());
      for (unsigned j : nb_[k]) a[size_t(k) * n_ + j] -= g_lat;
    }
    inv_ = invert(std::move(a), n_);
  }

  ThermalParams t_;
  unsigned n_;
  std::vector<std::vector<unsigned>> nb_;
  std::vector<double> temps_, rhs_, inv_;
  double dt_ = -1;
};
}  // namespace

std::unique_ptr<ThermalModel> make_thermal_model(const ThermalParams& t, unsigned sms) {
  return std::make_unique<CompactThermal>(t, sms);
}

}  // namespace gpuvp::power
