// Checks a plugin file before dlopen: dlopen maps the file and runs its constructors before
// any descriptor can be checked, and a truncated library makes it fault (SIGBUS) while
// reading segments that are not in the file. These checks need only the bytes of the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace quench {

/// The ELF identity a loadable library must share with this process.
struct ElfHost {
  unsigned char elf_class;  ///< ELFCLASS64 / ELFCLASS32
  unsigned char data;       ///< ELFDATA2LSB / ELFDATA2MSB
  std::uint16_t machine;    ///< e.g. EM_X86_64
};

/// This process's values, read from the ELF header of the loaded quench framework library.
ElfHost host_elf();

/// The bytes elf_file_problem() reads from the start of a file; a program header table
/// beyond them is refused.
inline constexpr std::size_t kElfHeadBytes = 64 * 1024;

/// Why a file of `file_size` bytes starting with `head` is not a shared library this host
/// can map, or nothing: ELF magic, 64-bit class, the host's byte order and machine, ET_DYN,
/// the program header table within `head`, every segment's file bytes within `file_size`, a
/// PT_DYNAMIC segment. `head` is the whole file or its first bytes (file_size >= head.size()).
std::optional<std::string> elf_image_problem(std::span<const unsigned char> head,
                                             std::uint64_t file_size, const ElfHost& host);

/// elf_image_problem() for a file, which must also be a regular file; errors reading it are
/// problems too. The path is not repeated in the text.
std::optional<std::string> elf_file_problem(const std::string& path);

}  // namespace quench
