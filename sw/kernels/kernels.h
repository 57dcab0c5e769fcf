#pragma once
// PTX of the kernel library, embedded at build time from sw/kernels/*.ptx (regenerated from the
// .cu sources by nvcc when it is installed; the committed .ptx keeps machines without it working).
#include <string>
#include <vector>

namespace gpuvp::kernels {
// PTX text of sw/kernels/<name>.ptx; throws std::invalid_argument listing the known names.
const std::string& ptx(const std::string& name);
std::vector<std::string> names();
}  // namespace gpuvp::kernels
