#pragma once
// bfs: Rodinia-style breadth-first search level steps on a CSR graph.
#include <cstdint>
#include <memory>
#include <vector>

#include "sw/workloads/workload.h"

namespace gpuvp::wl::bfs {

struct Graph {
  std::vector<int32_t> nodes;  // per node {starting, no_of_edges}, as the kernel's Node array
  std::vector<int32_t> edges;  // CSR adjacency
  int32_t size() const { return int32_t(nodes.size() / 2); }
  // Builds the CSR form of an adjacency list.
  static Graph from_adjacency(const std::vector<std::vector<int32_t>>& adj);
};

struct State {
  std::vector<uint8_t> mask, updating, visited;  // frontier, next frontier, visited
  std::vector<int32_t> cost;                     // -1: not reached
  bool operator==(const State& o) const {
    return mask == o.mask && updating == o.updating && visited == o.visited && cost == o.cost;
  }
};

// BFS start: only `source` in the frontier and visited, cost 0; every other cost -1.
State initial(int32_t nodes, int32_t source);
// bfsStep: every frontier node leaves the frontier; its unvisited neighbours get cost + 1 and `updating`.
void step(const Graph& g, State& s);
// bfsUpdate: `updating` nodes become the frontier and visited; returns whether there was any.
bool update(State& s);

struct Inputs {
  Graph graph;
  State state;     // the state the GPU starts from: `level` full levels after the start at node 0
  int64_t levels;  // level steps the GPU runs: 1 = one bfsStep launch; k > 1 = up to k (bfsStep,
                   // bfsUpdate) pairs; 0 = pairs until the frontier is empty
};
// Params: nodes, degree (average extra undirected edges per node, on top of a random spanning
// tree so every node is reachable), threads, level (default 1), levels (default 1).
Inputs generate(const LaunchConfig& cfg, uint64_t seed);
State reference(const Inputs& in);
// Exact on all four arrays.
Result check(const Inputs& in, const State& got);
std::unique_ptr<Workload> make();

}  // namespace gpuvp::wl::bfs
