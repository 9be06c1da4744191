#include "quench/printable.h"

#include <charconv>

namespace quench {

std::string printable(std::string_view text, std::size_t max_length) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool cut = text.size() > max_length;
  if (cut) text = text.substr(0, max_length);
  std::string out;
  out.reserve(text.size() + (cut ? 3 : 0));
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  if (cut) out += "...";
  return out;
}

std::string format_number(double x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

}  // namespace quench
