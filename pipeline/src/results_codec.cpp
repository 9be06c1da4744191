#include "results_codec.h"

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "quench/errors.h"

namespace quench {

namespace {

using nlohmann::json;

json numbers(const double* data, Eigen::Index size) {
  return json(std::vector<double>(data, data + size));
}

std::vector<double> numbers_of(const json& j) { return j.get<std::vector<double>>(); }

}  // namespace

std::string encode_results(const Results& r) {
  json doc;
  doc["engine"] = r.engine;
  doc["plugin"] = r.plugin;
  doc["sweep"] = r.sweep;
  doc["scalars"] = r.scalars;
  doc["info"] = r.info;
  doc["timings"] = r.timings;
  doc["status"] = {static_cast<int>(r.status.code), r.status.message, r.status.iterations};
  json& vectors = doc["vectors"] = json::object();
  for (const auto& [name, v] : r.vectors) vectors[name] = numbers(v.data(), v.size());
  json& matrices = doc["matrices"] = json::object();
  for (const auto& [name, m] : r.matrices)
    matrices[name] = {m.rows(), m.cols(), numbers(m.data(), m.size())};  // column-major
  const std::vector<std::uint8_t> bytes = json::to_cbor(doc);
  return std::string(bytes.begin(), bytes.end());
}

Results decode_results(const std::string& bytes) {
  try {
    const json doc = json::from_cbor(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    Results r;
    r.engine = doc.at("engine").get<std::string>();
    r.plugin = doc.at("plugin").get<std::string>();
    r.sweep = doc.at("sweep").get<std::map<std::string, double>>();
    r.scalars = doc.at("scalars").get<std::map<std::string, double>>();
    r.info = doc.at("info").get<std::map<std::string, std::string>>();
    r.timings = doc.at("timings").get<std::map<std::string, double>>();
    const json& status = doc.at("status");
    r.status = {static_cast<RunStatus>(status.at(0).get<int>()), status.at(1).get<std::string>(),
                status.at(2).get<int>()};
    for (const auto& [name, v] : doc.at("vectors").items()) {
      const std::vector<double> x = numbers_of(v);
      r.vectors[name] =
          Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
    }
    for (const auto& [name, m] : doc.at("matrices").items()) {
      const std::vector<double> x = numbers_of(m.at(2));
      if (static_cast<Eigen::Index>(x.size()) !=
          m.at(0).get<Eigen::Index>() * m.at(1).get<Eigen::Index>())
        throw Error("results of a distributed run could not be decoded: matrix '" + name +
                    "' has the wrong number of entries");
      r.matrices[name] = Eigen::Map<const Eigen::MatrixXd>(x.data(), m.at(0).get<Eigen::Index>(),
                                                           m.at(1).get<Eigen::Index>());
    }
    return r;
  } catch (const json::exception& e) {
    throw Error(std::string("results of a distributed run could not be decoded: ") + e.what());
  }
}

}  // namespace quench
