// Text for messages and reports. Text taken from user input (a CSV cell, a YAML scalar, a file
// name) made safe to echo in a message: control bytes cannot move the cursor, clear the screen or
// forge further lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "quench/export.h"

namespace quench {

/// `text` with every control byte (0x00-0x1f, 0x7f) written as a C escape (\n, \r, \t, \xHH)
/// and a backslash as "\\"; bytes >= 0x80 (UTF-8) are kept. Longer than `max_length` bytes,
/// the text is cut there and "..." appended.
QUENCH_API std::string printable(std::string_view text, std::size_t max_length = 200);

/// The shortest text that reads back as exactly x (std::to_chars): for messages, tables and
/// reports alike.
QUENCH_API std::string format_number(double x);

}  // namespace quench
