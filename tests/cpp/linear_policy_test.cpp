#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "linear_test_problem.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "test_support.hpp"

using sublinear::testing::codeOf;

using sublinear::Id;
using sublinear::Error;
using sublinear::ErrorCode;
using sublinear::Json;
using sublinear::LinearPolicy;
using sublinear::makeLinearPolicy;
using sublinear::Vector;
using sublinear::testing::averageOver;
using sublinear::testing::GaussianProblem;
using sublinear::testing::takesOption;

namespace linear_policy_test {

// Every policy type with an exact index, so the suite runs before any approximate index exists.
Json optionsFor(const std::string& type, std::uint64_t seed = 1) {
  Json options{{"type", type}, {"seed", seed}, {"horizon", 2000}};
  if (takesOption("linear-policy", type, "index")) options["index"] = Json{{"type", "exact"}};
  return options;
}

std::string messageOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, LearnsOnASmallGaussianProblem) {
  const int d = 5;
  GaussianProblem problem(d, 42);
  auto policy = makeLinearPolicy(d, optionsFor(GetParam()));
  problem.addArms(*policy, 100);
  const auto regrets = problem.run(*policy, 2000);
  // Default options: the last quarter costs a small fraction of uniform play's regret.
  double meanOfArms = 0.0;
  for (const auto& [id, x] : problem.arms) meanOfArms += problem.mean(id) / static_cast<double>(problem.arms.size());
  const double uniform = problem.bestMean() - meanOfArms;
  const double late = averageOver(regrets, 1500, 2000);
  EXPECT_LT(late, 0.1 * uniform) << GetParam() << ": uniform play " << uniform << ", late " << late;
  EXPECT_EQ(policy->type(), GetParam());
  EXPECT_EQ(policy->dim(), d);
  EXPECT_EQ(policy->armCount(), 100U);
  EXPECT_GE(policy->stats()["innerProducts"].get<double>(), 1.0);
}

TEST_P(EveryPolicy, ThetaApproachesThetaStar) {
  // Arms spread in every direction and plenty of rounds: the ridge estimate converges.
  const int d = 4;
  GaussianProblem problem(d, 7, 0.3);
  auto policy = makeLinearPolicy(d, optionsFor(GetParam(), 3));
  problem.addArms(*policy, 60);
  problem.run(*policy, 3000);
  const Vector theta = policy->theta();
  ASSERT_EQ(theta.size(), d);
  // Projected on the best arm's direction the estimate must be close; every policy plays that
  // direction most often.
  Id best = 0;
  double bestMean = -1e300;
  for (const auto& [id, x] : problem.arms) {
    if (x.dot(problem.thetaStar) > bestMean) {
      bestMean = x.dot(problem.thetaStar);
      best = id;
    }
  }
  const Vector& x = problem.arms.at(best);
  EXPECT_NEAR(x.dot(theta), x.dot(problem.thetaStar), 0.1) << GetParam();
  EXPECT_LT((theta - problem.thetaStar).norm(), 0.5 * problem.thetaStar.norm() + 0.2) << GetParam();
}

TEST_P(EveryPolicy, ReportsErrorsAndStaysUnchanged) {
  const int d = 3;
  auto policy = makeLinearPolicy(d, optionsFor(GetParam()));
  auto twin = makeLinearPolicy(d, optionsFor(GetParam()));
  EXPECT_EQ(codeOf([&] { policy->select(); }), ErrorCode::Empty);
  EXPECT_EQ(codeOf([&] { policy->update(0, 1.0); }), ErrorCode::UnknownId);

  GaussianProblem problem(d, 5);
  GaussianProblem twinProblem(d, 5);
  problem.addArms(*policy, 20);
  twinProblem.addArms(*twin, 20);
  for (int t = 0; t < 30; ++t) problem.play(*policy), twinProblem.play(*twin);

  const Id unknown = 999;
  const double features[] = {1, 2, 3, 4, 5, 6};
  const double nanFeatures[] = {1, NAN, 3};
  const Id two[] = {100, 100};
  const Id existing[] = {3};
  EXPECT_EQ(codeOf([&] { policy->update(unknown, 1.0); }), ErrorCode::UnknownId);
  EXPECT_EQ(codeOf([&] { policy->update(0, NAN); }), ErrorCode::NonFinite);
  EXPECT_EQ(codeOf([&] { policy->update(0, INFINITY); }), ErrorCode::NonFinite);
  EXPECT_EQ(codeOf([&] { policy->addArms(two, 2, features, 6); }), ErrorCode::DuplicateId);
  EXPECT_EQ(codeOf([&] { policy->addArms(existing, 1, features, 3); }), ErrorCode::DuplicateId);
  EXPECT_EQ(codeOf([&] { policy->addArms(two, 1, features, 6); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(codeOf([&] { policy->addArms(two, 1, nanFeatures, 3); }), ErrorCode::NonFinite);
  EXPECT_EQ(codeOf([&] { policy->removeArms(&unknown, 1); }), ErrorCode::UnknownId);
  const Id mixed[] = {1, unknown};
  EXPECT_EQ(codeOf([&] { policy->removeArms(mixed, 2); }), ErrorCode::UnknownId);
  EXPECT_TRUE(policy->hasArm(1));
  EXPECT_EQ(policy->armCount(), 20U);

  // After the errors the policy continues exactly as its twin that saw none.
  EXPECT_EQ(policy->theta(), twin->theta());
  for (int t = 0; t < 30; ++t) EXPECT_EQ(problem.play(*policy), twinProblem.play(*twin));
  EXPECT_EQ(policy->theta(), twin->theta());
}

TEST_P(EveryPolicy, SameSeedSameRun) {
  const int d = 4;
  GaussianProblem a(d, 9), b(d, 9);
  auto first = makeLinearPolicy(d, optionsFor(GetParam(), 5));
  auto second = makeLinearPolicy(d, optionsFor(GetParam(), 5));
  a.addArms(*first, 50);
  b.addArms(*second, 50);
  for (int t = 0; t < 200; ++t) {
    ASSERT_EQ(first->select(), second->select());
    a.play(*first);
    b.play(*second);
  }
}

TEST_P(EveryPolicy, RewardsThatNeverVaryKeepThePriorNoiseScale) {
  // A page that rewards clicks sees only zeros before its first click: that says nothing of the
  // noise's scale, and an estimate of 0 would shrink every confidence width to its bias.
  const int d = 4;
  for (const double constant : {0.0, 0.3, 1.0}) {
    GaussianProblem problem(d, 3);
    auto policy = makeLinearPolicy(d, optionsFor(GetParam()));
    problem.addArms(*policy, 200);
    for (int t = 0; t < 20; ++t) policy->update(policy->select(), constant);
    EXPECT_EQ(policy->stats()["noise"].get<double>(), 1.0) << "rewards all " << constant;
    // The first different reward: the estimate follows the data.
    policy->update(policy->select(), constant + 1.0);
    const double noise = policy->stats()["noise"].get<double>();
    EXPECT_GT(noise, 0.0);
    EXPECT_NE(noise, 1.0);
  }
}

TEST_P(EveryPolicy, BadOptionsNameTheOption) {
  for (const char* key : {"lambda", "delta", "noise", "bound", "horizon", "seed"}) {
    Json options = optionsFor(GetParam());
    options[key] = -1;
    const std::string message = messageOf([&] { makeLinearPolicy(3, options); });
    EXPECT_NE(message.find(std::string("'") + key + "'"), std::string::npos) << key << ": " << message;
    EXPECT_EQ(codeOf([&] { makeLinearPolicy(3, options); }), ErrorCode::InvalidArgument);
  }
  Json options = optionsFor(GetParam());
  options["delta"] = 1.5;
  EXPECT_EQ(codeOf([&] { makeLinearPolicy(3, options); }), ErrorCode::InvalidArgument);
  options = optionsFor(GetParam());
  options["lambda"] = "big";
  EXPECT_NE(messageOf([&] { makeLinearPolicy(3, options); }).find("'lambda'"), std::string::npos);
  EXPECT_EQ(codeOf([&] { makeLinearPolicy(0, optionsFor(GetParam())); }), ErrorCode::InvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(LinearPolicies, EveryPolicy, ::testing::ValuesIn(sublinear::linearPolicyTypes()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(LinearPolicyFactory, RejectsUnknownTypesAndIndexes) {
  EXPECT_NE(messageOf([] { makeLinearPolicy(3, Json{{"type", "lin-nope"}}); }).find("'type'"), std::string::npos);
  EXPECT_NE(messageOf([] { makeLinearPolicy(3, Json::object()); }).find("'type'"), std::string::npos);
  EXPECT_EQ(codeOf([] { makeLinearPolicy(3, Json{{"type", "lin-ts"}, {"index", Json{{"type", "no-such-index"}}}}); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { makeLinearPolicy(3, Json{{"type", "lin-ts"}, {"index", 5}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { makeLinearPolicy(3, Json::array()); }), ErrorCode::InvalidArgument);
}
}  // namespace linear_policy_test
