#include "common/json_input.h"

#include "common/input_file.h"

namespace npu {

size_t json_too_deep_at(const std::string& text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i; // the escaped character
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > static_cast<size_t>(kMaxInputDepth))
        return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

nlohmann::ordered_json parse_json_input(const std::string& text, const std::string& file,
                                        const std::string& expected) {
  using Json = nlohmann::ordered_json;
  // Before the parser: nothing that walks the document afterwards may meet deeper nesting.
  if (const size_t deep = json_too_deep_at(text); deep != std::string::npos)
    throw InputError(position_in(text, deep, file), "",
                     "nesting deeper than " + std::to_string(kMaxInputDepth) +
                         " levels; expected " + expected);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 2, column 11: syntax error ...":
    // the reason after the position, which the error's own position replaces.
    const std::string what = e.what();
    const size_t colon = what.find(": ", what.find("] "));
    throw InputError(position_in(text, e.byte > 0 ? e.byte - 1 : 0, file), "",
                     "invalid JSON (" +
                         (colon == std::string::npos ? what : what.substr(colon + 2)) +
                         "); expected " + expected);
  } catch (const Json::exception& e) { // a number too large for a double, for example
    const std::string what = e.what();
    const size_t bracket = what.find("] ");
    throw InputError(SourceLoc{file, 0, 0}, "",
                     "invalid JSON (" +
                         (bracket == std::string::npos ? what : what.substr(bracket + 2)) +
                         "); expected " + expected);
  }
}

nlohmann::ordered_json parse_json_or_discarded(const std::string& text) {
  if (json_too_deep_at(text) != std::string::npos)
    return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  return nlohmann::ordered_json::parse(text, nullptr, false);
}

} // namespace npu
