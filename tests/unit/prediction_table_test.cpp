// predictions_csv: the "label" column as class names (two classes and C > 2 classes) and the
// per-class probability columns headed by class name.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quench/prediction_table.h"

namespace quench::prediction_table_test {
namespace {

Predictions predictions(const std::vector<std::string>& columns, const Eigen::MatrixXd& values) {
  Predictions p;
  for (std::size_t j = 0; j < columns.size(); ++j)
    p.add(columns[j], values.col(static_cast<Eigen::Index>(j)));
  return p;
}

TEST(PredictionTable, ManyClassesNameTheLabelAndTheProbabilityColumns) {
  ModelCard card;
  card.target_name = "animal";
  card.class_names = {"cat", "dog", "eel, the \"long\" one"};
  Eigen::MatrixXd values(2, 5);
  values << 0.5, 0.25, 0.25, 0, 0.5,  //
      0.125, 0.125, 0.75, 2, 0.75;
  const Predictions p =
      predictions({"probability.0", "probability.1", "probability.2", "label", "latent.1"}, values);
  PredictionInputs in;
  in.has_target = true;
  in.target = {"cat", "eel, the \"long\" one"};
  EXPECT_EQ(predictions_csv(p, card, in),
            "animal,probability.cat,probability.dog,\"probability.eel, the \"\"long\"\" one\","
            "label,latent.1\n"
            "cat,0.5,0.25,0.25,cat,0.5\n"
            "\"eel, the \"\"long\"\" one\",0.125,0.125,0.75,\"eel, the \"\"long\"\" one\",0.75\n");
  // Without the target column; a label that is no class index stays a number, and so does a
  // probability column whose index is no class.
  const Predictions q = predictions({"probability.0", "probability.7", "label"}, values);
  EXPECT_EQ(predictions_csv(q, card, PredictionInputs{}),
            "probability.cat,probability.7,label\n0.5,0.25,0.25\n0.125,0.125,0.75\n");
  const Predictions r = predictions({"label"}, Eigen::MatrixXd(Eigen::Vector2d(1, 3)));
  EXPECT_EQ(predictions_csv(r, card, PredictionInputs{}), "label\ndog\n3\n");
}

TEST(PredictionTable, TwoClassesKeepTheirMapping) {
  ModelCard card;
  card.target_name = "y";
  card.class_names = {"B", "M"};
  Eigen::MatrixXd values(3, 2);
  values << 0.25, -1,  //
      0.75, 1,         //
      0.5, 0;
  const Predictions p = predictions({"probability.1", "label"}, values);
  // -1/+1 and 0/1 labels alike; a multi-class model's probability.<c> of C = 2 classes named.
  EXPECT_EQ(predictions_csv(p, card, PredictionInputs{}),
            "probability.M,label\n0.25,B\n0.75,M\n0.5,B\n");
  card.class_names.clear();  // a regression or unnamed model: numbers
  EXPECT_EQ(predictions_csv(p, card, PredictionInputs{}),
            "probability.1,label\n0.25,-1\n0.75,1\n0.5,0\n");
}

}  // namespace
}  // namespace quench::prediction_table_test
