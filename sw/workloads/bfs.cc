#include "sw/workloads/bfs.h"

#include <algorithm>

#include "sw/kernels/kernels.h"
#include "sw/workloads/common.h"

namespace gpuvp::wl::bfs {

Graph Graph::from_adjacency(const std::vector<std::vector<int32_t>>& adj) {
  Graph g;
  for (auto& a : adj) {
    g.nodes.push_back(int32_t(g.edges.size()));
    g.nodes.push_back(int32_t(a.size()));
    g.edges.insert(g.edges.end(), a.begin(), a.end());
  }
  return g;
}

State initial(int32_t nodes, int32_t source) {
  State s;
  s.mask.assign(nodes, 0);
  s.updating.assign(nodes, 0);
  s.visited.assign(nodes, 0);
  s.cost.assign(nodes, -1);
  s.mask[source] = 1;
  s.visited[source] = 1;
  s.cost[source] = 0;
  return s;
}

void step(const Graph& g, State& s) {
  for (int32_t v = 0; v < g.size(); ++v) {
    if (!s.mask[v]) continue;
    s.mask[v] = 0;
    int32_t start = g.nodes[2 * v], count = g.nodes[2 * v + 1];
    for (int32_t i = start; i < start + count; ++i) {
      int32_t id = g.edges[i];
      if (!s.visited[id]) {
        s.cost[id] = s.cost[v] + 1;
        s.updating[id] = 1;
      }
    }
  }
}

bool update(State& s) {
  bool over = false;
  for (size_t v = 0; v < s.updating.size(); ++v)
    if (s.updating[v]) {
      s.mask[v] = 1;
      s.visited[v] = 1;
      s.updating[v] = 0;
      over = true;
    }
  return over;
}

Inputs generate(const LaunchConfig& cfg, uint64_t seed) {
  int64_t n = positive_param(cfg, "nodes", 64);
  int64_t degree = cfg.get("degree", 2), level = cfg.get("level", 1), levels = cfg.get("levels", 1);
  if (degree < 0 || level < 0 || levels < 0)
    throw std::invalid_argument(fmt::format("bfs '{}': degree, level and levels must be >= 0", cfg.name));
  Rng rng(seed);
  std::vector<std::vector<int32_t>> adj(n);
  auto connect = [&](int64_t a, int64_t b) {
    if (a == b || std::find(adj[a].begin(), adj[a].end(), b) != adj[a].end()) return;
    adj[a].push_back(int32_t(b));
    adj[b].push_back(int32_t(a));
  };
  for (int64_t v = 1; v < n; ++v) connect(v, rng.range(0, v - 1));  // random spanning tree
  for (int64_t e = 0; e < n * degree / 2; ++e) connect(rng.range(0, n - 1), rng.range(0, n - 1));
  Inputs in{Graph::from_adjacency(adj), initial(int32_t(n), 0), levels};
  for (int64_t l = 0; l < level; ++l) {
    step(in.graph, in.state);
    if (!update(in.state)) break;
  }
  return in;
}

State reference(const Inputs& in) {
  State s = in.state;
  if (in.levels == 1) {
    step(in.graph, s);
    return s;
  }
  for (int64_t l = 0; in.levels == 0 || l < in.levels; ++l) {
    step(in.graph, s);
    if (!update(s)) break;
  }
  return s;
}

Result check(const Inputs& in, const State& got) {
  State ref = reference(in);
  Checker chk;
  auto cmp = [&](const char* name, const auto& g, const auto& e) {
    if (g.size() != e.size()) chk.fail(fmt::format("{} has {} entries, expected {}", name, g.size(), e.size()));
    for (size_t i = 0; i < g.size() && i < e.size(); ++i) chk.exact(name, i, g[i], e[i]);
  };
  cmp("cost", got.cost, ref.cost);
  cmp("mask", got.mask, ref.mask);
  cmp("updating", got.updating, ref.updating);
  cmp("visited", got.visited, ref.visited);
  Result r;
  chk.finish(r);
  append_bytes(r.output, got.cost);
  append_bytes(r.output, got.mask);
  append_bytes(r.output, got.updating);
  append_bytes(r.output, got.visited);
  return r;
}

namespace {
class Bfs : public Workload {
 public:
  std::string name() const override { return "bfs"; }
  std::string description() const override {
    return "Rodinia BFS level steps on a CSR graph (frontier mask, visited, cost)";
  }
  std::string kernel_source() const override { return "bfs"; }
  std::vector<LaunchConfig> configs() const override {
    return {
        {"small", {{"nodes", 64}, {"degree", 2}, {"threads", 32}, {"level", 1}, {"levels", 1}}},
        {"level2", {{"nodes", 256}, {"degree", 4}, {"threads", 64}, {"level", 2}, {"levels", 1}}},
        {"tail", {{"nodes", 100}, {"degree", 3}, {"threads", 32}, {"level", 3}, {"levels", 1}}},
        {"full", {{"nodes", 128}, {"degree", 2}, {"threads", 32}, {"level", 0}, {"levels", 0}}},
    };
  }
  Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const override {
    int64_t threads = positive_param(cfg, "threads", 32);
    Inputs in = generate(cfg, seed);
    int32_t n = in.graph.size();
    uint32_t blocks = ceil_div(n, threads);
    auto m = rt.load_module(kernels::ptx(kernel_source()), kernel_source() + ".ptx");
    rt::DevPtr dnodes = rt.upload(in.graph.nodes), dedges = rt.upload(in.graph.edges),
               dmask = rt.upload(in.state.mask), dupd = rt.upload(in.state.updating),
               dvis = rt.upload(in.state.visited), dcost = rt.upload(in.state.cost), dover = rt.malloc(4);
    rt::KernelArgs step_args;
    step_args.ptr(dnodes).ptr(dedges).ptr(dmask).ptr(dupd).ptr(dvis).ptr(dcost).i32(n);
    rt::KernelArgs update_args;
    update_args.ptr(dmask).ptr(dupd).ptr(dvis).ptr(dover).i32(n);
    if (in.levels == 1) {
      rt.launch(m, "bfsStep", {blocks}, {uint32_t(threads)}, step_args, 0, cfg.blocks_per_core);
    } else {
      for (int64_t l = 0; in.levels == 0 || l < in.levels; ++l) {
        rt.memset(dover, 0, 4);
        rt.launch(m, "bfsStep", {blocks}, {uint32_t(threads)}, step_args, 0, cfg.blocks_per_core);
        rt.launch(m, "bfsUpdate", {blocks}, {uint32_t(threads)}, update_args, 0, cfg.blocks_per_core);
        if (rt.download<int32_t>(dover, 1)[0] == 0) break;
        if (l > n) throw std::runtime_error("bfs: the frontier did not empty after more levels than nodes");
      }
    }
    State got;
    got.mask = rt.download<uint8_t>(dmask, n);
    got.updating = rt.download<uint8_t>(dupd, n);
    got.visited = rt.download<uint8_t>(dvis, n);
    got.cost = rt.download<int32_t>(dcost, n);
    for (auto p : {dnodes, dedges, dmask, dupd, dvis, dcost, dover}) rt.free(p);
    return check(in, got);
  }
};
}  // namespace

std::unique_ptr<Workload> make() { return std::make_unique<Bfs>(); }

}  // namespace gpuvp::wl::bfs
