// Pre-load checks of plugin files: the ELF header and program headers, read as bytes.
#include "elf_check.h"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace quench {
namespace {

// Anchors dladdr() in the module this file is compiled into.
const unsigned char kElfAnchor = 0;

std::string class_name(unsigned char c) {
  const std::string n = std::to_string(c);
  if (c == ELFCLASS32) return n + " (32-bit)";
  if (c == ELFCLASS64) return n + " (64-bit)";
  return n + " (invalid)";
}

std::string data_name(unsigned char d) {
  const std::string n = std::to_string(d);
  if (d == ELFDATA2LSB) return n + " (little-endian)";
  if (d == ELFDATA2MSB) return n + " (big-endian)";
  return n + " (invalid)";
}

std::string machine_name(std::uint16_t m) {
  const std::string n = std::to_string(m);
  switch (m) {
    case EM_X86_64:
      return n + " (x86-64)";
    case EM_386:
      return n + " (i386)";
    case EM_AARCH64:
      return n + " (AArch64)";
    case EM_ARM:
      return n + " (ARM)";
    case EM_PPC64:
      return n + " (PowerPC64)";
    case EM_RISCV:
      return n + " (RISC-V)";
    case EM_S390:
      return n + " (S/390)";
    default:
      return n;
  }
}

std::string type_name(std::uint16_t t) {
  const std::string n = std::to_string(t);
  switch (t) {
    case ET_REL:
      return n + " (relocatable object)";
    case ET_EXEC:
      return n + " (executable)";
    case ET_CORE:
      return n + " (core file)";
    default:
      return n;
  }
}

// "ends at byte offset+length", saturated when the sum does not fit.
std::string end_byte(std::uint64_t offset, std::uint64_t length) {
  std::uint64_t end = 0;
  if (__builtin_add_overflow(offset, length, &end))
    return std::to_string(offset) + " + " + std::to_string(length);
  return std::to_string(end);
}

bool within(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

std::string truncated(const std::string& what, std::uint64_t offset, std::uint64_t length,
                      std::uint64_t file_size) {
  return "truncated: " + what + " ends at byte " + end_byte(offset, length) + ", file has " +
         std::to_string(file_size);
}

}  // namespace

ElfHost host_elf() {
  static const ElfHost host = [] {
    ElfHost values{sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32,
                   std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB, EM_NONE};
    Dl_info info{};
    if (dladdr(&kElfAnchor, &info) != 0 && info.dli_fbase != nullptr) {
      const auto* header = static_cast<const unsigned char*>(info.dli_fbase);
      if (std::memcmp(header, ELFMAG, SELFMAG) == 0) {
        values.elf_class = header[EI_CLASS];
        values.data = header[EI_DATA];
        std::memcpy(&values.machine, header + offsetof(Elf64_Ehdr, e_machine),
                    sizeof values.machine);
      }
    }
    return values;
  }();
  return host;
}

std::optional<std::string> elf_image_problem(std::span<const unsigned char> head,
                                             std::uint64_t file_size, const ElfHost& host) {
  const std::uint64_t size = std::min<std::uint64_t>(file_size, head.size());
  if (size < SELFMAG || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0)
    return std::string("not an ELF file (no ELF magic number)");
  if (size < EI_NIDENT) return truncated("ELF identification", 0, EI_NIDENT, file_size);
  if (head[EI_CLASS] != ELFCLASS64 || head[EI_CLASS] != host.elf_class)
    return "ELF class " + class_name(head[EI_CLASS]) + ", host " + class_name(host.elf_class) +
           "; only 64-bit libraries are loaded";
  if (head[EI_DATA] != host.data)
    return "ELF byte order " + data_name(head[EI_DATA]) + ", host " + data_name(host.data);
  if (size < sizeof(Elf64_Ehdr)) return truncated("ELF header", 0, sizeof(Elf64_Ehdr), file_size);

  Elf64_Ehdr header;
  std::memcpy(&header, head.data(), sizeof header);
  if (header.e_type != ET_DYN)
    return "ELF type " + type_name(header.e_type) + ", not a shared library (ET_DYN)";
  if (header.e_machine != host.machine)
    return "ELF machine " + machine_name(header.e_machine) + ", host " + machine_name(host.machine);
  if (header.e_phnum == 0) return std::string("no program headers");
  if (header.e_phnum == PN_XNUM)
    return std::string("extended program header count (PN_XNUM) is not supported");
  if (header.e_phentsize != sizeof(Elf64_Phdr))
    return "program header entry size " + std::to_string(header.e_phentsize) + ", expected " +
           std::to_string(sizeof(Elf64_Phdr));
  const std::uint64_t table_bytes = std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (!within(header.e_phoff, table_bytes, file_size))
    return truncated("program header table", header.e_phoff, table_bytes, file_size);
  if (!within(header.e_phoff, table_bytes, size))
    return "program header table ends at byte " + end_byte(header.e_phoff, table_bytes) +
           ", beyond the first " + std::to_string(size) + " bytes that are checked";

  bool dynamic = false;
  for (std::uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, head.data() + header.e_phoff + i * sizeof(Elf64_Phdr), sizeof segment);
    if (!within(segment.p_offset, segment.p_filesz, file_size))
      return truncated("program header " + std::to_string(i), segment.p_offset, segment.p_filesz,
                       file_size);
    dynamic = dynamic || segment.p_type == PT_DYNAMIC;
  }
  if (!dynamic) return std::string("no PT_DYNAMIC segment; not a dynamically linked library");
  return std::nullopt;
}

std::optional<std::string> elf_file_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return std::string("no such file or directory");
  if (ec) return ec.message();
  if (!fs::is_regular_file(status)) return std::string("not a regular file");
  const std::uintmax_t file_size = fs::file_size(path, ec);
  if (ec) return "cannot read the file size: " + ec.message();

  std::vector<unsigned char> head(std::min<std::uintmax_t>(file_size, kElfHeadBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size())))
    return std::string("cannot be read");
  return elf_image_problem(head, file_size, host_elf());
}

}  // namespace quench
