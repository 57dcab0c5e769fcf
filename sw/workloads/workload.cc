#include "sw/workloads/workload.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sw/workloads/bfs.h"
#include "sw/workloads/conv3x3.h"
#include "sw/workloads/grayFilter.h"
#include "sw/workloads/histogram.h"
#include "sw/workloads/mandelbrot.h"
#include "sw/workloads/matVec.h"
#include "sw/workloads/matrixMul.h"
#include "sw/workloads/nearestNeighbour.h"
#include "sw/workloads/reduction.h"
#include "sw/workloads/scalarProd.h"
#include "sw/workloads/timerSpin.h"
#include "sw/workloads/vectorAdd.h"

namespace gpuvp::wl {

const std::vector<std::unique_ptr<Workload>>& all() {
  static const std::vector<std::unique_ptr<Workload>> v = [] {
    std::vector<std::unique_ptr<Workload>> w;
    // The four applications of the reliability study first, then the others.
    w.push_back(vector_add::make());
    w.push_back(scalar_prod::make());
    w.push_back(gray_filter::make());
    w.push_back(nearest_neighbour::make());
    w.push_back(timer_spin::make());
    w.push_back(reduction::make());
    w.push_back(matrix_mul::make());
    w.push_back(histogram::make());
    w.push_back(mandelbrot::make());
    w.push_back(bfs::make());
    w.push_back(mat_vec::make());
    w.push_back(conv3x3::make());
    return w;
  }();
  return v;
}

const Workload* find(const std::string& name) {
  for (auto& w : all())
    if (w->name() == name) return w.get();
  return nullptr;
}

LaunchConfig config_named(const Workload& w, const std::string& name) {
  std::string known;
  for (auto& c : w.configs()) {
    if (c.name == name) return c;
    known += (known.empty() ? "" : ", ") + c.name;
  }
  throw std::invalid_argument(
      fmt::format("workload '{}' has no configuration '{}' (known: {})", w.name(), name, known));
}

const Workload& find_or_throw(const std::string& name) {
  if (const Workload* w = find(name)) return *w;
  std::string known;
  for (auto& x : all()) known += (known.empty() ? "" : ", ") + x->name();
  throw std::invalid_argument(fmt::format("{}: unknown workload (known: {})", name, known));
}

LaunchConfig launch_or_default(const Workload& w, const std::string& name) {
  return name.empty() ? w.configs().front() : config_named(w, name);
}

}  // namespace gpuvp::wl
