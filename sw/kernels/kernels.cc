#include "sw/kernels/kernels.h"

#include <map>
#include <stdexcept>

namespace gpuvp::kernels {
const std::map<std::string, std::string>& embedded();

const std::string& ptx(const std::string& name) {
  auto& m = embedded();
  auto it = m.find(name);
  if (it == m.end()) {
    std::string known;
    for (auto& [n, t] : m) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("no kernel named '" + name + "' (known: " + known + ")");
  }
  return it->second;
}

std::vector<std::string> names() {
  std::vector<std::string> v;
  for (auto& [n, t] : embedded()) v.push_back(n);
  return v;
}
}  // namespace gpuvp::kernels
