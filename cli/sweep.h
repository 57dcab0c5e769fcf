#pragma once
// `gpuvp sweep FILE`: every point of a sweep file's grid run in its own process (a point that fails,
// crashes or hangs is recorded and the others go on), its statistics kept (gpuvp-stats/2), one result
// table (CSV and JSON) of chosen statistics; resumable, and splittable into shards that `sweep merge`
// joins. docs/user-guide.md, "Sweeps".
#include <string>
#include <vector>

namespace gpuvp {

struct SweepOptions {
  std::string file, out;  // out "": FILE's stem + ".sweep" (or + ".shardI-of-N")
  unsigned jobs = 0;      // points at once; 0: the machine's CPUs
  std::string shard;      // "I/N": the points whose index (1, 2, ...) - 1 is I - 1 modulo N
  double timeout_s = 0;   // wall-clock seconds per point; 0: the file's timeout_s
  bool retry_failed = false;
  bool quiet = false;
};

// Exit status: 0 every point of this run ok, 1 a point failed (recorded in the table), 2 bad input.
int cmd_sweep(const SweepOptions& o);

// Joins the output folders of a sweep's shards (or of any runs of one sweep) into `out` and writes its
// table; refuses folders of different sweeps, and missing points unless `allow_missing`.
int cmd_sweep_merge(const std::string& out, const std::vector<std::string>& dirs, bool allow_missing);

}  // namespace gpuvp
