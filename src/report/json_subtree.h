// Builds one JSON value from SAX events (nlohmann::json_sax), for a reader that
// streams a large document and keeps a small part of it whole.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace rocm_doctor {

class JsonSubtree {
 public:
  // The next event opens the value to keep.
  void start() {
    value_ = nullptr;
    open_.clear();
    active_ = true;
  }
  [[nodiscard]] bool active() const { return active_; }
  // The value, once the container it started with closed.
  nlohmann::json take() { return std::move(value_); }

  void key(std::string name) { key_ = std::move(name); }
  void scalar(nlohmann::json value) {
    place(std::move(value));
    if (open_.empty()) active_ = false;  // the kept value was a scalar
  }
  void open(bool is_object) { open_.push_back(&place(is_object ? nlohmann::json::object() : nlohmann::json::array())); }
  void close() {
    open_.pop_back();
    if (open_.empty()) active_ = false;
  }

 private:
  // Where a value arrives: the root, an array's end, or an object's current key (the last wins).
  nlohmann::json& place(nlohmann::json value) {
    if (open_.empty()) {
      value_ = std::move(value);
      return value_;
    }
    nlohmann::json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return parent.back();
    }
    return parent[key_] = std::move(value);
  }

  bool active_ = false;
  nlohmann::json value_;
  std::vector<nlohmann::json*> open_;  // the containers being filled, innermost last
  std::string key_;
};

}  // namespace rocm_doctor
