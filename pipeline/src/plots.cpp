// Plots through gnuplot (Debian's gnuplot-nox): learning curves of the bootstrap test error
// against a swept parameter, and the bootstrap mean +- sd of predictions at test inputs.
// Without gnuplot the report still completes, with a warning.
//
// gnuplot is started by exec with an argument vector (Boost.Process), never through a shell,
// in the work directory: scripts name their data and output files by generated, index-based
// names relative to it, so no path given by the user appears in a script. Every other
// user-derived string (column headers, engine and pipeline names, parameter names) enters a
// script only through gnuplot_string().
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <boost/process/child.hpp>
#include <boost/process/io.hpp>
#include <boost/process/search_path.hpp>
#include <boost/process/start_dir.hpp>

#include "quench/draw_summary.h"
#include "quench/printable.h"
#include "quench/report.h"
#include "report_internal.h"

namespace quench {
namespace {

namespace fs = std::filesystem;
namespace bp = boost::process;

// A gnuplot single-quoted string literal holding `text`. Inside single quotes gnuplot does no
// backquote command substitution, no @macro expansion and no backslash escapes; the only
// special character is the quote itself, written doubled. Control bytes are replaced by '?'
// because a newline (or CR, or NUL) would end the literal's command and start another.
std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'') {
      out += "''";
    } else if (u < 0x20 || u == 0x7f) {
      out += '?';
    } else {
      out += c;
    }
  }
  return out + "'";
}

/// Runs gnuplot scripts in a work directory whose files all have generated names.
class Gnuplot {
 public:
  Gnuplot(fs::path executable, fs::path work)
      : exe_(std::move(executable)), work_(std::move(work)) {}

  /// Writes `data` to a new work file; returns its name as a script literal.
  std::string data_file(const std::string& data) {
    const std::string name = "data-" + std::to_string(next_++) + ".dat";
    write_file_atomically((work_ / name).string(), data);
    return gnuplot_string(name);
  }

  /// Renders `script` into `png` (through a work file renamed at the end) with a pngcairo
  /// terminal of the given size; records the plot or a warning in `files`.
  void render(const std::string& script, const fs::path& png, ReportFiles& files, int width = 900,
              int height = 600, int font_size = 11) {
    const std::string stem = "plot-" + std::to_string(next_++);
    std::ostringstream text;
    text << "set terminal pngcairo size " << width << "," << height << " noenhanced font ',"
         << font_size << "'\nset output " << gnuplot_string(stem + ".png") << "\n"
         << script;
    write_file_atomically((work_ / (stem + ".gp")).string(), text.str());
    std::string error = run(stem + ".gp");
    if (error.empty() && !fs::exists(work_ / (stem + ".png"))) error = "no image written";
    if (error.empty()) {
      fs::rename(work_ / (stem + ".png"), png);
      files.plots.push_back(png.string());
    } else {
      files.warnings.push_back("gnuplot failed for " + png.string() + ": " + error);
    }
  }

 private:
  /// Runs gnuplot on `script` (a file in the work directory); "" on success, else the reason
  /// (gnuplot's last message line, escaped for echoing).
  std::string run(const std::string& script) const {
    const fs::path errors = work_ / "gnuplot.err";
    try {
      bp::child child(exe_.string(), script, bp::start_dir = work_.string(),
                      (bp::std_in < bp::null), (bp::std_out > bp::null),
                      (bp::std_err > errors.string()));
      child.wait();
      if (child.exit_code() == 0) return {};
    } catch (const bp::process_error& e) {
      return printable(e.what());
    }
    std::string last = "exit status not 0";
    std::ifstream in(errors);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) last = printable(line);
    return last;
  }

  fs::path exe_;
  fs::path work_;
  int next_ = 0;
};

struct CurvePoint {
  double x, y, err;
};

void learning_curves(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                     ReportFiles& files) {
  std::set<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.sweep) keys.insert(k);
  if (keys.size() != 1) return;  // a curve needs exactly one swept parameter
  const std::string key = *keys.begin();
  for (const char* quantity :
       {"test_error_square", "test_error_eps_insensitive", "bootstrap_error"}) {
    std::map<std::string, std::vector<CurvePoint>> curves;
    for (const auto& r : runs) {
      auto it = r.scalars.find(quantity);
      if (it == r.scalars.end() || !r.sweep.count(key)) continue;
      auto se = r.scalars.find(std::string(quantity) + "_stderr");
      curves[r.engine].push_back(
          {r.sweep.at(key), it->second, se == r.scalars.end() ? 0.0 : se->second});
    }
    if (curves.empty()) continue;
    std::ostringstream plot;
    plot << "set xlabel " << gnuplot_string(key) << "\nset ylabel '" << quantity
         << "'\nset grid\nset key top right\n"
         << "set title 'bootstrap " << quantity << " (000 eq 21)'\nplot ";
    std::size_t index = 0;
    for (const auto& [engine, points] : curves) {
      std::string data;
      for (const auto& p : points)
        data += format_number(p.x) + " " + format_number(p.y) + " " + format_number(p.err) + "\n";
      plot << (index++ ? ", " : "") << gnuplot.data_file(data)
           << " using 1:2:3 with yerrorlines pointtype 7 title " << gnuplot_string(engine);
    }
    plot << "\n";
    const fs::path png = dir / (std::string("learning_curve_") + quantity + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

void prediction_plots(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                      ReportFiles& files) {
  for (const auto& r : runs) {
    auto mean = r.vectors.find("prediction_mean");
    auto var = r.vectors.find("prediction_variance");
    if (mean == r.vectors.end() || var == r.vectors.end()) continue;
    std::string data;
    for (Eigen::Index i = 0; i < mean->second.size(); ++i)
      data += std::to_string(i + 1) + " " + format_number(mean->second(i)) + " " +
              format_number(std::sqrt(std::max(var->second(i), 0.0))) + "\n";
    const std::string label = run_label(r);
    std::ostringstream plot;
    plot << "set xlabel 'test input'\nset ylabel 'bootstrap prediction'\nset grid\n"
         << "set xrange [0:" << mean->second.size() + 1 << "]\n"
         << "set title " << gnuplot_string(label + ": bootstrap mean +- sd of the prediction")
         << "\nplot " << gnuplot.data_file(data)
         << " using 1:2:3 with yerrorbars pointtype 7 title 'mean +- sd'\n";
    const fs::path png = dir / ("prediction_" + label + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

// Engines of the same sweep point that all predict at the test inputs (an analytical bootstrap
// and its Monte-Carlo reference, 000 Fig. 2): their means +- sd side by side in one figure,
// slightly offset along the test-input axis.
void prediction_comparison_plots(const std::vector<Results>& runs, const fs::path& dir,
                                 Gnuplot& gnuplot, ReportFiles& files) {
  std::map<std::map<std::string, double>, std::vector<const Results*>> by_point;
  for (const auto& r : runs)
    if (r.vectors.count("prediction_mean") && r.vectors.count("prediction_variance"))
      by_point[r.sweep].push_back(&r);
  for (const auto& [point, group] : by_point) {
    if (group.size() < 2) continue;
    const std::string suffix = run_label(*group.front()).substr(group.front()->engine.size());
    std::ostringstream plot;
    plot << "set xlabel 'test input'\nset ylabel 'bootstrap prediction'\nset grid\n"
         << "set key top right\nset title "
         << gnuplot_string("bootstrap mean +- sd of the prediction" +
                           (suffix.empty() ? std::string() : " (" + suffix.substr(2) + ")"))
         << "\nplot ";
    const double width = 0.6 / static_cast<double>(group.size());
    for (std::size_t e = 0; e < group.size(); ++e) {
      const Eigen::VectorXd& mean = group[e]->vectors.at("prediction_mean");
      const Eigen::VectorXd& var = group[e]->vectors.at("prediction_variance");
      const double offset = (static_cast<double>(e) - 0.5 * (group.size() - 1.0)) * width;
      std::string data;
      for (Eigen::Index i = 0; i < mean.size(); ++i)
        data += format_number(static_cast<double>(i + 1) + offset) + " " + format_number(mean(i)) +
                " " + format_number(std::sqrt(std::max(var(i), 0.0))) + "\n";
      plot << (e ? ", " : "") << gnuplot.data_file(data)
           << " using 1:2:3 with yerrorbars pointtype 7 pointsize 0.6 title "
           << gnuplot_string(group[e]->engine);
    }
    plot << "\n";
    gnuplot.render(plot.str(), dir / ("prediction_comparison" + suffix + ".png"), files);
  }
}

// Posterior samplers (wbb, bayesian_lasso_gibbs): kernel densities of every coefficient of
// `posterior_draws` (one panel per coefficient, one curve per run with the same number of
// coefficients, at most 16), and a fit with its +-2 sd band (`fit`, `fit_lower`, `fit_upper`).
void posterior_plots(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                     ReportFiles& files) {
  std::map<Eigen::Index, std::vector<const Results*>> groups;
  for (const auto& r : runs) {
    auto it = r.matrices.find("posterior_draws");
    if (it != r.matrices.end() && it->second.cols() <= 16 && it->second.rows() > 1)
      groups[it->second.cols()].push_back(&r);
  }
  for (const auto& [p, group] : groups) {
    std::vector<std::string> names(static_cast<std::size_t>(p));
    for (Eigen::Index j = 0; j < p; ++j) names[j] = "coefficient " + std::to_string(j + 1);
    if (auto c = group[0]->info.find("coefficients"); c != group[0]->info.end()) {
      std::stringstream list(c->second);
      std::string name;
      for (std::size_t j = 0; std::getline(list, name, ',') && j < names.size(); ++j)
        names[j] = name;
    }
    const int cols = p <= 4 ? static_cast<int>(p) : 4;
    const int rows = static_cast<int>((p + cols - 1) / cols);
    std::ostringstream plot;
    plot << "set multiplot layout " << rows << "," << cols << "\nset grid\n";
    for (Eigen::Index j = 0; j < p; ++j) {
      double lo = 1e300, hi = -1e300;
      for (const Results* r : group) {
        lo = std::min(lo, r->matrices.at("posterior_draws").col(j).minCoeff());
        hi = std::max(hi, r->matrices.at("posterior_draws").col(j).maxCoeff());
      }
      const double pad = 0.05 * (hi - lo) + 1e-12;
      Eigen::VectorXd grid = Eigen::VectorXd::LinSpaced(200, lo - pad, hi + pad);
      plot << "set title " << gnuplot_string(names[j]) << "\nplot ";
      for (std::size_t k = 0; k < group.size(); ++k) {
        const Eigen::VectorXd f =
            kernel_density(group[k]->matrices.at("posterior_draws").col(j), grid);
        std::string data;
        for (Eigen::Index g = 0; g < grid.size(); ++g)
          data += format_number(grid(g)) + " " + format_number(f(g)) + "\n";
        plot << (k ? ", " : "") << gnuplot.data_file(data) << " using 1:2 with lines lw 2 title "
             << gnuplot_string(group[k]->engine);
      }
      plot << "\n";
    }
    plot << "unset multiplot\n";
    const fs::path png = dir / ("posterior_densities_p" + std::to_string(p) + ".png");
    gnuplot.render(plot.str(), png, files, 360 * cols, 280 * rows, 9);
  }
  for (const auto& r : runs) {
    auto fit = r.vectors.find("fit");
    if (fit == r.vectors.end() || !r.vectors.count("fit_lower") || !r.vectors.count("fit_upper"))
      continue;
    const Eigen::VectorXd &lo = r.vectors.at("fit_lower"), &up = r.vectors.at("fit_upper");
    std::string data;
    for (Eigen::Index i = 0; i < fit->second.size(); ++i)
      data += std::to_string(i + 1) + " " + format_number(fit->second(i)) + " " +
              format_number(lo(i)) + " " + format_number(up(i)) + "\n";
    const std::string label = run_label(r);
    std::ostringstream plot;
    plot << "set xlabel 'i'\nset grid\nset title "
         << gnuplot_string(label + ": fit and +-2 posterior sd") << "\nplot "
         << gnuplot.data_file(data)
         << " using 1:3:4 with filledcurves fc rgb '#b0c4ff' title '+-2 sd', '' using 1:2 "
            "with lines lw 2 lc rgb 'red' title 'fit'\n";
    const fs::path png = dir / ("fit_band_" + label + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

std::string short_number(double x) {
  std::ostringstream out;
  out << std::setprecision(3) << x;
  return out.str();
}

// Classifiers with a `reliability` matrix (bins x [mean confidence, accuracy, count]): the
// reliability diagram, accuracy against confidence per non-empty bin beside the diagonal of
// perfect calibration (002 vboot; the size-weighted gap is the expected calibration error).
void reliability_plots(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                       ReportFiles& files) {
  for (const auto& r : runs) {
    auto it = r.matrices.find("reliability");
    if (it == r.matrices.end() || it->second.cols() != 3) continue;
    std::string data;
    for (Eigen::Index b = 0; b < it->second.rows(); ++b)
      if (it->second(b, 2) > 0)
        data += format_number(it->second(b, 0)) + " " + format_number(it->second(b, 1)) + "\n";
    const std::string label = run_label(r);
    auto ece = r.scalars.find("expected_calibration_error");
    std::ostringstream plot;
    plot << "set xlabel 'mean confidence in bin'\nset ylabel 'accuracy in bin'\nset grid\n"
         << "set xrange [0:1]\nset yrange [0:1]\nset size square\nset key top left\n"
         << "set title "
         << gnuplot_string(
                label + ": reliability" +
                (ece == r.scalars.end() ? std::string() : ", ECE " + short_number(ece->second)))
         << "\nplot x with lines dt 2 lc rgb 'grey' title 'perfect calibration', "
         << gnuplot.data_file(data)
         << " using 1:2 with linespoints pointtype 7 lc rgb 'blue' title "
         << gnuplot_string(r.engine) << "\n";
    const fs::path png = dir / ("reliability_" + label + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

// Sampled functions on a 1-D input (002 Fig. 1): `grid_samples` (m x K, one draw per column)
// at the inputs `grid_input` in thin grey, `grid_mean` in black, and the training points
// (`train_input`, `train_target`) when given.
void sampled_function_plots(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                            ReportFiles& files) {
  for (const auto& r : runs) {
    auto x = r.vectors.find("grid_input");
    auto f = r.matrices.find("grid_samples");
    if (x == r.vectors.end() || f == r.matrices.end() || f->second.rows() != x->second.size())
      continue;
    const std::string label = run_label(r);
    std::string data;
    for (Eigen::Index i = 0; i < x->second.size(); ++i) {
      data += format_number(x->second(i));
      for (Eigen::Index k = 0; k < f->second.cols(); ++k)
        data += " " + format_number(f->second(i, k));
      if (auto m = r.vectors.find("grid_mean"); m != r.vectors.end())
        data += " " + format_number(m->second(i));
      data += "\n";
    }
    const std::string file = gnuplot.data_file(data);
    std::ostringstream plot;
    plot << "set xlabel 'x'\nset ylabel "
         << gnuplot_string(r.info.count("grid_quantity") ? r.info.at("grid_quantity") : "f(x)")
         << "\nset grid\nset key outside right\nset title "
         << gnuplot_string(label + ": " + std::to_string(f->second.cols()) + " sampled functions")
         << "\nplot for [k=2:" << f->second.cols() + 1 << "] " << file
         << " using 1:k with lines lc rgb '#b0b0b0' notitle";
    if (r.vectors.count("grid_mean"))
      plot << ", " << file << " using 1:" << f->second.cols() + 2
           << " with lines lw 3 lc rgb 'black' title 'mean'";
    auto tx = r.vectors.find("train_input"), ty = r.vectors.find("train_target");
    if (tx != r.vectors.end() && ty != r.vectors.end() && tx->second.size() == ty->second.size()) {
      std::string points;
      for (Eigen::Index i = 0; i < tx->second.size(); ++i)
        points += format_number(tx->second(i)) + " " + format_number(ty->second(i)) + "\n";
      plot << ", " << gnuplot.data_file(points)
           << " using 1:2 with points pointtype 6 lc rgb 'red' title 'training data'";
    }
    plot << "\n";
    const fs::path png = dir / ("sampled_functions_" + label + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

// The posterior of the test accuracy (004 Fig. 5): a histogram of `test_accuracy_draws` with
// the central interval (`test_accuracy_lower`, `test_accuracy_upper`) as dashed lines.
void accuracy_posterior_plots(const std::vector<Results>& runs, const fs::path& dir,
                              Gnuplot& gnuplot, ReportFiles& files) {
  for (const auto& r : runs) {
    auto a = r.vectors.find("test_accuracy_draws");
    if (a == r.vectors.end() || a->second.size() < 2) continue;
    const Eigen::VectorXd& acc = a->second;
    const std::string label = run_label(r);
    std::string data;
    for (Eigen::Index t = 0; t < acc.size(); ++t) data += format_number(acc(t)) + "\n";
    // Freedman-Diaconis-like width: range / (2 T^(1/3)), at least one test point's worth.
    const double range = acc.maxCoeff() - acc.minCoeff();
    const double width = std::max(range / (2.0 * std::cbrt(static_cast<double>(acc.size()))), 1e-6);
    std::ostringstream plot;
    plot << "set xlabel 'test accuracy'\nset ylabel 'draws'\nset grid\nset title "
         << gnuplot_string(label + ": posterior of the test accuracy (" +
                           std::to_string(acc.size()) + " draws)")
         << "\nset style fill solid 0.5\nw = " << format_number(width)
         << "\nbin(x) = w * floor(x / w) + w / 2\nset boxwidth w\nset xrange ["
         << format_number(acc.minCoeff() - 2 * width) << ":"
         << format_number(acc.maxCoeff() + 2 * width)
         << "]\nset yrange [0:*]\nset offsets 0, 0, graph 0.15, 0\nset key top left\n";
    for (const char* bound : {"test_accuracy_lower", "test_accuracy_upper"})
      if (auto b = r.scalars.find(bound); b != r.scalars.end())
        plot << "set arrow from " << format_number(b->second) << ", graph 0 to "
             << format_number(b->second) << ", graph 1 nohead dt 2 lw 2 lc rgb 'black'\n";
    plot << "set label 1 '95 % interval (dashed)' at graph 0.02, graph 0.85\n";
    plot << "plot " << gnuplot.data_file(data)
         << " using (bin($1)):(1.0) smooth freq with boxes lc rgb '#4060c0' title 'draws'\n";
    const fs::path png = dir / ("accuracy_posterior_" + label + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

// Classifiers swept over one parameter (001 Fig. 2): per engine with an `exact_loo_error`, the
// `test_error` (full line), the built-in `loo_error` (dashed) and `exact_loo_error`
// (dash-dotted) against the swept parameter, one panel per engine.
void classifier_error_plots(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                            ReportFiles& files) {
  std::set<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.sweep) keys.insert(k);
  if (keys.size() != 1) return;
  const std::string key = *keys.begin();
  std::map<std::string, std::map<double, std::string>> rows;  // engine -> x -> data line
  double lo = 1e300, hi = -1e300;
  for (const auto& r : runs) {
    if (!r.sweep.count(key) || !r.scalars.count("exact_loo_error")) continue;
    const double x = r.sweep.at(key);
    std::string line = format_number(x);
    for (const char* q : {"test_error", "loo_error", "exact_loo_error"})
      line += " " + (r.scalars.count(q) ? format_number(r.scalars.at(q)) : std::string("NaN"));
    rows[r.engine][x] = line + "\n";
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (rows.empty()) return;
  const std::size_t columns = rows.size() > 1 ? 2 : 1;
  std::ostringstream plot;
  plot << "set datafile missing 'NaN'\nset grid\nset key top right\nset xlabel "
       << gnuplot_string(key) << "\nset ylabel 'error'\n"
       << (lo > 0 && hi >= 8 * lo ? "set logscale x\n" : "") << "set multiplot layout "
       << (rows.size() + columns - 1) / columns << "," << columns << "\n";
  for (const auto& [engine, points] : rows) {
    std::string data;
    for (const auto& [x, line] : points) data += line;
    const std::string file = gnuplot.data_file(data);
    plot << "set title " << gnuplot_string(engine + ": test error and leave-one-out estimates")
         << "\nplot " << file << " using 1:2 with linespoints dt 1 pt 7 title 'test error', "
         << file << " using 1:3 with linespoints dt 2 pt 6 title 'built-in LOO', " << file
         << " using 1:4 with linespoints dt 4 pt 4 title 'exact LOO'\n";
  }
  plot << "unset multiplot\n";
  const fs::path png = dir / ("classifier_errors_" + key + ".png");
  gnuplot.render(plot.str(), png, files);
}

// Classifiers with per-point `alpha` and `stability` (t_i <h_i>) (001 Fig. 3): for every sweep
// point with two or more such runs, alpha (left) and stability (right) of each engine, the
// points sorted by the last engine's alpha and every solution rescaled to the last engine's
// squared weight length sum_i alpha_i t_i <h_i> (= alpha' T C T alpha).
void embedding_plots(const std::vector<Results>& runs, const fs::path& dir, Gnuplot& gnuplot,
                     ReportFiles& files) {
  std::map<std::string, std::vector<const Results*>> groups;  // sweep point -> runs
  for (const auto& r : runs) {
    auto a = r.vectors.find("alpha"), s = r.vectors.find("stability");
    if (a == r.vectors.end() || s == r.vectors.end() || a->second.size() != s->second.size())
      continue;
    std::string point = "embedding";
    for (const auto& [k, v] : r.sweep) point += "_" + k + "-" + short_number(v);
    groups[point].push_back(&r);
  }
  for (const auto& [point, group] : groups) {
    const Eigen::VectorXd& ref = group.back()->vectors.at("alpha");
    const double ref_length = ref.dot(group.back()->vectors.at("stability"));
    bool usable = group.size() > 1 && ref_length > 0;
    std::vector<double> scale;
    for (const Results* r : group) {
      const Eigen::VectorXd& a = r->vectors.at("alpha");
      const double length = a.size() == ref.size() ? a.dot(r->vectors.at("stability")) : 0.0;
      usable = usable && length > 0;
      scale.push_back(length > 0 ? std::sqrt(ref_length / length) : 0.0);
    }
    if (!usable) continue;
    std::vector<Eigen::Index> order(static_cast<std::size_t>(ref.size()));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<Eigen::Index>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return ref(a) < ref(b); });
    std::string data;
    for (std::size_t k = 0; k < order.size(); ++k) {
      data += std::to_string(k + 1);
      for (std::size_t g = 0; g < group.size(); ++g)
        data += " " + format_number(scale[g] * group[g]->vectors.at("alpha")(order[k])) + " " +
                format_number(scale[g] * group[g]->vectors.at("stability")(order[k]));
      data += "\n";
    }
    const std::string file = gnuplot.data_file(data);
    std::ostringstream plot;
    plot << "set grid\nset key top left\nset xlabel "
         << gnuplot_string("training point (sorted by " + group.back()->engine + " alpha)")
         << "\nset multiplot layout 1,2\n";
    for (int panel = 0; panel < 2; ++panel) {
      plot << "set ylabel '" << (panel == 0 ? "alpha_i" : "t_i <h_i>") << "'\nset title "
           << gnuplot_string(std::string(panel == 0 ? "embedding strengths" : "stabilities") +
                             " (rescaled to " + group.back()->engine + ")")
           << "\nplot ";
      for (std::size_t g = 0; g < group.size(); ++g)
        plot << (g ? ", " : "") << file << " using 1:" << 2 + 2 * g + panel << " with points pt "
             << (g + 1 == group.size() ? 8
                 : g % 2               ? 6
                                       : 3)
             << " title " << gnuplot_string(group[g]->engine);
      plot << "\n";
    }
    plot << "unset multiplot\n";
    const fs::path png = dir / (point + ".png");
    gnuplot.render(plot.str(), png, files);
  }
}

}  // namespace

void write_plots(const std::vector<Results>& runs, const std::string& directory,
                 ReportFiles& files) {
  const auto executable = bp::search_path("gnuplot");
  if (executable.empty()) {
    files.warnings.push_back("gnuplot not found: plots skipped (apt-get install gnuplot-nox)");
    return;
  }
  const fs::path dir = fs::path(directory) / "plots";
  const fs::path work = fs::path(directory) / ".plot-work";
  fs::create_directories(dir);
  fs::create_directories(work);
  Gnuplot gnuplot(executable.string(), work);
  learning_curves(runs, dir, gnuplot, files);
  prediction_plots(runs, dir, gnuplot, files);
  prediction_comparison_plots(runs, dir, gnuplot, files);
  posterior_plots(runs, dir, gnuplot, files);
  accuracy_posterior_plots(runs, dir, gnuplot, files);
  reliability_plots(runs, dir, gnuplot, files);
  sampled_function_plots(runs, dir, gnuplot, files);
  classifier_error_plots(runs, dir, gnuplot, files);
  embedding_plots(runs, dir, gnuplot, files);
  std::error_code ignored;
  fs::remove_all(work, ignored);
}

}  // namespace quench
