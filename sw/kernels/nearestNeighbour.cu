// Rodinia nn (euclid): the distance of every record to the query point (lat, lng).
struct LatLong {
  float lat;
  float lng;
};

extern "C" __global__ void nearestNeighbour(const LatLong* d_locations, float* d_distances, int numRecords,
                                            float lat, float lng) {
  int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  if (globalId < numRecords) {
    const LatLong* ll = d_locations + globalId;
    float dlat = lat - ll->lat;
    float dlng = lng - ll->lng;
    d_distances[globalId] = sqrtf(dlat * dlat + dlng * dlng);
  }
}
