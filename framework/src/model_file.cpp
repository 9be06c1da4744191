// The model file (docs/models.md): a 512-byte text header in HDF5's user block, then an HDF5
// file with one dataset per archive entry. The header holds the format name, its version and
// the XXH3-128 checksum of every byte after the header, so a truncated, corrupted or foreign
// file is refused before the HDF5 library parses anything: a first pass streams the open file
// through the checksum, then HDF5 reads the same file (same inode, checked through its own
// descriptor) straight into the arrays, and a file that changed in between is refused.
// Matrices are stored column-major as Eigen holds them: the HDF5 dataspace is cols x rows
// (readers in C order, e.g. h5py, transpose; R and Julia read rows x cols).
#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <type_traits>
#include <vector>

#include "quench/model_archive.h"
#include "quench/version.h"

namespace quench {
namespace {

constexpr std::size_t kHeaderSize = 512;  // HDF5 user blocks are powers of two >= 512
constexpr const char* kMagic = "quench-model";

// An HDF5 identifier closed by its own close function.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// XXH3-128 of the bytes of `fd` from offset kHeaderSize to its end, read in cache-sized
// chunks (the bytes are hashed while hot; nothing the size of the file is allocated). Sets
// `size` to the bytes hashed; false when the file cannot be read.
bool checksum_of_contents(int fd, std::string& hex, std::size_t& size) {
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(),
                                                                        XXH3_freeState);
  if (!state || XXH3_128bits_reset(state.get()) != XXH_OK) return false;
  std::vector<char> chunk(std::size_t{1} << 20);
  auto offset = static_cast<off_t>(kHeaderSize);
  size = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    XXH3_128bits_update(state.get(), chunk.data(), static_cast<std::size_t>(n));
    offset += n;
    size += static_cast<std::size_t>(n);
  }
  const XXH128_hash_t h = XXH3_128bits_digest(state.get());
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  hex = text;
  return true;
}

// A file descriptor closed on scope exit.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string header_text(const std::string& checksum) {
  std::ostringstream out;
  out << kMagic << "\nformat_version: " << kModelFormatVersion << "\nchecksum: xxh3-128 "
      << checksum << " (of the bytes after the first " << kHeaderSize << ")\nwritten_by: quench "
      << kVersion << "\n";
  return out.str();
}

// ---- writing ----

class Writer {
 public:
  Writer(const std::string& path, const std::string& shown) : shown_(shown) {
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    check(fcpl.valid() && H5Pset_userblock(fcpl.get(), kHeaderSize) >= 0, "file properties");
    file_ = H5Fcreate(path.c_str(), H5F_ACC_EXCL, fcpl.get(), H5P_DEFAULT);
    check(file_ >= 0, "cannot create the file");
    text_ = H5Tcopy(H5T_C_S1);
    check(text_ >= 0 && H5Tset_size(text_, H5T_VARIABLE) >= 0 &&
              H5Tset_cset(text_, H5T_CSET_UTF8) >= 0,
          "string type");
  }
  ~Writer() {
    if (text_ >= 0) H5Tclose(text_);
    if (file_ >= 0) H5Fclose(file_);
  }
  void close() {
    check(H5Fclose(file_) >= 0, "cannot complete the file");
    file_ = -1;
  }

  void attribute(const char* name, const std::string& value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(file_, name, text_, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char* p = value.c_str();
    check(a.valid() && H5Awrite(a.get(), text_, &p) >= 0, std::string("attribute ") + name);
  }
  void attribute(const char* name, std::int64_t value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(file_, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
             H5Aclose);
    check(a.valid() && H5Awrite(a.get(), H5T_NATIVE_INT64, &value) >= 0,
          std::string("attribute ") + name);
  }

  void entry(const std::string& name, const ModelArchive::Entry& e) {
    std::visit([&](const auto& v) { write(name, v); }, e);
  }

 private:
  void check(bool ok, const std::string& what) const {
    if (!ok) throw ModelFileError(shown_, "cannot write the model file: " + what);
  }
  void put(const std::string& name, hid_t file_type, hid_t memory_type,
           const std::vector<hsize_t>& dims, const void* data) {
    Handle space(dims.empty()
                     ? H5Screate(H5S_SCALAR)
                     : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                 H5Sclose);
    Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    check(space.valid() && links.valid() && H5Pset_create_intermediate_group(links.get(), 1) >= 0,
          "entry '" + name + "'");
    Handle d(H5Dcreate2(file_, name.c_str(), file_type, space.get(), links.get(), H5P_DEFAULT,
                        H5P_DEFAULT),
             H5Dclose);
    bool empty = false;
    for (const hsize_t n : dims) empty = empty || n == 0;
    check(d.valid() &&
              (empty || H5Dwrite(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0),
          "entry '" + name + "'");
  }
  void write(const std::string& name, double v) {
    put(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &v);
  }
  void write(const std::string& name, std::int64_t v) {
    put(name, H5T_STD_I64LE, H5T_NATIVE_INT64, {}, &v);
  }
  void write(const std::string& name, const std::string& v) {
    const char* p = v.c_str();
    put(name, text_, text_, {}, &p);
  }
  void write(const std::string& name, const Eigen::VectorXd& v) {
    put(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(v.size())}, v.data());
  }
  void write(const std::string& name, const Eigen::MatrixXd& m) {
    put(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
        {static_cast<hsize_t>(m.cols()), static_cast<hsize_t>(m.rows())}, m.data());
  }
  void write(const std::string& name, const std::vector<std::string>& v) {
    std::vector<const char*> p;
    for (const std::string& s : v) p.push_back(s.c_str());
    put(name, text_, text_, {static_cast<hsize_t>(v.size())}, p.data());
  }

  std::string shown_;
  hid_t file_ = -1, text_ = -1;
};

void write_header(const std::string& path, const std::string& shown) {
  const FileDescriptor fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  std::string checksum;
  std::size_t size = 0;
  if (fd.get() < 0 || !checksum_of_contents(fd.get(), checksum, size))
    throw ModelFileError(shown, "cannot read back the written file");
  if (size == 0) throw ModelFileError(shown, "the written file is incomplete");
  std::string header = header_text(checksum);
  header.resize(kHeaderSize, '\0');
  if (::pwrite(fd.get(), header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
    throw ModelFileError(shown, "cannot write the file header");
}

void sync_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;
  ::fsync(::fileno(f));
  std::fclose(f);
}

// ---- reading ----

// The model file, opened once and verified: the header's format and version, and the
// checksum of every byte after it, before HDF5 sees the file. The descriptor stays open while
// HDF5 reads the same file; its identity and size must not change until the archive is read.
class VerifiedFile {
 public:
  explicit VerifiedFile(const std::string& path)
      // O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
      : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {
    if (fd_.get() < 0)
      throw ModelFileError(path, std::string("cannot open the file: ") + std::strerror(errno));
    if (::fstat(fd_.get(), &stat_) != 0)
      throw ModelFileError(path, std::string("cannot read the file: ") + std::strerror(errno));
    if (!S_ISREG(stat_.st_mode)) throw ModelFileError(path, "not a regular file");
    std::string header(kHeaderSize, '\0');
    ssize_t got = -1;
    do got = ::pread(fd_.get(), header.data(), header.size(), 0);
    while (got < 0 && errno == EINTR);
    if (got < 0) throw ModelFileError(path, "cannot read the file");
    header.resize(static_cast<std::size_t>(got));
    const std::string magic = std::string(kMagic) + "\n";
    if (header.compare(0, magic.size(), magic) != 0)
      throw ModelFileError(path, "not a quench model file (no '" + std::string(kMagic) +
                                     "' header; a model file is written by 'quench run' with "
                                     "outputs: {models: true})");
    const auto size = static_cast<std::size_t>(stat_.st_size);
    if (size <= kHeaderSize)
      throw ModelFileError(path, "truncated: " + std::to_string(size) +
                                     " bytes, not even the header and an HDF5 file");
    std::istringstream lines(header.substr(magic.size(), strnlen(header.data(), kHeaderSize)));
    std::string line, version, checksum;
    while (std::getline(lines, line)) {
      if (line.rfind("format_version: ", 0) == 0) version = line.substr(16);
      if (line.rfind("checksum: xxh3-128 ", 0) == 0) checksum = line.substr(19, 32);
    }
    if (version != std::to_string(kModelFormatVersion))
      throw ModelFileError(path, "model format version '" + version + "', this quench reads " +
                                     std::to_string(kModelFormatVersion));
    std::string actual;
    std::size_t hashed = 0;
    if (!checksum_of_contents(fd_.get(), actual, hashed))
      throw ModelFileError(path, std::string("cannot read the file: ") + std::strerror(errno));
    if (hashed != size - kHeaderSize) throw changed();
    if (checksum != actual)
      throw ModelFileError(path, "checksum mismatch (header " + checksum + ", contents " + actual +
                                     "): the file is truncated or corrupted");
  }

  /// Whether `fd` (HDF5's descriptor) is this file.
  bool same_file(int fd) const {
    struct stat other {};
    return ::fstat(fd, &other) == 0 && other.st_dev == stat_.st_dev && other.st_ino == stat_.st_ino;
  }
  /// Throws when the file's size or modification time differ from when it was verified.
  void check_unchanged() const {
    struct stat now {};
    if (::fstat(fd_.get(), &now) != 0 || now.st_size != stat_.st_size ||
        now.st_mtim.tv_sec != stat_.st_mtim.tv_sec || now.st_mtim.tv_nsec != stat_.st_mtim.tv_nsec)
      throw changed();
  }
  ModelFileError changed() const {
    return ModelFileError(path_, "the file changed while it was loaded");
  }

 private:
  std::string path_;
  FileDescriptor fd_;
  struct stat stat_ {};
};

class Reader {
 public:
  // Opens the verified file with HDF5's default (sec2) driver: datasets are read with pread
  // straight into the arrays. Refused unless HDF5's descriptor is the verified file (not
  // another one renamed over the path in between).
  // No file lock: a read-only open needs none, and file systems without locks (NFS, some
  // container mounts) would otherwise refuse the file.
  Reader(const std::string& path, const VerifiedFile& verified) : path_(path) {
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    check(fapl.valid() && H5Pset_file_locking(fapl.get(), false, true) >= 0,
          "cannot set the HDF5 file access properties");
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    check(file_ >= 0, "the contents are not a readable HDF5 file");
    void* handle = nullptr;
    check(H5Fget_vfd_handle(file_, H5P_DEFAULT, &handle) >= 0 && handle &&
              verified.same_file(*static_cast<int*>(handle)),
          "the file changed while it was loaded");
  }
  ~Reader() {
    if (file_ >= 0) H5Fclose(file_);
  }

  std::string text_attribute(const char* name) {
    Handle a(H5Aopen(file_, name, H5P_DEFAULT), H5Aclose);
    check(a.valid(), std::string("attribute '") + name + "' is missing");
    Handle type(H5Aget_type(a.get()), H5Tclose);
    check(H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) > 0,
          std::string("attribute '") + name + "' is not a text");
    Handle memory(text_type(), H5Tclose);
    char* p = nullptr;
    check(H5Aread(a.get(), memory.get(), &p) >= 0 && p, std::string("attribute '") + name + "'");
    std::string s(p);
    H5free_memory(p);
    return s;
  }

  ModelArchive archive() {
    ModelArchive out(path_);
    std::vector<std::string> names;
    auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
      if (info->type == H5O_TYPE_DATASET)
        static_cast<std::vector<std::string>*>(data)->push_back(name);
      return 0;
    };
    check(H5Ovisit2(file_, H5_INDEX_NAME, H5_ITER_INC, visit, &names, H5O_INFO_BASIC) >= 0,
          "cannot list the entries");
    for (const std::string& name : names) read(out, name);
    return out;
  }

 private:
  static hid_t text_type() {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
  }
  void check(bool ok, const std::string& what) const {
    if (!ok) throw ModelFileError(path_, what);
  }

  void read(ModelArchive& out, const std::string& name) {
    Handle d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    check(d.valid(), "entry '" + name + "' cannot be opened");
    Handle space(H5Dget_space(d.get()), H5Sclose);
    Handle type(H5Dget_type(d.get()), H5Tclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    check(rank >= 0 && rank <= 2, "entry '" + name + "' has rank " + std::to_string(rank));
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    const H5T_class_t kind = H5Tget_class(type.get());
    auto read_into = [&](hid_t memory_type, void* data, hsize_t count) {
      check(count == 0 || H5Dread(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
            "entry '" + name + "' cannot be read");
    };
    const auto index = [](hsize_t n) { return static_cast<Eigen::Index>(n); };
    const std::string entry = name.front() == '/' ? name.substr(1) : name;
    try {
      if (kind == H5T_FLOAT && H5Tget_size(type.get()) == 8) {
        if (rank == 0) {
          double v = 0;
          read_into(H5T_NATIVE_DOUBLE, &v, 1);
          out.put(entry, v);
        } else if (rank == 1) {
          Eigen::VectorXd v(index(dims[0]));
          read_into(H5T_NATIVE_DOUBLE, v.data(), dims[0]);
          out.put(entry, std::move(v));
        } else {
          Eigen::MatrixXd m(index(dims[1]), index(dims[0]));  // stored column-major
          read_into(H5T_NATIVE_DOUBLE, m.data(), dims[0] * dims[1]);
          out.put(entry, std::move(m));
        }
      } else if (kind == H5T_INTEGER && rank == 0 && H5Tget_size(type.get()) == 8) {
        std::int64_t v = 0;
        read_into(H5T_NATIVE_INT64, &v, 1);
        out.put(entry, v);
      } else if (kind == H5T_STRING && H5Tis_variable_str(type.get()) > 0 && rank <= 1) {
        const hsize_t n = rank == 0 ? 1 : dims[0];
        std::vector<char*> p(n, nullptr);
        Handle memory(text_type(), H5Tclose);
        read_into(memory.get(), p.data(), n);
        std::vector<std::string> texts;
        for (char* s : p) {
          texts.emplace_back(s ? s : "");
          H5free_memory(s);
        }
        if (rank == 0)
          out.put(entry, texts.front());
        else
          out.put(entry, std::move(texts));
      } else {
        check(false, "entry '" + name + "' has a type the model format does not use");
      }
    } catch (const std::invalid_argument&) {
      check(false, "entry '" + name + "' has an invalid name");
    }
  }

  std::string path_;
  hid_t file_ = -1;
};

// HDF5 prints its error stack to stderr by default; quench reports its own errors.
void silence_hdf5() {
  static const bool done = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }();
  (void)done;
}

}  // namespace

void save_archive(const ModelArchive& archive, const std::string& path) {
  silence_hdf5();
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  std::remove(partial.c_str());
  try {
    {
      Writer w(partial, path);
      w.attribute("format", std::string(kMagic));
      w.attribute("format_version", kModelFormatVersion);
      for (const auto& [name, entry] : archive.entries()) w.entry(name, entry);
      w.close();
    }
    write_header(partial, path);
    sync_file(partial);
    if (std::rename(partial.c_str(), path.c_str()) != 0)
      throw ModelFileError(
          path, std::string("cannot move the model into place: ") + std::strerror(errno));
  } catch (...) {
    std::remove(partial.c_str());
    throw;
  }
}

ModelArchive load_archive(const std::string& path) {
  silence_hdf5();
  const VerifiedFile verified(path);
  Reader reader(path, verified);
  if (reader.text_attribute("format") != kMagic)
    throw ModelFileError(path, "the HDF5 contents are not a quench model");
  ModelArchive archive = reader.archive();
  verified.check_unchanged();
  return archive;
}

}  // namespace quench
