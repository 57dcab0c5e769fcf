#pragma once
// nearestNeighbour (Rodinia nn): distance of every (lat, lng) record to a query point.
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::nearest_neighbour {

struct Inputs {
  std::vector<float> latlng;  // records x {lat, lng}, as the kernel's LatLong array
  float lat = 0, lng = 0;     // query point
  size_t records() const { return latlng.size() / 2; }
};
// Params: records, blocks, threads, grid_y (default 1: Rodinia's 2-D grid when > 1).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
double distance(float lat, float lng, float qlat, float qlng);
std::vector<double> reference(const Inputs& in);
// sqrt and a contracted fma: relative tolerance 3e-5 of the expected value plus 1e-6 absolute.
Result check(const Inputs& in, const std::vector<float>& dist);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::nearest_neighbour
