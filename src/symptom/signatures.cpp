// Reads checks/data/error_signatures.json into Signatures, through its typed loader.
#include <algorithm>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text_case.h"
#include "symptom/data_fields.h"

namespace rocm_doctor::symptom {

namespace {

using Json = nlohmann::json;
using data::causes;
using data::strings;
using data::text;

std::optional<Harmless> harmless(const Json& signature) {
  const auto it = signature.find("harmless");
  if (it == signature.end() || it->is_null()) return std::nullopt;
  return Harmless{it->at("why").get<std::string>(), strings(*it, "unless")};
}

// One signature; nlohmann's exceptions become the error of the caller.
Signature read_signature(const Json& entry) {
  Signature signature;
  signature.id = entry.at("id").get<std::string>();
  signature.family = text(entry, "family");
  signature.names = strings(entry, "names");
  signature.message = text(entry, "message");
  signature.pattern = entry.at("pattern").get<std::string>();
  signature.component = entry.at("component").get<std::string>();
  signature.category = text(entry, "category");
  signature.meaning = entry.at("meaning").get<std::string>();
  signature.causes = causes(entry);
  signature.logging = strings(entry, "logging");
  signature.next_step = text(entry, "next_step");
  signature.samples = strings(entry, "samples");
  signature.refines = strings(entry, "refines");
  signature.general = entry.value("general", false);
  signature.harmless = harmless(entry);
  signature.sources = strings(entry, "sources");
  signature.held_out = entry.value("held_out", 0);
  return signature;
}

constexpr std::string_view kErrorSignaturesFile = "error_signatures.json";

// Errors: "error_signatures.json: signatures: error signature N: what is wrong".
tl::expected<std::vector<Signature>, std::string> read_error_signatures_table(data_table::TableReader& reader) {
  return data::entries<Signature>(reader, "signatures", "error signature", read_signature);
}

[[maybe_unused]] const bool kErrorSignaturesLoaderRegistered =
    data_table::register_table_loader<std::vector<Signature>, &read_error_signatures_table>(kErrorSignaturesFile);

}  // namespace

namespace data {

std::vector<std::string> strings(const Json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end()) return {};
  return it->get<std::vector<std::string>>();
}

std::string text(const Json& entry, const char* key) {
  const auto it = entry.find(key);
  return it == entry.end() ? std::string() : it->get<std::string>();
}

std::vector<SignatureCause> causes(const Json& entry) {
  std::vector<SignatureCause> result;
  for (const auto& cause : entry.at("causes")) {
    result.push_back({cause.at("cause").get<std::string>(), text(cause, "tell_apart"), strings(cause, "findings")});
  }
  return result;
}

}  // namespace data

tl::expected<std::vector<Signature>, std::string> parse_signatures(std::string_view json_text) {
  return data_table::read_text<std::vector<Signature>, &read_error_signatures_table>(kErrorSignaturesFile, json_text);
}

// Parsed once per table text (overlays included). A broken catalogue knows no message, as
// before the loader (the tests hold the built-in one valid).
const std::vector<Signature>& signatures() {
  static const std::vector<Signature> kNoSignatures;
  const auto& loaded = data_table::load<std::vector<Signature>, &read_error_signatures_table>(kErrorSignaturesFile);
  return loaded ? *loaded : kNoSignatures;
}

const Signature* find_signature(std::string_view id_or_name) {
  const auto wanted = lower(id_or_name);
  for (const auto& signature : signatures()) {
    if (signature.id == wanted) return &signature;
    for (const auto& name : signature.names) {
      if (lower(name) == wanted) return &signature;
    }
  }
  return nullptr;
}

}  // namespace rocm_doctor::symptom
