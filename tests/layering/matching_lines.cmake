# matching_lines(<out> <regex> <files...>): "\n  <file relative to SOURCE_DIR>: <line>" for every
# line of the files that matches the regex (the layering checks' violations).
function(matching_lines out regex)
  set(found "")
  foreach(file IN LISTS ARGN)
    file(STRINGS "${file}" lines REGEX "${regex}")
    foreach(line IN LISTS lines)
      file(RELATIVE_PATH name "${SOURCE_DIR}" "${file}")
      string(APPEND found "\n  ${name}: ${line}")
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
