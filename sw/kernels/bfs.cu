// Breadth-first search on a CSR graph, Rodinia style. bfsStep expands one level: every node whose
// frontier mask is set clears it and gives each unvisited neighbour cost[node] + 1 and an
// `updating` mark. bfsUpdate turns the updating marks into the next frontier, marks them visited
// and sets *over so the host knows another level is needed.
struct Node {
  int starting;
  int no_of_edges;
};

extern "C" __global__ void bfsStep(const Node* nodes, const int* edges, unsigned char* mask, unsigned char* updating,
                                   const unsigned char* visited, int* cost, int no_of_nodes) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < no_of_nodes && mask[tid]) {
    mask[tid] = 0;
    int start = nodes[tid].starting;
    int end = start + nodes[tid].no_of_edges;
    for (int i = start; i < end; i++) {
      int id = edges[i];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating[id] = 1;
      }
    }
  }
}

extern "C" __global__ void bfsUpdate(unsigned char* mask, unsigned char* updating, unsigned char* visited, int* over,
                                     int no_of_nodes) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < no_of_nodes && updating[tid]) {
    mask[tid] = 1;
    visited[tid] = 1;
    *over = 1;
    updating[tid] = 0;
  }
}
