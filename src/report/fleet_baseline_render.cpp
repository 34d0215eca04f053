#include "report/fleet_baseline_render.h"

#include <fmt/format.h>

#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr std::size_t kListShown = 6;  // words of a list the baseline line shows

Attribute attribute_at(std::size_t index) {
  return static_cast<Attribute>(index);
}

// The baseline's value as one line: a long list shows its first words.
std::string baseline_value(Attribute attribute, const std::optional<std::string>& value) {
  auto text = shown_value(value);
  if (attribute != Attribute::firmware || !value) return text;
  const auto words = split_words(text);
  if (words.size() <= kListShown) return text;
  std::vector<std::string> first(words.begin(), words.begin() + kListShown);
  return fmt::format("{} and {} more", join(first, " "), words.size() - kListShown);
}

std::string source_text(const BaselineSource& source) {
  if (source.file.empty()) return "the most common value of each (--baseline auto)";
  return source.host.empty() ? source.file : fmt::format("{} ({})", source.host, source.file);
}

std::string nodes_text(std::size_t count) {
  return fmt::format("{} node{}", count, count == 1 ? "" : "s");
}

std::string verdict(const FleetDrift& drift) {
  const auto differing = drift.differing().count();
  if (differing == 0) return fmt::format("All {} match the baseline.", nodes_text(drift.matching()));
  return fmt::format("{} differ{} from the other {}:", nodes_text(differing), differing == 1 ? "s" : "",
                     drift.matching());
}

// A list as an array of its words, any other value as a string, null when unknown.
OrderedJson value_json(Attribute attribute, const std::optional<std::string>& value) {
  if (!value) return nullptr;
  return is_list_attribute(attribute) ? OrderedJson(list_words(*value)) : OrderedJson(*value);
}

}  // namespace

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string render_baseline_text(const FleetDrift& drift, const BaselineSource& source) {
  std::string out = fmt::format("Baseline: {}\n", source_text(source));
  for (std::size_t i = 0; i < kAttributeCount; ++i)
    out += fmt::format("  {:<20} {}\n", attribute_label(attribute_at(i)),
                       baseline_value(attribute_at(i), drift.baseline()[i]));
  out += "\n" + verdict(drift) + "\n";
  for (const auto& difference : drift.differences()) {
    out += fmt::format("  {:>6}  {}\n          {}\n", difference.nodes.count(),
                       describe_difference(difference.attribute, difference.value,
                                           drift.baseline()[static_cast<std::size_t>(difference.attribute)]),
                       host_list(difference.nodes));
  }
  if (drift.other_differences() > 0)
    out += fmt::format("  and {} differences more (too many distinct values to list)\n", drift.other_differences());
  return out + "\n";
}

std::string render_baseline_markdown(const FleetDrift& drift, const BaselineSource& source) {
  std::string out =
      fmt::format("### Nodes that differ from the baseline\n\nBaseline: {}.\n\n| Attribute | Baseline |\n|---|---|\n",
                  markdown_cell(source_text(source)));
  for (std::size_t i = 0; i < kAttributeCount; ++i)
    out += fmt::format("| {} | {} |\n", attribute_label(attribute_at(i)),
                       markdown_cell(baseline_value(attribute_at(i), drift.baseline()[i])));
  out += "\n" + verdict(drift) + "\n";
  if (drift.differences().empty()) return out + "\n";
  out += "\n| Difference | Nodes | Hosts |\n|---|---|---|\n";
  for (const auto& difference : drift.differences()) {
    out += fmt::format(
        "| {} | {} | {} |\n",
        markdown_cell(describe_difference(difference.attribute, difference.value,
                                          drift.baseline()[static_cast<std::size_t>(difference.attribute)])),
        difference.nodes.count(), markdown_cell(host_list(difference.nodes)));
  }
  if (drift.other_differences() > 0)
    out += fmt::format("\nand {} differences more (too many distinct values to list)\n", drift.other_differences());
  return out + "\n";
}

OrderedJson baseline_to_json(const FleetDrift& drift, const BaselineSource& source) {
  OrderedJson values = OrderedJson::object();
  for (std::size_t i = 0; i < kAttributeCount; ++i)
    values[std::string(attribute_key(attribute_at(i)))] = value_json(attribute_at(i), drift.baseline()[i]);
  OrderedJson differences = OrderedJson::array();
  for (const auto& difference : drift.differences()) {
    const auto& baseline = drift.baseline()[static_cast<std::size_t>(difference.attribute)];
    differences.push_back({{"attribute", attribute_key(difference.attribute)},
                           {"value", value_json(difference.attribute, difference.value)},
                           {"baseline", value_json(difference.attribute, baseline)},
                           {"text", describe_difference(difference.attribute, difference.value, baseline)},
                           {"nodes", difference.nodes.count()},
                           {"hosts", difference.nodes.hosts()}});
  }
  return {{"source", source.file.empty() ? "auto" : "report"},
          {"file", source.file.empty() ? OrderedJson(nullptr) : OrderedJson(source.file)},
          {"host", source.host.empty() ? OrderedJson(nullptr) : OrderedJson(source.host)},
          {"values", values},
          {"nodes_differing", drift.differing().count()},
          {"nodes_matching", drift.matching()},
          {"hosts_differing", drift.differing().hosts()},
          {"differences", differences},
          {"other_differences", drift.other_differences()}};
}

}  // namespace rocm_doctor
