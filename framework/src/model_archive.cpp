#include "quench/model_archive.h"

#include <stdexcept>

namespace quench {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  char previous = '/';
  for (const char c : name) {
    const bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word && !(c == '/' && previous != '/')) return false;
    previous = c;
  }
  return true;
}

const char* type_name(const ModelArchive::Entry& e) {
  static const char* names[] = {"a real",   "an integer", "a text",
                                "a vector", "a matrix",   "a list of texts"};
  return names[e.index()];
}

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

}  // namespace

ModelFileError::ModelFileError(std::string file, const std::string& message)
    : Error(file + ": " + message), file_(std::move(file)) {}
ModelFileError::~ModelFileError() = default;

void ModelArchive::put(const std::string& name, Entry value) {
  if (!valid_name(name)) throw std::invalid_argument("invalid model entry name '" + name + "'");
  entries_[name] = std::move(value);
}

ModelFileError ModelArchive::error(const std::string& message) const {
  return ModelFileError(file_, message);
}

template <class T>
const T& ModelArchive::get(const std::string& name, const char* type) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) throw error("entry '" + name + "' is missing");
  if (const T* value = std::get_if<T>(&it->second)) return *value;
  throw error("entry '" + name + "' is " + type_name(it->second) + ", expected " + type);
}

double ModelArchive::real(const std::string& name) const { return get<double>(name, "a real"); }

std::int64_t ModelArchive::integer(const std::string& name) const {
  return get<std::int64_t>(name, "an integer");
}

const std::string& ModelArchive::text(const std::string& name) const {
  return get<std::string>(name, "a text");
}

const Eigen::VectorXd& ModelArchive::vector(const std::string& name, Eigen::Index size) const {
  const auto& v = get<Eigen::VectorXd>(name, "a vector");
  if (size >= 0 && v.size() != size)
    throw error("entry '" + name + "' has " + std::to_string(v.size()) + " values, expected " +
                std::to_string(size));
  return v;
}

const Eigen::MatrixXd& ModelArchive::matrix(const std::string& name, Eigen::Index rows,
                                            Eigen::Index cols) const {
  const auto& m = get<Eigen::MatrixXd>(name, "a matrix");
  if ((rows >= 0 && m.rows() != rows) || (cols >= 0 && m.cols() != cols))
    throw error("entry '" + name + "' is " + shape(m.rows(), m.cols()) + ", expected " +
                (rows >= 0 ? std::to_string(rows) : "any") + " x " +
                (cols >= 0 ? std::to_string(cols) : "any"));
  return m;
}

Eigen::MatrixXd ModelArchive::take_matrix(const std::string& name, Eigen::Index rows,
                                          Eigen::Index cols) {
  matrix(name, rows, cols);  // checks
  return std::move(std::get<Eigen::MatrixXd>(entries_.at(name)));
}

Eigen::MatrixXd ModelArchive::take_cholesky_factor(const std::string& name, Eigen::Index size) {
  Eigen::MatrixXd lower = take_matrix(name, size, size);
  for (Eigen::Index i = 0; i < size; ++i)
    if (!(lower(i, i) > 0.0))
      throw error("entry '" + name + "' is not a Cholesky factor (diagonal " + std::to_string(i) +
                  " is not positive)");
  return lower;
}

const std::vector<std::string>& ModelArchive::texts(const std::string& name) const {
  return get<std::vector<std::string>>(name, "a list of texts");
}

std::vector<std::string> ModelArchive::names_under(const std::string& prefix) const {
  std::vector<std::string> out;
  const std::string start = prefix + "/";
  for (auto it = entries_.lower_bound(start);
       it != entries_.end() && it->first.compare(0, start.size(), start) == 0; ++it)
    out.push_back(it->first);
  return out;
}

}  // namespace quench
