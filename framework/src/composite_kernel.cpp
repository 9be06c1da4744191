#include "quench/composite_kernel.h"

#include <algorithm>
#include <utility>

#include "quench/errors.h"
#include "quench/printable.h"

namespace quench {

CompositeKernel::CompositeKernel(std::vector<std::shared_ptr<Kernel>> parts)
    : parts_(std::move(parts)) {
  if (parts_.empty()) throw ConfigError({}, "a sum or product of kernels needs at least one part");
  for (const auto& p : parts_)
    if (!p) throw ConfigError({}, "a sum or product of kernels got a null part");
}

CompositeKernel::~CompositeKernel() = default;

void CompositeKernel::prepare(const Eigen::MatrixXd& X_train) {
  for (const auto& p : parts_) p->prepare(X_train);
}

bool CompositeKernel::exposes(const Hyperparameter&, Eigen::Index, const Eigen::VectorXd&) const {
  return true;
}

std::vector<CompositeKernel::Block> CompositeKernel::blocks() const {
  std::vector<Block> out;
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    const Eigen::VectorXd noise = parts_[i]->diagonal_noise_derivative();
    Eigen::Index offset = 0;
    for (Hyperparameter& h : parts_[i]->hyperparameters()) {
      const Eigen::Index size = h.value.size();
      if (exposes(h, offset, noise)) out.push_back({i, offset, std::move(h)});
      offset += size;
    }
  }
  return out;
}

std::vector<CompositeKernel::Entry> CompositeKernel::entries() const {
  std::vector<Entry> out;
  for (const Block& b : blocks())
    for (Eigen::Index k = 0; k < b.block.value.size(); ++k) out.push_back({b.part, b.offset + k});
  return out;
}

std::vector<Hyperparameter> CompositeKernel::hyperparameters() const {
  std::vector<Hyperparameter> out;
  for (Block& b : blocks()) {
    b.block.name = part_name(b.part) + "." + b.block.name;
    out.push_back(std::move(b.block));
  }
  return out;
}

void CompositeKernel::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  if (find_hyperparameter(hyperparameters(), name))
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      const std::string prefix = part_name(i) + ".";
      if (name.compare(0, prefix.size(), prefix) == 0)
        return parts_[i]->set_hyperparameter(name.substr(prefix.size()), value);
    }
  Kernel::set_hyperparameter(name, value);  // throws, naming the blocks
}

std::string CompositeKernel::part_name(std::size_t i) const { return std::to_string(i); }

namespace {

// Entry j of the flat vector, or a ConfigError.
template <class Entries>
auto entry_at(const Entries& entries, Eigen::Index j) {
  if (j < 0 || j >= static_cast<Eigen::Index>(entries.size()))
    throw ConfigError({}, "kernel hyperparameter entry " + std::to_string(j) +
                              " is outside the flat vector of " + std::to_string(entries.size()) +
                              " entries");
  return entries[static_cast<std::size_t>(j)];
}

// out_j = parts' vectors g_i at the entries of the flat vector.
template <class Entries>
Eigen::VectorXd gather(const Entries& entries, const std::vector<Eigen::VectorXd>& g) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(entries.size()));
  for (std::size_t j = 0; j < entries.size(); ++j)
    out(Eigen::Index(j)) = g[entries[j].part](entries[j].entry);
  return out;
}

// Columns of B taken at a time when combining the parts' cross covariances: each part's block
// (|A| x 256 doubles, 4 MB at |A| = 2000) stays in cache while it is combined, so a composite
// costs its parts' evaluations plus one write of the result, not a pass over whole N x N
// matrices per part (kernel_composition_bench: a sum cost 1.3-1.9x its parts that way).
constexpr Eigen::Index kColumnBlock = 256;

// K(A, B) with column block j of K = combine(part 0's block, part 1's block, ...), in place
// on the first part's block.
template <class Combine>
Eigen::MatrixXd combined_cross(const std::vector<std::shared_ptr<Kernel>>& parts,
                               const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                               Combine&& combine) {
  Eigen::MatrixXd K(A.rows(), B.rows());
  Eigen::MatrixXd block;
  for (Eigen::Index first = 0; first < B.rows(); first += kColumnBlock) {
    const Eigen::Index n = std::min(kColumnBlock, B.rows() - first);
    const Eigen::MatrixXd Bj = B.middleRows(first, n);
    block = parts.front()->cross(A, Bj);
    for (std::size_t i = 1; i < parts.size(); ++i) combine(block, parts[i]->cross(A, Bj));
    K.middleCols(first, n) = block;
  }
  return K;
}

}  // namespace

// --- Sum -------------------------------------------------------------------------------------

KernelSum::~KernelSum() = default;

void KernelSum::prepare(const Eigen::MatrixXd& X_train) {
  CompositeKernel::prepare(X_train);
  build_feature_map();
}

void KernelSum::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  CompositeKernel::set_hyperparameter(name, value);
  build_feature_map();  // a part's features follow its values
}

void KernelSum::build_feature_map() {
  std::vector<const CosineFeatures*> maps;
  for (const auto& p : parts()) {
    const auto* map = dynamic_cast<const CosineFeatures*>(p->feature_map());
    if (!map) return features_.reset();
    maps.push_back(map);
  }
  features_ = CosineFeatures::concatenate(maps);
}

Eigen::MatrixXd KernelSum::cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const {
  return combined_cross(parts(), X1, X2,
                        [](Eigen::MatrixXd& K, const Eigen::MatrixXd& part) { K += part; });
}

Eigen::VectorXd KernelSum::diagonal(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd d = parts().front()->diagonal(X);
  for (std::size_t i = 1; i < parts().size(); ++i) d += parts()[i]->diagonal(X);
  return d;
}

double KernelSum::diagonal_noise() const {
  double v = 0.0;
  for (const auto& p : parts()) v += p->diagonal_noise();
  return v;
}

Eigen::VectorXd KernelSum::diagonal_noise_derivative() const {
  std::vector<Eigen::VectorXd> g;
  for (const auto& p : parts()) g.push_back(p->diagonal_noise_derivative());
  return gather(entries(), g);
}

Eigen::MatrixXd KernelSum::cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                            Eigen::Index j) const {
  const Entry e = entry_at(entries(), j);
  return parts()[e.part]->cross_derivative(A, B, e.entry);
}

Eigen::VectorXd KernelSum::cross_derivative_contractions(const Eigen::MatrixXd& A,
                                                         const Eigen::MatrixXd& B,
                                                         const Eigen::MatrixXd& W) const {
  std::vector<Eigen::VectorXd> g;
  for (const auto& p : parts()) g.push_back(p->cross_derivative_contractions(A, B, W));
  return gather(entries(), g);
}

Eigen::VectorXd KernelSum::diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                            const Eigen::VectorXd& w) const {
  std::vector<Eigen::VectorXd> g;
  for (const auto& p : parts()) g.push_back(p->diagonal_derivative_contractions(X, w));
  return gather(entries(), g);
}

// --- Product ---------------------------------------------------------------------------------

KernelProduct::KernelProduct(std::vector<std::shared_ptr<Kernel>> parts)
    : CompositeKernel(std::move(parts)) {
  for (std::size_t i = 0; i < this->parts().size(); ++i)
    if (this->parts()[i]->diagonal_noise() != 0.0)
      throw ConfigError({}, "part " + std::to_string(i) +
                                " of a product of kernels has diagonal "
                                "noise " +
                                format_number(this->parts()[i]->diagonal_noise()) +
                                "; noise has no meaning in a product: add a white kernel (or the "
                                "likelihood's noise) to a sum instead");
}

bool KernelProduct::exposes(const Hyperparameter& block, Eigen::Index offset,
                            const Eigen::VectorXd& noise_derivative) const {
  return noise_derivative.segment(offset, block.value.size()).isZero(0.0);
}

namespace {

// For each part i: start o prod_{k != i} evaluate(k) (a part's cross covariances or diagonal).
template <class Evaluate, class Value>
std::vector<Value> products_of_others(std::size_t n, const Value& start, Evaluate&& evaluate) {
  std::vector<Value> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(evaluate(i));
  std::vector<Value> out(n, start);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k)
      if (k != i) out[i].array() *= values[k].array();
  return out;
}

}  // namespace

Eigen::MatrixXd KernelProduct::cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const {
  return combined_cross(parts(), X1, X2, [](Eigen::MatrixXd& K, const Eigen::MatrixXd& part) {
    K.array() *= part.array();
  });
}

Eigen::VectorXd KernelProduct::diagonal(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd d = parts().front()->diagonal(X);
  for (std::size_t i = 1; i < parts().size(); ++i) d.array() *= parts()[i]->diagonal(X).array();
  return d;
}

Eigen::MatrixXd KernelProduct::cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                Eigen::Index j) const {
  const Entry e = entry_at(entries(), j);
  Eigen::MatrixXd D = parts()[e.part]->cross_derivative(A, B, e.entry);
  for (std::size_t i = 0; i < parts().size(); ++i)
    if (i != e.part) D.array() *= parts()[i]->cross(A, B).array();
  return D;
}

// Over column blocks of B (as combined_cross): part i's contractions with the block of
// W o prod_{k != i} K_k, summed over the blocks.
Eigen::VectorXd KernelProduct::cross_derivative_contractions(const Eigen::MatrixXd& A,
                                                             const Eigen::MatrixXd& B,
                                                             const Eigen::MatrixXd& W) const {
  std::vector<Eigen::VectorXd> g(parts().size());
  for (Eigen::Index first = 0; first < B.rows(); first += kColumnBlock) {
    const Eigen::Index n = std::min(kColumnBlock, B.rows() - first);
    const Eigen::MatrixXd Bj = B.middleRows(first, n);
    const auto weights =
        products_of_others(parts().size(), Eigen::MatrixXd(W.middleCols(first, n)),
                           [&](std::size_t i) { return parts()[i]->cross(A, Bj); });
    for (std::size_t i = 0; i < parts().size(); ++i) {
      Eigen::VectorXd gi = parts()[i]->cross_derivative_contractions(A, Bj, weights[i]);
      g[i] = first == 0 ? std::move(gi) : Eigen::VectorXd(g[i] + gi);
    }
  }
  return gather(entries(), g);
}

Eigen::VectorXd KernelProduct::diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                                const Eigen::VectorXd& w) const {
  const auto weights = products_of_others(parts().size(), Eigen::VectorXd(w),
                                          [&](std::size_t i) { return parts()[i]->diagonal(X); });
  std::vector<Eigen::VectorXd> g;
  for (std::size_t i = 0; i < parts().size(); ++i)
    g.push_back(parts()[i]->diagonal_derivative_contractions(X, weights[i]));
  return gather(entries(), g);
}

}  // namespace quench
