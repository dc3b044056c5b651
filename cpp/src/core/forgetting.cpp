#include "sublinear/core/forgetting.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

Forgetting::Forgetting(const Json& options, double alarmKeeps)
    : threshold_(readOption(option_groups::forgettingSpec(), Json::object(), "threshold")),
      drift_(readOption(option_groups::forgettingSpec(), Json::object(), "drift")),
      margin_(readOption(option_groups::forgettingSpec(), Json::object(), "margin")),
      warmUp_(readOption(option_groups::forgettingSpec(), Json::object(), "warmUp")),
      likelihoodThreshold_(readOption(option_groups::forgettingSpec(), Json::object(), "likelihoodThreshold")),
      dropRatio_(readOption(option_groups::forgettingSpec(), Json::object(), "dropRatio")),
      likelihoodMargin_(readOption(option_groups::forgettingSpec(), Json::object(), "likelihoodMargin")),
      alarmKeeps_(alarmKeeps) {
  if (!isGiven(options, "forgetting")) return;
  const Json& value = options["forgetting"];
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    if (name == "auto") return;
    if (name == "none") {
      kind_ = Kind::None;
      return;
    }
    fail(ErrorCode::InvalidArgument, "option 'forgetting' must be 'auto', 'none', { discount } or { window }, got '" + name + "'");
  }
  require(value.is_object(), ErrorCode::InvalidArgument, "option 'forgetting' must be 'auto', 'none', { discount } or { window }");
  optionTable("nested", "policy.forgetting").check(value);
  const OptionGroup& spec = option_groups::forgettingSpec();
  // Any of the detector's settings given: all of them read (the others at their defaults).
  static const char* const kDetectorKeys[] = {"threshold", "drift", "margin", "warmUp", "likelihoodThreshold",
                                               "dropRatio", "likelihoodMargin", "alarmKeeps"};
  if (std::any_of(std::begin(kDetectorKeys), std::end(kDetectorKeys), [&](const char* key) { return isGiven(value, key); })) {
    threshold_ = readOption(spec, value, "threshold");
    drift_ = readOption(spec, value, "drift");
    margin_ = readOption(spec, value, "margin");
    warmUp_ = readOption(spec, value, "warmUp");
    likelihoodThreshold_ = readOption(spec, value, "likelihoodThreshold");
    dropRatio_ = readOption(spec, value, "dropRatio");
    likelihoodMargin_ = readOption(spec, value, "likelihoodMargin");
    if (isGiven(value, "alarmKeeps")) alarmKeeps_ = readOption(spec, value, "alarmKeeps");
    require(!isGiven(value, "discount") && !isGiven(value, "window"), ErrorCode::InvalidArgument,
            "option 'forgetting': the detector's settings go with 'auto' only");
    return;
  }
  const bool discount = isGiven(value, "discount"), window = isGiven(value, "window");
  require(discount != window, ErrorCode::InvalidArgument, "option 'forgetting' takes exactly one of 'discount' and 'window'");
  if (discount) {
    kind_ = Kind::Discount;
    discount_ = readOption(option_groups::forgettingSpec(), value, "discount");
  } else {
    kind_ = Kind::Window;
    window_ = static_cast<std::size_t>(readIntegerOption(option_groups::forgettingSpec(), value, "window"));
  }
}

const char* Forgetting::kindName() const {
  switch (kind_) {
    case Kind::None: return "none";
    case Kind::Auto: return "auto";
    case Kind::Discount: return "discount";
    case Kind::Window: return "window";
  }
  return "auto";
}

bool Forgetting::detect(double standardisedError) {
  if (kind_ != Kind::Auto || !std::isfinite(standardisedError)) return false;
  const double z = std::clamp(standardisedError, -kClip, kClip);
  statistic_ = std::max(0.0, statistic_ - z - drift_);
  if (statistic_ <= threshold_) return false;
  statistic_ = 0.0;
  return true;
}

bool Forgetting::detectLikelihoodRatio(double increment) {
  if (kind_ != Kind::Auto || !std::isfinite(increment)) return false;
  statistic_ = std::max(0.0, statistic_ + increment);
  if (statistic_ <= likelihoodThreshold_) return false;
  statistic_ = 0.0;
  return true;
}

bool Forgetting::forgets(double factor) {
  require(std::isfinite(factor) && factor >= 0.0 && factor <= 1.0, ErrorCode::InvalidArgument,
          "forget: factor must be a number in [0, 1]");
  return factor < 1.0;
}

void Forgetting::recordChange(std::uint64_t update, bool detected) {
  if (detected) {
    ++detected_;
  } else {
    ++forgets_;
  }
  changed_ = true;
  lastChange_ = update;
  statistic_ = 0.0;
}

Json Forgetting::stats(double effectiveMemory) const {
  Json out{{"kind", kindName()},
           {"effectiveMemory", effectiveMemory},
           {"changes", detected_},
           {"forgets", forgets_},
           {"lastChange", changed_ ? Json(lastChange_) : Json(nullptr)}};
  if (kind_ == Kind::Discount) out["discount"] = discount_;
  if (kind_ == Kind::Window) out["window"] = window_;
  if (kind_ == Kind::Auto) out["detector"] = {{"statistic", statistic_}, {"threshold", threshold_}};
  return out;
}

void Forgetting::save(StateWriter& out) const {
  out.f64(statistic_);
  out.u64(detected_);
  out.u64(forgets_);
  out.u8(changed_ ? 1 : 0);
  out.u64(lastChange_);
}

void Forgetting::load(StateReader& in) {
  const double statistic = in.f64();
  in.check(std::isfinite(statistic) && statistic >= 0.0 && statistic <= std::max(threshold_, likelihoodThreshold_),
           "forgetting state's detector is out of range");
  detected_ = in.u64();
  forgets_ = in.u64();
  const std::uint8_t changed = in.u8();
  in.check(changed <= 1, "forgetting state's flag is not 0 or 1");
  lastChange_ = in.u64();
  in.check(changed == 1 || (lastChange_ == 0 && detected_ == 0 && forgets_ == 0), "forgetting state counts changes it has not recorded");
  statistic_ = statistic;
  changed_ = changed == 1;
}

}  // namespace sublinear
